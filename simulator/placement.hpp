#pragma once
/// @file
/// @brief Placement rules: where a request's components go, given the processors available
/// in each cluster. One file per rule: Worst Fit (the DAS-2 paper's), Flexible Cluster
/// Minimization (001 III.B), First Fit and Best Fit.

#include "simulator/site_selection.hpp"
#include "simulator/types.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcb::matching {
struct Platform;
}

namespace mcb::sim {

class ModelPricing;
struct JobModels;

/// @brief What a rule needs beyond its name: the platform of --platform, with which seed 002's
/// model prices every rule's placements, and link-aware's matcher and the job model.
struct PlacementSettings {
  std::shared_ptr<const matching::Platform> platform;
  std::string matcher = "optimal";  //!< optimal | non-saturated | first-feasible
  double pnbw = 0.25;               //!< per-node bandwidth of every job, platform units
  double comm_share = 0.5;          //!< T^c / (T^p + T^c) of every job
  /// Each job's own PNBW and T^c share instead (--job-model), or null.
  std::shared_ptr<const JobModels> job_models;
  double time_limit = 60.0;  //!< seconds per match
  /// How one site is chosen for one-component and moldable requests (every rule).
  SiteSelection site_selection = SiteSelection::kIdle;
};

namespace placement_detail {

/// Limits of a flexible request on a system: smallest and largest component, and the
/// numbers of components (bit k) it may have, none above @ref most.
struct FlexLimits {
  int lo = 1;
  int cap = 0;
  int most = 0;
  std::uint64_t counts = 0;
  bool allows(int k) const { return k < 64 && (counts >> k & 1); }
};

}  // namespace placement_detail

/// @brief A placement rule.
class PlacementRule {
 public:
  virtual ~PlacementRule() = default;
  virtual std::string_view name() const = 0;

  /// @brief Places @p req on clusters with @p avail[c] processors available (0 where the job
  /// may not go). On success writes the processors taken per cluster into @p out (one entry
  /// per cluster) and returns true; otherwise returns false and @p out is unspecified.
  /// Fixed requests go where they say; unordered requests put their components, in decreasing
  /// size, on distinct clusters; non-fixed ones may put several on one cluster; flexible ones
  /// are split by the rule within their limits.
  bool place(const Request& req, std::span<const int> avail, std::span<int> out) const;

  /// @brief A job starts on @p alloc. With --platform, seed 002's model prices the placement
  /// (model_pricing.hpp): returns the factor on the job's single-cluster service time at
  /// speed 1. Without it, 0: the service model prices the placement.
  double on_start(std::uint32_t job, const Request& req, std::span<const int> alloc);
  /// @brief The job started by on_start departs.
  void on_depart(std::uint32_t job);
  /// @brief The largest factor on_start can return on this platform (0 without --platform),
  /// for the plans the backfilling disciplines make at arrival.
  double price_bound() const;
  /// @brief The same for a job of @p req (its application and size, under --job-model).
  double price_bound(const Request& req) const;
  /// @brief Prices this rule's placements by seed 002's model (make_placement does it when
  /// --platform is given).
  void price_with(std::shared_ptr<ModelPricing> pricing) { pricing_ = std::move(pricing); }

  /// @brief How one site is chosen (site_selection.hpp), and the clusters' speeds it weighs.
  void set_site_selection(SiteSelection selection) { selection_ = selection; }
  void set_speeds(std::span<const double> speeds) { speeds_.assign(speeds.begin(), speeds.end()); }

 protected:
  /// Cluster for one component of @p size given the processors still free (@p free) and
  /// those the job already has (@p taken); with @p distinct, clusters in use are not eligible.
  /// Returns -1 when none fits.
  virtual int choose(int size, std::span<const int> free, std::span<const int> taken,
                     bool distinct) const = 0;
  /// Splits a flexible request within @p lim (see the file of each rule).
  virtual bool place_flexible(const Request& req, const placement_detail::FlexLimits& lim,
                              std::span<const int> avail, std::span<int> out) const = 0;
  /// The model pricing this rule's placements, or null without --platform.
  const ModelPricing* pricing() const { return pricing_.get(); }

 private:
  std::shared_ptr<ModelPricing> pricing_;
  SiteSelection selection_ = SiteSelection::kIdle;
  std::vector<double> speeds_;  //!< empty: every cluster at speed 1
};

/// @brief The rule named wf, fcm, ff, bf or link-aware (which needs @p settings.platform),
/// priced by seed 002's model when @p settings.platform is set.
/// @throws std::invalid_argument otherwise.
std::unique_ptr<PlacementRule> make_placement(std::string_view name,
                                              const PlacementSettings& settings = {});

namespace placement_detail {

FlexLimits flex_limits(const Request& req, int clusters);

/// @brief The cluster for a component of @p size among those that can hold it and, with
/// @p distinct, that the job does not use yet: scanning in index order, a cluster replaces
/// the one kept so far when @p better(c, kept) holds. -1 when none can hold it.
template <class Better>
int best_cluster(std::span<const int> free, std::span<const int> taken, bool distinct, int size,
                 Better better) {
  int best = -1;
  for (std::size_t c = 0; c < free.size(); ++c) {
    if ((distinct && taken[c] > 0) || free[c] < size) continue;
    if (best < 0 || better(c, static_cast<std::size_t>(best))) best = static_cast<int>(c);
  }
  return best;
}

/// Worst Fit's cluster for one component: the one with the most free processors that can hold
/// it (ties to the lower index); -1 when none can.
int worst_fit_cluster(int size, std::span<const int> free, std::span<const int> taken,
                      bool distinct);

/// Splits @p n over the first @p k clusters of @p order that can take at least lo, filling
/// each in turn as far as the cap and the components still to come allow. False if they
/// cannot hold n.
bool fill_in_order(int n, int k, const FlexLimits& lim, std::span<const int> order,
                   std::span<const int> avail, std::span<int> out);

/// fill_in_order with the smallest allowed number of components that holds @p n.
bool fill_fewest(int n, const FlexLimits& lim, std::span<const int> order,
                 std::span<const int> avail, std::span<int> out);

/// Cluster indices in an order a rule visits them (a fixed buffer: placement runs at every
/// attempt to start a job).
struct ClusterOrder {
  int index[kMaxClusters];
  std::size_t count = 0;
  std::span<const int> view() const { return {index, count}; }
};
/// By decreasing available count, ties to the lower index.
ClusterOrder order_by_free(std::span<const int> avail);
/// In index order.
ClusterOrder order_by_index(std::size_t clusters);

}  // namespace placement_detail
}  // namespace mcb::sim
