#include "simulator/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mcb::sim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kBucketRatio = 1.001;  // relative width of a histogram bucket

}  // namespace

double t_quantile_975(int df) {
  static constexpr double table[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                     2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                     2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                     2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return kNaN;
  if (df <= 30) return table[df];
  if (df <= 40) return 2.042 + (2.021 - 2.042) * (df - 30) / 10.0;
  if (df <= 60) return 2.021 + (2.000 - 2.021) * (df - 40) / 20.0;
  if (df <= 120) return 2.000 + (1.980 - 2.000) * (df - 60) / 60.0;
  return 1.960;
}

Interval interval_of(const std::vector<double>& samples) {
  Interval out;
  out.samples = static_cast<int>(samples.size());
  if (samples.empty()) {
    out.mean = kNaN;
    out.half_width = kNaN;
    return out;
  }
  double sum = 0;
  for (double v : samples) sum += v;
  out.mean = sum / static_cast<double>(samples.size());
  if (samples.size() < 2) {
    out.half_width = kNaN;
    return out;
  }
  double ss = 0;
  for (double v : samples) ss += (v - out.mean) * (v - out.mean);
  const double sd = std::sqrt(ss / static_cast<double>(samples.size() - 1));
  out.half_width = t_quantile_975(static_cast<int>(samples.size()) - 1) * sd /
                   std::sqrt(static_cast<double>(samples.size()));
  return out;
}

void Moments::add(double v) {
  if (count == 0 || v < min) min = v;
  if (count == 0 || v > max) max = v;
  ++count;
  sum += v;
}

double Moments::mean() const { return count ? sum / static_cast<double>(count) : kNaN; }

Quantiles::Quantiles(std::size_t exact_limit) : limit_(exact_limit) {}

void Quantiles::add(double v) {
  ++count_;
  if (exact()) {
    values_.push_back(v);
    sorted_ = false;
    if (values_.size() > limit_) fold();
    return;
  }
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
    if (!sorted_) {
      std::sort(values_.begin(), values_.end());
      sorted_ = true;
    }
    const double pos = p * static_cast<double>(values_.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, values_.size() - 1);
    return values_[lo] + (pos - static_cast<double>(lo)) * (values_[hi] - values_[lo]);
  }
  const auto rank = static_cast<std::uint64_t>(std::ceil(p * static_cast<double>(count_)));
  std::uint64_t seen = zeros_;
  if (rank <= seen) return 0.0;
  for (const auto& [bucket, n] : histogram_) {
    seen += n;
    if (seen >= rank) return std::pow(kBucketRatio, static_cast<double>(bucket) + 0.5);
  }
  return std::pow(kBucketRatio, static_cast<double>(histogram_.rbegin()->first) + 0.5);
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
