#include "apps/synth/kernels.hpp"

#include <algorithm>
#include <cstddef>

namespace mcb::synth {

namespace {

// Small integers: every sum and product below stays exact in a double.
double b_value(long i) { return static_cast<double>(i % 17); }
double c_value(long i) { return static_cast<double>(i % 13); }
double scalar(long pass) { return static_cast<double>(1 + pass % 3); }

// One pass over the first n elements (kept out of line: each call is real work).
[[gnu::noinline]] void triad(double* __restrict a, const double* __restrict b,
                             const double* __restrict c, double s, long n) {
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

// C = A B, i-k-j order (the inner loop streams rows of B and C).
[[gnu::noinline]] void multiply(const double* __restrict a, const double* __restrict b,
                                double* __restrict c, int n) {
  const auto un = static_cast<std::size_t>(n);
  std::fill(c, c + un * un, 0.0);
  for (std::size_t i = 0; i < un; ++i) {
    for (std::size_t k = 0; k < un; ++k) {
      const double aik = a[i * un + k];
      for (std::size_t j = 0; j < un; ++j) c[i * un + j] += aik * b[k * un + j];
    }
  }
}

}  // namespace

Triad::Triad(long length, long elements_per_call) : elements_(elements_per_call) {
  if (elements_ == 0) return;
  const auto n = static_cast<std::size_t>(std::min(length, elements_per_call));
  a_.assign(n, 0.0);
  b_.resize(n);
  c_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    b_[i] = b_value(static_cast<long>(i));
    c_[i] = c_value(static_cast<long>(i));
  }
}

long Triad::run(long iteration) {
  if (elements_ == 0) return 0;
  const long length = static_cast<long>(a_.size());
  long pass = iteration * ((elements_ + length - 1) / length);
  long last = 0;
  double s = 0;
  for (long done = 0; done < elements_; done += length, ++pass) {
    last = std::min(length, elements_ - done);
    s = scalar(pass);
    triad(a_.data(), b_.data(), c_.data(), s, last);
  }
  // The last pass's first, middle and last results.
  long wrong = 0;
  for (const long i : {0L, last / 2, last - 1}) {
    if (a_[static_cast<std::size_t>(i)] != b_value(i) + s * c_value(i)) ++wrong;
  }
  return wrong;
}

DenseBlock::DenseBlock(int n, long products_per_call) : n_(n), products_(products_per_call) {
  if (products_ == 0) return;
  const auto un = static_cast<std::size_t>(n);
  a_.resize(un * un);
  b_.resize(un * un);
  c_.assign(un * un, 0.0);
  for (std::size_t i = 0; i < un; ++i) {
    for (std::size_t j = 0; j < un; ++j) {
      a_[i * un + j] = static_cast<double>((i + j) % 3) - 1.0;
      b_[i * un + j] = static_cast<double>((i * j) % 5) - 2.0;
    }
  }
}

long DenseBlock::run(long iteration) {
  if (products_ == 0) return 0;
  const auto un = static_cast<std::size_t>(n_);
  for (long p = 0; p < products_; ++p, ++done_) {
    // Up and down in turn, so the entries stay small integers however long the run.
    const auto at =
        static_cast<std::size_t>(done_ % n_) * un + static_cast<std::size_t>((3 * done_) % n_);
    b_[at] += (done_ / n_) % 2 == 0 ? 1.0 : -1.0;
    multiply(a_.data(), b_.data(), c_.data(), n_);
  }
  const auto i = static_cast<std::size_t>(iteration % n_);
  const auto j = static_cast<std::size_t>((7 * iteration) % n_);
  double dot = 0;
  for (std::size_t k = 0; k < un; ++k) dot += a_[i * un + k] * b_[k * un + j];
  return c_[i * un + j] == dot ? 0 : 1;
}

}  // namespace mcb::synth
