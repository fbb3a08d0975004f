#pragma once
/// @file
/// @brief Job mixes and co-allocation rules (DAS-2 paper section 5.1). A job picks its
/// application by weight, its total size uniformly (or by weight) from the application's sizes,
/// and one split uniformly from those the rule allows: equal components, at most one per
/// cluster, fitting the clusters; [no] one component; [co] any; [rco] components of at most
/// half a cluster; [fco] as [rco] and at most two components.

#include "simulator/machine.hpp"
#include "simulator/types.hpp"

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcb::sim {

/// @brief A co-allocation rule.
enum class Rule { kNo, kCo, kRco, kFco };
/// @throws std::invalid_argument for an unknown name.
Rule parse_rule(std::string_view name);
std::string_view to_string(Rule rule);

/// @brief Limits a rule puts on components (0: none).
struct RuleLimits {
  int max_components = 0;
  int max_component = 0;
};
/// @param component_limit the largest component [rco] and [fco] allow
RuleLimits rule_limits(Rule rule, int component_limit);

/// @brief A user's bounds on flexible requests (seed 001 section II: "a lower bound on the
/// component size or an upper bound on the number of components"), --flex-min-component and
/// --flex-max-components.
struct FlexBounds {
  int min_component = 1;   //!< a job smaller than it stays whole
  int max_components = 0;  //!< 0: none
};

/// @brief Bounds flexible request @p r (its total set) by the tighter of the rule's limits,
/// the user's and the job's own (a job list's columns; 0: none).
void bound_flexible(Request& r, const RuleLimits& rule, const FlexBounds& user,
                    const RuleLimits& own = {}, int own_min_component = 1);

/// @brief One application of a mix.
struct AppMix {
  std::string name;
  double weight = 1;
  std::vector<int> sizes;
  std::vector<double> size_weights;          //!< same length as sizes
  std::vector<std::pair<int, int>> exclude;  //!< (total size, components) never generated
};

/// @brief A job mix.
struct JobMix {
  std::string name;  //!< built-in name or file
  std::vector<AppMix> apps;
};

/// @brief The built-in mixes: "poisson" (8, 16, 32; never 8 in 4 components), "ensflow"
/// (12, 15, 20, 30) and "mixed" (the two, 50/50) -- or an INI file with one section per
/// application (keys weight, sizes, size_weights, exclude).
/// @throws UsageError naming --workload.
JobMix load_mix(const std::string& name_or_path);

/// @brief n split into k sizes that differ by at most one, in decreasing order, into @p out
/// (a std::vector<int> or Counts).
template <class Sizes>
void near_equal(int n, int k, Sizes& out) {
  out.assign(static_cast<size_t>(k), n / k);
  for (int i = 0; i < n % k; ++i) ++out[static_cast<size_t>(i)];
}

/// @brief Whether components of these sizes fit on distinct clusters of the empty system.
bool fits_distinct(std::span<const int> sizes, const MachineSpec& machine);

/// @brief One (application, total size, components) with its probability; components 0 for
/// flexible requests (the scheduler splits them).
struct MixChoice {
  int app = 0;
  int total = 0;
  int components = 0;
  double probability = 0;
};

/// @brief The distribution of jobs a mix generates under a rule. @throws UsageError when a size
/// has no allowed split.
std::vector<MixChoice> mix_choices(const JobMix& mix, Rule rule, RequestType type,
                                   const MachineSpec& machine, int component_limit);

}  // namespace mcb::sim
