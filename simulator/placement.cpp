#include "simulator/placement.hpp"

#include "simulator/model_pricing.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace mcb::sim {

std::unique_ptr<PlacementRule> make_worst_fit();
std::unique_ptr<PlacementRule> make_flexible_cluster_minimization();
std::unique_ptr<PlacementRule> make_first_fit();
std::unique_ptr<PlacementRule> make_best_fit();
std::unique_ptr<PlacementRule> make_link_aware(const PlacementSettings& settings);

namespace {

std::unique_ptr<PlacementRule> make_rule(std::string_view name, const PlacementSettings& settings) {
  if (name == "wf") return make_worst_fit();
  if (name == "fcm") return make_flexible_cluster_minimization();
  if (name == "ff") return make_first_fit();
  if (name == "bf") return make_best_fit();
  if (name == "link-aware") return make_link_aware(settings);
  throw std::invalid_argument("'" + std::string(name) +
                              "' is not a placement (wf, fcm, ff, bf, link-aware)");
}

}  // namespace

std::unique_ptr<PlacementRule> make_placement(std::string_view name,
                                              const PlacementSettings& settings) {
  auto rule = make_rule(name, settings);
  rule->set_site_selection(settings.site_selection);
  if (settings.platform) {
    // Only link-aware with a non-saturated matcher keeps every link unsaturated.
    const bool unsaturated = name == "link-aware" && settings.matcher != "optimal";
    rule->price_with(std::make_shared<ModelPricing>(
        settings.platform, settings.pnbw, settings.comm_share, unsaturated, settings.job_models));
  }
  return rule;
}

double PlacementRule::on_start(std::uint32_t job, const Request& req, std::span<const int> alloc) {
  return pricing_ ? pricing_->start(job, req.app, alloc) : 0.0;
}

void PlacementRule::on_depart(std::uint32_t job) {
  if (pricing_) pricing_->depart(job);
}

double PlacementRule::price_bound() const { return pricing_ ? pricing_->bound() : 0.0; }

double PlacementRule::price_bound(const Request& req) const {
  return pricing_ ? pricing_->bound(req.app, req.total) : 0.0;
}

bool PlacementRule::place(const Request& req, std::span<const int> avail,
                          std::span<int> out) const {
  const int clusters = static_cast<int>(avail.size());
  if (clusters == 1 && req.sizes.size() == 1 && selection_ != SiteSelection::kPower &&
      (req.type == RequestType::kUnordered || req.type == RequestType::kNonFixed)) {
    // One component and one cluster: every rule chooses a cluster that can hold it, so this
    // one when it can (the common case, which a backfilling pass tries for many jobs).
    out[0] = req.sizes.front();
    return avail[0] >= out[0];
  }
  std::fill(out.begin(), out.end(), 0);
  switch (req.type) {
    case RequestType::kFixed:
      for (size_t i = 0; i < req.sizes.size(); ++i) {
        const int c = req.clusters[i];
        if (c < 0 || c >= clusters) return false;
        out[static_cast<size_t>(c)] += req.sizes[i];
        if (out[static_cast<size_t>(c)] > avail[static_cast<size_t>(c)]) return false;
      }
      return true;
    case RequestType::kUnordered:
    case RequestType::kNonFixed: {
      const bool distinct = req.type == RequestType::kUnordered;
      if (distinct && static_cast<int>(req.sizes.size()) > clusters) return false;
      if (selection_ == SiteSelection::kPower && req.sizes.size() == 1) {
        const int c = site_by_power(req.sizes.front(), avail, out, false, speeds_);
        if (c < 0) return false;
        out[static_cast<size_t>(c)] = req.sizes.front();
        return true;
      }
      int free_buf[kMaxClusters];
      std::span<int> free(free_buf, avail.size());
      std::copy(avail.begin(), avail.end(), free.begin());
      for (int size : req.sizes) {
        const int c = choose(size, free, out, distinct);
        if (c < 0) return false;
        free[static_cast<size_t>(c)] -= size;
        out[static_cast<size_t>(c)] += size;
      }
      return true;
    }
    case RequestType::kFlexible:
      return place_flexible(req, placement_detail::flex_limits(req, clusters), avail, out);
    case RequestType::kMoldable:
      return place_moldable(req, avail, speeds_, selection_, out);
  }
  return false;
}

namespace placement_detail {

FlexLimits flex_limits(const Request& req, int clusters) {
  FlexLimits lim;
  lim.lo = std::max(1, req.min_component);
  lim.cap = req.max_component > 0 ? req.max_component : req.total;
  lim.most = std::min(clusters, req.total / lim.lo);
  if (req.max_components > 0) lim.most = std::min(lim.most, req.max_components);
  for (int k = 1; k <= lim.most && k < 64; ++k) {
    if ((req.allowed_counts >> k & 1) && static_cast<long long>(k) * lim.cap >= req.total) {
      lim.counts |= std::uint64_t{1} << k;
    }
  }
  return lim;
}

bool fill_in_order(int n, int k, const FlexLimits& lim, std::span<const int> order,
                   std::span<const int> avail, std::span<int> out) {
  std::fill(out.begin(), out.end(), 0);
  int remaining = n;
  int placed = 0;
  for (int c : order) {
    if (placed == k) break;
    const int cap = std::min(avail[static_cast<size_t>(c)], lim.cap);
    if (cap < lim.lo) continue;
    const int rest = k - 1 - placed;
    const int take = std::min(cap, remaining - rest * lim.lo);
    if (take < lim.lo) return false;
    out[static_cast<size_t>(c)] = take;
    remaining -= take;
    ++placed;
  }
  return placed == k && remaining == 0;
}

bool fill_fewest(int n, const FlexLimits& lim, std::span<const int> order,
                 std::span<const int> avail, std::span<int> out) {
  for (int k = 1; k <= lim.most; ++k) {
    if (lim.allows(k) && fill_in_order(n, k, lim, order, avail, out)) return true;
  }
  return false;
}

ClusterOrder order_by_index(std::size_t clusters) {
  ClusterOrder order;
  order.count = clusters;
  std::iota(order.index, order.index + clusters, 0);
  return order;
}

ClusterOrder order_by_free(std::span<const int> avail) {
  ClusterOrder order = order_by_index(avail.size());
  std::stable_sort(order.index, order.index + order.count, [&](int a, int b) {
    return avail[static_cast<size_t>(a)] > avail[static_cast<size_t>(b)];
  });
  return order;
}

}  // namespace placement_detail
}  // namespace mcb::sim
