#pragma once
/// @file
/// @brief The multicluster: C clusters of given sizes and processor speeds, and how many
/// processors of each are idle.

#include "simulator/types.hpp"

#include <span>
#include <string>
#include <vector>

namespace mcb::sim {

/// @brief Sizes and speeds of the clusters (speed 1 is the speed the service times refer to).
struct MachineSpec {
  std::vector<int> sizes;
  std::vector<double> speeds;  //!< same length as sizes
  /// Relative arrival rate of jobs by home cluster (001 VI); empty: in proportion to size.
  std::vector<double> home_rates;

  int clusters() const { return static_cast<int>(sizes.size()); }
  /// Every cluster, as a mask of the clusters a job may use.
  ClusterMask all() const { return kAllClusters >> (64 - clusters()); }
  int total() const;
  int largest() const;
  int smallest() const;
  /// "4x32" when all equal, else "32,32,16".
  std::string describe() const;
};

/// @brief Parses "4x32" or "32,32,32,32". @throws UsageError naming --clusters.
MachineSpec parse_clusters(const std::string& text);
/// @brief Parses "1,1,0.5,1" (one per cluster) or one value for all. @throws UsageError.
std::vector<double> parse_speeds(const std::string& text, int clusters);

/// @brief The clusters' idle processors during a run.
class Machine {
 public:
  explicit Machine(MachineSpec spec);

  const MachineSpec& spec() const { return spec_; }
  int clusters() const { return spec_.clusters(); }
  int idle(int c) const { return idle_[static_cast<size_t>(c)]; }
  std::span<const int> idle() const { return idle_; }
  int busy() const { return busy_; }

  /// Takes @p procs[c] processors of each cluster c (they must be idle).
  void allocate(std::span<const int> procs);
  /// Returns them.
  void release(std::span<const int> procs);
  /// The slowest speed among the clusters with procs[c] > 0.
  double slowest(std::span<const int> procs) const;
  /// The slowest speed among the clusters in @p mask.
  double slowest(ClusterMask mask) const;

 private:
  MachineSpec spec_;
  std::vector<int> idle_;
  int busy_ = 0;
};

}  // namespace mcb::sim
