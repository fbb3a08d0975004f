#pragma once
/// @file
/// @brief Statistics in bounded memory: running moments, quantiles (exact up to a number of
/// values, then a log-scale histogram of 0.1% relative width), streaming batch means, and
/// Student-t confidence intervals.

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace mcb::sim {

/// @brief Two-sided 95% Student-t quantile for @p df degrees of freedom (df >= 1; NaN below),
/// from the suite's statistics module (common/statistics.hpp, Boost.Math).
double t_quantile_975(int df);

/// @brief A mean and its 95% confidence interval.
struct Interval {
  double mean = 0;
  double half_width = 0;  //!< NaN when there is too little data for an interval
  int samples = 0;        //!< batches or replications behind the interval
};

/// @brief Mean and 95% interval of independent samples (replication means).
Interval interval_of(const std::vector<double>& samples);

/// @brief Count, sum, min, max.
struct Moments {
  std::uint64_t count = 0;
  double sum = 0;
  double min = 0, max = 0;
  /// Inline: a run adds three values per job.
  void add(double v) {
    if (count == 0 || v < min) min = v;
    if (count == 0 || v > max) max = v;
    ++count;
    sum += v;
  }
  double mean() const;
};

/// @brief Quantiles of a stream: exact while it holds at most @p exact_limit values, then
/// approximate to 0.1% (relative) with memory independent of the stream's length.
class Quantiles {
 public:
  explicit Quantiles(std::size_t exact_limit = std::size_t{1} << 17);
  /// Inline while exact (a run adds three values per job); folds and counts in buckets after.
  void add(double v) {
    if (folded_ || values_.size() == limit_) return add_folded(v);
    ++count_;
    values_.push_back(v);
    selected_ = kNone;
  }
  /// Room for @p n values (at most as many as are kept exactly).
  void reserve(std::uint64_t n);
  /// The p-quantile (0 <= p <= 1), linearly interpolated between order statistics when exact.
  double quantile(double p) const;
  std::uint64_t count() const { return count_; }
  bool exact() const { return !folded_; }

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};
  void add_folded(double v);
  void fold();
  std::size_t limit_;
  std::uint64_t count_ = 0;
  mutable std::vector<double> values_;
  /// The position values_ was last partitioned at by quantile() (kNone when not since the last
  /// add): the values below it are not larger, those above not smaller.
  mutable std::size_t selected_ = kNone;
  /// Positive values by log bucket; hashed, as a stream of millions of values adds to it (the
  /// buckets are sorted when a quantile is asked for).
  std::unordered_map<std::int64_t, std::uint64_t> histogram_;
  std::uint64_t zeros_ = 0;  //!< values <= 0 once folded
  bool folded_ = false;
};

/// @brief Batch means over a stream of unknown length: keeps between B and 2B full batches,
/// merging neighbours and doubling the batch size when it reaches 2B.
class BatchMeans {
 public:
  explicit BatchMeans(int batches = 20) : target_(batches < 2 ? 2 : batches) {}
  void add(double v);
  /// Mean of the full batches' means and the 95% half-width around it.
  Interval interval() const;
  std::uint64_t batch_size() const { return size_; }

 private:
  int target_;
  std::uint64_t size_ = 1;
  std::vector<double> sums_;
  double partial_ = 0;
  std::uint64_t in_partial_ = 0;
};

}  // namespace mcb::sim
