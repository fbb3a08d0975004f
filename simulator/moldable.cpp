#include "simulator/moldable.hpp"

#include "common/csv.hpp"
#include "common/errors.hpp"

#include <algorithm>
#include <cmath>

namespace mcb::sim {

double SpeedupModel::speedup(double n, double a) const {
  if (kind == Kind::kLinear) return n;
  // Downey (1997), equations for low (sigma <= 1) and high (sigma >= 1) variance.
  const double s = sigma;
  if (s <= 1.0) {
    if (n <= a) return a * n / (a + s * (n - 1) / 2);
    if (n <= 2 * a - 1) return a * n / (s * (a - 0.5) + n * (1 - s / 2));
    return a;
  }
  if (n <= a + a * s - s) return n * a * (s + 1) / (s * (n + a - 1) + a);
  return a;
}

double SpeedupModel::stretch(int requested, int procs) const {
  if (procs == requested) return 1.0;
  const double a = requested;
  return speedup(requested, a) / speedup(procs, a);
}

SpeedupModel::Kind parse_speedup(const std::string& text) {
  if (text == "linear") return SpeedupModel::Kind::kLinear;
  if (text == "downey") return SpeedupModel::Kind::kDowney;
  throw UsageError("--speedup: '" + text + "' is not linear or downey");
}

void check_moldable(const MoldableModel& model) {
  if (!(model.min_share > 0 && model.min_share <= 1)) {
    throw UsageError("--moldable-min: '" + csv::exact(model.min_share) +
                     "' is not a share in (0, 1]");
  }
  if (!(model.speedup.sigma >= 0) || !std::isfinite(model.speedup.sigma)) {
    throw UsageError("--downey-sigma: '" + csv::exact(model.speedup.sigma) +
                     "' is not a number >= 0");
  }
}

int min_size_by_rule(int requested, double share) {
  // The small tolerance keeps 0.5 x 32 at 16 despite rounding in share.
  return std::clamp(static_cast<int>(std::ceil(share * requested - 1e-9)), 1, requested);
}

void make_moldable(Request& req, int total, int min_size, double share) {
  req.type = RequestType::kMoldable;
  req.total = total;
  req.sizes.assign(1, total);
  req.clusters.clear();
  req.min_size = min_size > 0 ? std::min(min_size, total) : min_size_by_rule(total, share);
}

int smallest_size(const Request& req) {
  return req.type == RequestType::kMoldable ? req.min_size : req.total;
}

double required_power(const Request& req, int home, const std::vector<double>& speeds) {
  const double speed = home >= 0 && static_cast<size_t>(home) < speeds.size()
                           ? speeds[static_cast<size_t>(home)]
                           : 1.0;
  return req.total * speed;
}

}  // namespace mcb::sim
