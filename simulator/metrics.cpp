#include "simulator/metrics.hpp"

#include "common/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mcb::sim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kBucketRatio = 1.001;  // relative width of a histogram bucket

}  // namespace

double t_quantile_975(int df) { return student_t_quantile(0.975, df); }

Interval interval_of(const std::vector<double>& samples) {
  Interval out;
  out.samples = static_cast<int>(samples.size());
  out.mean = mcb::mean(samples);
  const double sd = sample_stddev(samples, out.mean);  // NaN for fewer than 2 samples
  out.half_width = samples.size() < 2 ? kNaN
                                      : t_quantile_975(out.samples - 1) * sd /
                                            std::sqrt(static_cast<double>(samples.size()));
  return out;
}

double Moments::mean() const { return count ? sum / static_cast<double>(count) : kNaN; }

Quantiles::Quantiles(std::size_t exact_limit) : limit_(exact_limit) {}

void Quantiles::reserve(std::uint64_t n) {
  values_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, limit_ + 1)));
}

void Quantiles::add_folded(double v) {
  if (!folded_) fold();  // the value over the limit
  ++count_;
  if (v <= 0) {
    ++zeros_;
  } else {
    ++histogram_[static_cast<std::int64_t>(std::floor(std::log(v) / std::log(kBucketRatio)))];
  }
}

void Quantiles::fold() {
  for (double v : values_) {
    if (v <= 0) {
      ++zeros_;
    } else {
      ++histogram_[static_cast<std::int64_t>(std::floor(std::log(v) / std::log(kBucketRatio)))];
    }
  }
  values_.clear();
  values_.shrink_to_fit();
  folded_ = true;
}

double Quantiles::quantile(double p) const {
  if (count_ == 0) return kNaN;
  p = std::clamp(p, 0.0, 1.0);
  if (exact()) {
    const double pos = p * static_cast<double>(values_.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    // The lo-th smallest by selection, and the next one as the least of those above it: the
    // values a sort would put there, in linear time (a sort was most of a trace run's summary).
    const auto at = values_.begin() + static_cast<std::ptrdiff_t>(lo);
    if (selected_ != lo) {
      // After a selection at another position only the values on lo's side of it are left to
      // order: the 95th percentile after the median selects in the upper half only.
      auto first = values_.begin();
      auto last = values_.end();
      const bool known = selected_ != kNone;
      const auto mark = first + static_cast<std::ptrdiff_t>(known ? selected_ : 0);
      if (known && selected_ < lo) first = mark + 1;
      if (known && selected_ > lo) last = mark;
      std::nth_element(first, at, last);
      selected_ = lo;
    }
    const double low = *at;
    const double high = lo + 1 < values_.size() ? *std::min_element(at + 1, values_.end()) : low;
    return low + (pos - static_cast<double>(lo)) * (high - low);
  }
  const auto rank = static_cast<std::uint64_t>(std::ceil(p * static_cast<double>(count_)));
  std::uint64_t seen = zeros_;
  if (rank <= seen) return 0.0;
  std::vector<std::pair<std::int64_t, std::uint64_t>> buckets(histogram_.begin(), histogram_.end());
  std::sort(buckets.begin(), buckets.end());
  for (const auto& [bucket, n] : buckets) {
    seen += n;
    if (seen >= rank) return std::pow(kBucketRatio, static_cast<double>(bucket) + 0.5);
  }
  return std::pow(kBucketRatio, static_cast<double>(buckets.back().first) + 0.5);
}

void BatchMeans::add(double v) {
  partial_ += v;
  if (++in_partial_ < size_) return;
  sums_.push_back(partial_);
  partial_ = 0;
  in_partial_ = 0;
  if (sums_.size() == 2 * static_cast<std::size_t>(target_)) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(target_); ++i) {
      sums_[i] = sums_[2 * i] + sums_[2 * i + 1];
    }
    sums_.resize(static_cast<std::size_t>(target_));
    size_ *= 2;
  }
}

Interval BatchMeans::interval() const {
  std::vector<double> means;
  means.reserve(sums_.size());
  for (double s : sums_) means.push_back(s / static_cast<double>(size_));
  return interval_of(means);
}

}  // namespace mcb::sim
