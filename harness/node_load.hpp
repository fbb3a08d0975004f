#pragma once
/// @file
/// @brief --node-load: mcb-nodeload on every host of a run for the length of its measurement
/// (seed 002's non-dedicated clusters), and what each host's generator achieved.

#include "common/node_load.hpp"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <string>
#include <sys/types.h>
#include <vector>

namespace mcb::harness {

/// @brief The node load of one run. The lowest rank of each host starts mcb-nodeload (from the
/// program's own folder) with the network load aimed at the next host of the run; the
/// generator ends with its rank's process at the latest.
class NodeLoadOnHosts {
 public:
  /// @brief @p hosts holds each rank's host (the record's env.hosts). A generator that cannot
  /// start is reported by check_started(), so that every rank keeps to the same sequence.
  NodeLoadOnHosts(MPI_Comm world, const NodeLoadSpec& spec, const std::vector<std::string>& hosts);
  ~NodeLoadOnHosts();
  NodeLoadOnHosts(const NodeLoadOnHosts&) = delete;
  NodeLoadOnHosts& operator=(const NodeLoadOnHosts&) = delete;

  /// @brief Waits until this rank's generator runs its load; throws std::runtime_error when it
  /// could not start (run it under collective_try before measuring).
  void check_started();
  /// @brief Ends this rank's generator and reads its summary (run it under collective_try).
  /// @throws std::runtime_error when the generator failed.
  void end();
  /// @brief Collective, after end(): the record's env.node_load on rank 0 (the spec and one
  /// summary per host).
  nlohmann::json record() const;

 private:
  MPI_Comm world_;
  NodeLoadSpec spec_;
  pid_t child_ = -1;
  std::string summary_;
  std::string ready_;
  std::string start_failure_;
  nlohmann::json summary_json_;  //!< this host's summary; null on the other ranks
};

}  // namespace mcb::harness
