/// @file
/// @brief Best Fit: each component, in decreasing size, goes to the cluster with the fewest
/// idle processors that can still hold it. Flexible requests: with the smallest allowed number
/// of components k that fits, the k-1 clusters with the most idle processors are filled and the
/// last component goes to the tightest remaining cluster that holds it (k = 1: the tightest
/// cluster that holds the whole job).
#include "simulator/placement.hpp"

#include <algorithm>

namespace mcb::sim {
namespace {

using namespace placement_detail;

class BestFit final : public PlacementRule {
 public:
  std::string_view name() const override { return "bf"; }

 protected:
  int choose(int size, std::span<const int> free, std::span<const int> taken,
             bool distinct) const override {
    return best_cluster(free, taken, distinct, size,
                        [&](size_t c, size_t kept) { return free[c] < free[kept]; });
  }

  bool place_flexible(const Request& req, const FlexLimits& lim, std::span<const int> avail,
                      std::span<int> out) const override {
    const ClusterOrder order = order_by_free(avail);
    for (int k = 1; k <= lim.most; ++k) {
      if (!lim.allows(k)) continue;
      std::fill(out.begin(), out.end(), 0);
      int remaining = req.total;
      int placed = 0;
      for (int c : order.view()) {
        if (placed == k - 1) break;
        const int cap = std::min(avail[static_cast<size_t>(c)], lim.cap);
        if (cap < lim.lo) break;
        const int take = std::min(cap, remaining - (k - 1 - placed) * lim.lo);
        if (take < lim.lo) break;
        out[static_cast<size_t>(c)] = take;
        remaining -= take;
        ++placed;
      }
      if (placed != k - 1 || remaining < lim.lo || remaining > lim.cap) continue;
      const int last = best_cluster(avail, out, true, remaining,
                                    [&](size_t c, size_t kept) { return avail[c] < avail[kept]; });
      if (last < 0) continue;
      out[static_cast<size_t>(last)] = remaining;
      return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<PlacementRule> make_best_fit() { return std::make_unique<BestFit>(); }

}  // namespace mcb::sim
