#include "calibration/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mcb::calib {

Summary summarize(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("no values to summarize");
  std::sort(values.begin(), values.end());
  Summary s;
  s.n = values.size();
  s.min = values.front();
  s.max = values.back();
  double sum = 0;
  for (double v : values) sum += v;
  s.avg = sum / static_cast<double>(s.n);
  const std::size_t mid = s.n / 2;
  s.median = s.n % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  if (s.n >= 2) {
    double squares = 0;
    for (double v : values) squares += (v - s.avg) * (v - s.avg);
    s.stddev = std::sqrt(squares / static_cast<double>(s.n - 1));
  }
  return s;
}

}  // namespace mcb::calib
