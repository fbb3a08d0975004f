#pragma once
/// @file
/// @brief One MPI job from several launches: the components of a co-allocated run, each started
/// by its own mpirun inside its own allocation, join into one communicator (docs/join.md).
///
/// A launcher asks for the join through the environment of every rank (the programs' command
/// lines stay those of a heterogeneous-job run): MCB_JOIN names the join, MCB_JOIN_COMPONENT is
/// this launch's component k, MCB_JOIN_COMPONENTS the count C, MCB_JOIN_RANKS the ranks of all
/// components together, MCB_JOIN_TIMEOUT how long to wait for the peers (default 60 s). Every
/// mpirun is started with `--ompi-server file:URI` of one ompi-server, whose name service carries
/// the rendezvous. Component 0 accepts component 1, the merged group accepts component 2, and so
/// on, so the ranks come out as in a heterogeneous job: component 0's first, then component 1's.

#include "harness/cluster_map.hpp"
#include "harness/run_options.hpp"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcb::harness {

/// @brief What a launcher asks for: this component of a join of several.
struct JoinSpec {
  std::string name;     //!< MCB_JOIN: unique per join in flight, [A-Za-z0-9._-]
  int component = 0;    //!< MCB_JOIN_COMPONENT: k, 0-based
  int components = 2;   //!< MCB_JOIN_COMPONENTS: C >= 2
  int ranks = 0;        //!< MCB_JOIN_RANKS: ranks of all components together
  double timeout = 60;  //!< MCB_JOIN_TIMEOUT: seconds to wait for the peers
  std::string timeout_text = "60s";
};

/// @brief The join asked for by this process's environment, or nothing when MCB_JOIN is unset.
/// @throws mcb::UsageError naming the variable and its value (the same on every rank).
std::optional<JoinSpec> join_spec_from_environment();

/// @brief The communicator a program runs on: the launch's own MPI_COMM_WORLD, or the
/// components joined into one. Owns the communicators it made and disconnects them on
/// destruction (before MPI_Finalize).
class JoinedWorld {
 public:
  /// @brief Collective over @p world. Without @p spec, comm() is @p world. With one, joins the
  /// components; when a peer does not come within the timeout, failure() tells why and comm()
  /// is this component's own world. Joined ranks that do not add up to MCB_JOIN_RANKS are a
  /// failure too, on the joined communicator.
  JoinedWorld(MPI_Comm world, std::optional<JoinSpec> spec);
  ~JoinedWorld();
  JoinedWorld(const JoinedWorld&) = delete;
  JoinedWorld& operator=(const JoinedWorld&) = delete;

  MPI_Comm comm() const { return comm_; }
  bool joining() const { return spec_.has_value(); }
  const JoinSpec& spec() const { return *spec_; }
  /// @brief Why the join failed; "" when it did not (or none was asked for).
  const std::string& failure() const { return failure_; }
  /// @brief Component k's ranks are cluster k (only when joined).
  const ClusterMap& components_map() const { return *map_; }
  /// @brief The record's env.join block: the name, and per component its ranks, the time its
  /// ranks started to join (UTC seconds) and how long they took; null without a join. On a
  /// failed join only this component is listed.
  const nlohmann::json& record() const { return record_; }

 private:
  void join(MPI_Comm world);
  void accept_from(int component, double deadline);
  void connect_as_component(MPI_Comm world, double deadline);
  void record_components(double started_utc, double started);

  std::optional<JoinSpec> spec_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<MPI_Comm> owned_;  // intercommunicators and merged steps, disconnected at the end
  std::string failure_;
  std::optional<ClusterMap> map_;
  nlohmann::json record_;
};

/// @brief The cluster map of a joined run on @p comm: component k is cluster k. A --cluster-map
/// (e.g. env:MCB_CLUSTER, which names the clusters) must split the ranks the same way, and
/// --clusters, when given, must count the components. Collective. @throws mcb::UsageError
/// naming the option.
ClusterMap joined_cluster_map(MPI_Comm comm, const RunOptions& options, const JoinedWorld& joined);

}  // namespace mcb::harness
