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
    if (!distinct) {
      int best = -1;
      for (size_t c = 0; c < free.size(); ++c) {
        if (taken[c] == 0 || free[c] < size) continue;
        if (best < 0 || free[c] > free[static_cast<size_t>(best)]) best = static_cast<int>(c);
      }
      if (best >= 0) return best;
    }
    return most_free(free, taken, distinct, size);
  }

  bool place_flexible(const Request& req, std::span<const int> avail,
                      std::span<int> out) const override {
    const int clusters = static_cast<int>(avail.size());
    const FlexLimits lim = flex_limits(req, clusters);
    int order_buf[kMaxClusters];
    std::span<int> order(order_buf, avail.size());
    order_by_free(avail, order);
    for (int k = 1; k <= clusters && k < 64; ++k) {
      if ((lim.counts >> k & 1) && fill_in_order(req.total, k, lim, order, avail, out)) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<PlacementRule> make_flexible_cluster_minimization() {
  return std::make_unique<FlexibleClusterMinimization>();
}

}  // namespace mcb::sim
