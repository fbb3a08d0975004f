/// @file
/// @brief First Fit: each component, in decreasing size, goes to the lowest-numbered cluster
/// that can hold it. Flexible requests fill clusters in index order, using the smallest
/// allowed number of components that fits.
#include "simulator/placement.hpp"

namespace mcb::sim {
namespace {

using namespace placement_detail;

class FirstFit final : public PlacementRule {
 public:
  std::string_view name() const override { return "ff"; }

 protected:
  int choose(int size, std::span<const int> free, std::span<const int> taken,
             bool distinct) const override {
    // The first that can hold it: no later cluster is better.
    return best_cluster(free, taken, distinct, size, [](size_t, size_t) { return false; });
  }

  bool place_flexible(const Request& req, const FlexLimits& lim, std::span<const int> avail,
                      std::span<int> out) const override {
    return fill_fewest(req.total, lim, order_by_index(avail.size()).view(), avail, out);
  }
};

}  // namespace

std::unique_ptr<PlacementRule> make_first_fit() { return std::make_unique<FirstFit>(); }

}  // namespace mcb::sim
