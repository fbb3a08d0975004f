#pragma once
/// @file
/// @brief The suite's one random-number generator: its output is fixed by its seed on every
/// platform and standard library (std:: engines are, std:: distributions are not), so every
/// draw repeats bit for bit. Every program that draws (simulator, batchgrid, redundant,
/// matching, ensflow) draws through it.

#include <cmath>
#include <cstdint>

namespace mcb {

/// @brief SplitMix64 step; also used to derive independent stream seeds from one seed.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// @brief Uniform in [0, 1) from the top 53 bits of @p bits.
inline double unit_interval(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

/// @brief Seed of stream @p stream derived from a run seed.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t s = seed ^ (0xA0761D6478BD642Full * (stream + 1));
  splitmix64(s);
  return splitmix64(s);
}

/// @brief xoshiro256** with portable uniform, integer, exponential and normal draws.
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 1) {
    std::uint64_t s = seed;
    for (auto& w : s_) w = splitmix64(s);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return unit_interval(next()); }

  /// Uniform integer in [0, n), n > 0, without modulo bias.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
    std::uint64_t x = 0;
    do {
      x = next();
    } while (x >= limit);
    return x % n;
  }

  /// Exponential with the given rate (mean 1/rate).
  double exponential(double rate) { return -std::log1p(-uniform()) / rate; }

  /// Standard normal by Marsaglia's polar method (one value per accepted pair, none kept, so a
  /// draw depends only on the draws before it).
  double normal() {
    while (true) {
      const double u = 2 * uniform() - 1, v = 2 * uniform() - 1;
      const double s = u * u + v * v;
      if (s > 0 && s < 1) return u * std::sqrt(-2 * std::log(s) / s);
    }
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace mcb
