#pragma once
/// @file
/// @brief [coalloc]: the co-allocating executor's settings (seed 004, section 2): the batch
/// systems (a systems file, jobscripts/queue.hpp), the system of each cluster, duplicates and
/// their ranking, the synchronization of early allocations, the co-allocation timeout.

#include "jobscripts/queue.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mcb::campaign {

namespace spec_detail {
class SpecReader;
}

/// @brief How the systems for a component's duplicates are chosen (seed 004, section 3).
enum class Ranking { random, qlen, est_qt };
/// @brief What an allocation that starts before its partners does (seed 004, section 2.1).
enum class Synchronization { stop_and_wait, resubmission, hibernation };
/// @brief When a component's ranks start: as soon as its own allocation is active (they wait
/// for their peers in the join's rendezvous), or when every component is active (the go).
enum class Launch { at_start, at_go };

std::string to_string(Ranking ranking);
std::string to_string(Synchronization sync);
std::string to_string(Launch launch);

struct CoallocSettings {
  std::string systems_file;           //!< absolute; one [section] per batch system
  std::vector<QueueConfig> systems;   //!< as read from it
  std::vector<std::string> clusters;  //!< system of cluster 0, 1, ... (cluster-map order)
  int duplicates = 0;                 //!< d: copies of each component on other systems
  Ranking ranking = Ranking::random;
  Synchronization synchronization = Synchronization::stop_and_wait;
  /// at-start needs stop-and-wait: an allocation given back early would leave its ranks'
  /// announcement in the rendezvous. Default: at-start with stop-and-wait, else at-go.
  Launch launch = Launch::at_start;
  double timeout = 600;      //!< co-allocation timeout: first submission to joint start (s)
  std::uint64_t seed = 1;    //!< the Random ranking's and the arrivals' draws
  int in_flight = 1;         //!< co-allocation requests in flight at once
  double arrival = 0;        //!< mean s between Poisson arrivals (0: as in-flight allows)
  double poll = 0.2;         //!< seconds between looks at the pilots and queues
  double join_timeout = 60;  //!< MCB_JOIN_TIMEOUT of the components (s)
  /// The launcher in each allocation: mpirun with every rank its own child (docs/join.md).
  std::vector<std::string> launcher{"mpirun", "--mca", "ras", "^slurm", "--bind-to", "none"};
  std::string np_flag = "-np";
  std::string ompi_server = "ompi-server";  //!< the rendezvous of the join

  const QueueConfig& system(const std::string& name) const;
};

/// @brief The keys of [coalloc], each allowed once (for the spec's table of known keys).
const std::vector<std::string>& coalloc_keys();

/// @brief Reads [coalloc]; with @p required (executor = coalloc), checks that systems and
/// clusters are there, every cluster names a system of the file and duplicates fit.
/// @throws mcb::UsageError "<spec>:<line>: <key>: ..." or the systems file's own "<file>:<line>".
void read_coalloc_settings(const spec_detail::SpecReader& reader, const std::string& dir,
                           bool required, CoallocSettings& out);

}  // namespace mcb::campaign
