/// @file
/// @brief First Fit: each component, in decreasing size, goes to the lowest-numbered cluster
/// that can hold it. Flexible requests fill clusters in index order, using the smallest
/// allowed number of components that fits.
#include "simulator/placement.hpp"

#include <numeric>

namespace mcb::sim {
namespace {

using namespace placement_detail;

class FirstFit final : public PlacementRule {
 public:
  std::string_view name() const override { return "ff"; }

 protected:
  int choose(int size, std::span<const int> free, std::span<const int> taken,
             bool distinct) const override {
    for (size_t c = 0; c < free.size(); ++c) {
      if (distinct && taken[c] > 0) continue;
      if (free[c] >= size) return static_cast<int>(c);
    }
    return -1;
  }

  bool place_flexible(const Request& req, std::span<const int> avail,
                      std::span<int> out) const override {
    const int clusters = static_cast<int>(avail.size());
    const FlexLimits lim = flex_limits(req, clusters);
    int order_buf[kMaxClusters];
    std::span<int> order(order_buf, avail.size());
    std::iota(order.begin(), order.end(), 0);
    for (int k = 1; k <= clusters && k < 64; ++k) {
      if ((lim.counts >> k & 1) && fill_in_order(req.total, k, lim, order, avail, out)) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<PlacementRule> make_first_fit() { return std::make_unique<FirstFit>(); }

}  // namespace mcb::sim
