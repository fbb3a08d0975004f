/// @file
/// @brief Flexible Cluster Minimization (001 III.B): clusters in decreasing order of idle
/// processors; each in turn gets a component as large as its idle processors until the job's
/// total is met, so the job uses as few clusters as possible. Among the allowed numbers of
/// components the smallest that fits is taken. Components of non-fixed requests go preferably
/// to clusters the job already uses; unordered requests (distinct clusters) are placed as by
/// Worst Fit.
#include "simulator/placement.hpp"

namespace mcb::sim {
namespace {

using namespace placement_detail;

class FlexibleClusterMinimization final : public PlacementRule {
 public:
  std::string_view name() const override { return "fcm"; }

 protected:
  int choose(int size, std::span<const int> free, std::span<const int> taken,
             bool distinct) const override {
    // Clusters the job already uses first (none with distinct), then the most free.
    return best_cluster(free, taken, distinct, size, [&](size_t c, size_t kept) {
      if ((taken[c] > 0) != (taken[kept] > 0)) return taken[c] > 0;
      return free[c] > free[kept];
    });
  }

  bool place_flexible(const Request& req, const FlexLimits& lim, std::span<const int> avail,
                      std::span<int> out) const override {
    return fill_fewest(req.total, lim, order_by_free(avail).view(), avail, out);
  }
};

}  // namespace

std::unique_ptr<PlacementRule> make_flexible_cluster_minimization() {
  return std::make_unique<FlexibleClusterMinimization>();
}

}  // namespace mcb::sim
