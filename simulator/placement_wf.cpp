/// @file
/// @brief Worst Fit (the DAS-2 paper's, 001 III.A): each component, in decreasing size, goes
/// to the cluster with the most idle processors, as long as that cluster can hold it.
/// Flexible requests are water-filled: the split over the allowed numbers of clusters that
/// leaves the largest smallest number of idle processors in any cluster (ties: fewer clusters).
#include "simulator/placement.hpp"

#include <algorithm>
#include <climits>
#include <vector>

namespace mcb::sim {
namespace {

using namespace placement_detail;

class WorstFit final : public PlacementRule {
 public:
  std::string_view name() const override { return "wf"; }

 protected:
  int choose(int size, std::span<const int> free, std::span<const int> taken,
             bool distinct) const override {
    return most_free(free, taken, distinct, size);
  }

  bool place_flexible(const Request& req, std::span<const int> avail,
                      std::span<int> out) const override {
    const int clusters = static_cast<int>(avail.size());
    const FlexLimits lim = flex_limits(req, clusters);
    int order_buf[kMaxClusters];
    std::span<int> order(order_buf, avail.size());
    order_by_free(avail, order);
    int trial_buf[kMaxClusters];
    std::span<int> trial(trial_buf, avail.size());
    bool found = false;
    int best_floor = INT_MIN;
    for (int k = 1; k <= clusters && k < 64; ++k) {
      if (!(lim.counts >> k & 1)) continue;
      if (!water_fill(req.total, k, lim, order, avail, trial)) continue;
      int floor = INT_MAX;
      for (size_t c = 0; c < avail.size(); ++c) floor = std::min(floor, avail[c] - trial[c]);
      if (!found || floor > best_floor) {
        std::copy(trial.begin(), trial.end(), out.begin());
        best_floor = floor;
        found = true;
      }
    }
    return found;
  }

 private:
  // Gives each of the k clusters with the most available processors lo, then hands out the
  // rest one at a time to the cluster with the most still free (below its cap).
  static bool water_fill(int n, int k, const FlexLimits& lim, std::span<const int> order,
                         std::span<const int> avail, std::span<int> out) {
    std::fill(out.begin(), out.end(), 0);
    if (static_cast<long long>(k) * lim.lo > n) return false;
    int chosen[kMaxClusters];
    int count = 0;
    long long room = 0;
    for (int c : order) {
      if (count == k) break;
      const int cap = std::min(avail[static_cast<size_t>(c)], lim.cap);
      if (cap < lim.lo) return false;  // order is by decreasing availability
      chosen[count++] = c;
      out[static_cast<size_t>(c)] = lim.lo;
      room += cap;
    }
    if (count < k || room < n) return false;
    for (int left = n - k * lim.lo; left > 0; --left) {
      int best = -1;
      for (int i = 0; i < k; ++i) {
        const auto c = static_cast<size_t>(chosen[i]);
        if (out[c] >= std::min(avail[c], lim.cap)) continue;
        if (best < 0 || avail[c] - out[c] > avail[static_cast<size_t>(best)] - out[static_cast<size_t>(best)]) {
          best = chosen[i];
        }
      }
      if (best < 0) return false;
      ++out[static_cast<size_t>(best)];
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<PlacementRule> make_worst_fit() { return std::make_unique<WorstFit>(); }

}  // namespace mcb::sim
