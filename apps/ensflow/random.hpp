#pragma once
/// @file
/// @brief Random numbers keyed by what they are for, never by which process draws them: a
/// stream is named by (seed, purpose, index, sub-index), e.g. (seed, member perturbation,
/// member 17). A member's draws are therefore the same whichever rank holds it, which is what
/// makes the ensemble identical for every process count.

#include <cstdint>
#include <random>

namespace mcb::ensflow {

/// @brief What a stream is used for (part of its key).
enum class StreamPurpose : std::uint32_t {
  truth_perturbation = 1,   //!< the truth's initial departure from the background
  member_perturbation = 2,  //!< a member's initial departure (index = member)
  observation_sites = 3,    //!< where the observations are
  observation_error = 4,    //!< the synthetic observations' errors (index = analysis)
  observation_perturbation =
      5,               //!< a member's perturbed observations (index = analysis, sub = member)
  rank_histogram = 6,  //!< observation noise added to a member for the rank histogram
                       //!< (index = analysis, sub = member)
  spinup_noise = 7,    //!< the small departure from rest the spin-up starts from
};

/// @brief A Gaussian stream for one key; std::seed_seq and std::mt19937_64 are specified
/// exactly by the standard, so the key alone fixes the draws.
class KeyedStream {
 public:
  KeyedStream(std::int64_t seed, StreamPurpose purpose, std::uint64_t index = 0,
              std::uint64_t sub_index = 0);

  /// @brief A standard normal draw.
  double normal() { return normal_(engine_); }
  /// @brief A uniform integer in [0, bound).
  std::uint64_t below(std::uint64_t bound) {
    return std::uniform_int_distribution<std::uint64_t>(0, bound - 1)(engine_);
  }

 private:
  std::mt19937_64 engine_;
  std::normal_distribution<double> normal_{0.0, 1.0};
};

}  // namespace mcb::ensflow
