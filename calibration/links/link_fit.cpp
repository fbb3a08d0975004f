#include "calibration/links/link_fit.hpp"

#include "common/units.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace mcb::links {

nlohmann::json LinkFit::to_json() const {
  return {{"t0", t0},
          {"bandwidth", megabytes_per_second(bandwidth)},
          {"r2", r2},
          {"max_relative_gap", max_relative_gap}};
}

LinkFit fit_link(const std::vector<double>& bytes, const std::vector<double>& seconds) {
  if (bytes.size() != seconds.size() || std::set<double>(bytes.begin(), bytes.end()).size() < 2) {
    throw std::invalid_argument("a link fit needs points at two or more message sizes");
  }
  // Minimise sum ((y - t0 - s x) / y)^2: weighted least squares with weights 1 / y^2.
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double y = seconds[i];
    const double w = y > 0 ? 1.0 / (y * y) : 1.0;
    sw += w;
    sx += w * bytes[i];
    sy += w * y;
    sxx += w * bytes[i] * bytes[i];
    sxy += w * bytes[i] * y;
  }
  const double det = sw * sxx - sx * sx;
  const double slope = (sw * sxy - sx * sy) / det;
  const double intercept = (sy - slope * sx) / sw;
  LinkFit fit;
  fit.t0 = intercept;
  fit.bandwidth = slope > 0 ? 1.0 / slope : 0.0;
  const double mean = sy / sw;
  double residual = 0, total = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double y = seconds[i];
    const double w = y > 0 ? 1.0 / (y * y) : 1.0;
    const double model = intercept + slope * bytes[i];
    residual += w * (y - model) * (y - model);
    total += w * (y - mean) * (y - mean);
    const double gap = model != 0 ? (y - model) / model : 0.0;
    fit.gaps.push_back(gap);
    fit.max_relative_gap = std::max(fit.max_relative_gap, std::fabs(gap));
  }
  fit.r2 = total > 0 ? 1.0 - residual / total : 1.0;
  return fit;
}

}  // namespace mcb::links
