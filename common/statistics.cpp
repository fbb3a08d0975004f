#include "common/statistics.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mcb {

double mean(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double sample_stddev(const std::vector<double>& values, double mean) {
  if (values.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

Summary summarize(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("no values to summarize");
  std::sort(values.begin(), values.end());
  Summary s;
  s.n = values.size();
  s.min = values.front();
  s.max = values.back();
  s.avg = mean(values);
  const std::size_t mid = s.n / 2;
  s.median = s.n % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  if (s.n >= 2) s.stddev = sample_stddev(values, s.avg);
  return s;
}

double student_t_quantile(double p, double df) {
  if (!(df >= 1)) return std::numeric_limits<double>::quiet_NaN();
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

Spread Spread::of(double min, double sum, double max, int count) { return {min, sum / count, max}; }

nlohmann::json Spread::to_json() const { return {{"min", min}, {"avg", avg}, {"max", max}}; }

}  // namespace mcb
