#pragma once
/// @file
/// @brief Which processors a running job holds. The placement rules decide how many processors
/// of each cluster a job gets; this component, fed by the job starts and departures, names
/// them: cluster c owns the ids [offset(c), offset(c) + size(c)) in cluster order, and a job
/// takes the lowest idle ids of each cluster it uses.

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace mcb::sim {

/// @brief Closed intervals of processor ids, disjoint, maximal and ascending.
using IntervalSet = std::vector<std::pair<int, int>>;

/// @brief Batsim's canonical text of an interval set: "0-7 32-39", a lone id as "5".
std::string interval_text(const IntervalSet& set);

/// @brief The ids of the clusters' processors and which are busy.
class ProcessorIds {
 public:
  explicit ProcessorIds(const std::vector<int>& sizes);

  /// Takes @p procs[c] idle processors of each cluster c, the lowest ids first.
  /// @throws std::logic_error when a cluster has fewer idle processors (the engine's
  ///         accounting and this one disagree).
  IntervalSet take(std::span<const int> procs);
  /// Returns processors taken before.
  /// @throws std::logic_error when one of them is idle.
  void give_back(const IntervalSet& set);
  /// Idle processors of cluster @p c.
  int idle(int c) const { return idle_[static_cast<size_t>(c)]; }

 private:
  std::vector<int> offset_;  //!< first id of each cluster
  std::vector<int> idle_;
  std::vector<bool> busy_;  //!< by id
};

}  // namespace mcb::sim
