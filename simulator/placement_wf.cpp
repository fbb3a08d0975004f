/// @file
/// @brief Worst Fit (the DAS-2 paper's, 001 III.A): each component, in decreasing size, goes
/// to the cluster with the most idle processors, as long as that cluster can hold it.
/// Flexible requests are water-filled: among the allowed numbers of components k, the clusters
/// with the most idle processors are brought down towards one level (each component at least
/// the minimum, extra processors one at a time to the cluster with the most left, ties to the
/// lower-numbered cluster), and the k kept is the one whose idle counts afterwards, sorted, are
/// lexicographically largest -- the most balanced system (ties: fewer components).
#include "simulator/placement.hpp"

#include <algorithm>
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
    return worst_fit_cluster(size, free, taken, distinct);
  }

  bool place_flexible(const Request& req, const FlexLimits& lim, std::span<const int> avail,
                      std::span<int> out) const override {
    const ClusterOrder order = order_by_free(avail);
    int trial_buf[kMaxClusters];
    std::span<int> trial(trial_buf, avail.size());
    bool found = false;
    std::vector<int> best, left(avail.size());
    for (int k = 1; k <= lim.most; ++k) {
      if (!lim.allows(k) || !water_fill(req.total, k, lim, order.view(), avail, trial)) continue;
      for (size_t c = 0; c < avail.size(); ++c) left[c] = avail[c] - trial[c];
      std::sort(left.begin(), left.end());
      if (!found || left > best) {
        std::copy(trial.begin(), trial.end(), out.begin());
        best = left;
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
        if (best < 0 ||
            avail[c] - out[c] > avail[static_cast<size_t>(best)] - out[static_cast<size_t>(best)]) {
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

int placement_detail::worst_fit_cluster(int size, std::span<const int> free,
                                        std::span<const int> taken, bool distinct) {
  return best_cluster(free, taken, distinct, size,
                      [&](size_t c, size_t kept) { return free[c] > free[kept]; });
}

std::unique_ptr<PlacementRule> make_worst_fit() { return std::make_unique<WorstFit>(); }

}  // namespace mcb::sim
