#pragma once
/// @file
/// @brief Options every measurement application shares, with one spelling everywhere:
/// clusters and the cluster map, where records go, seed, run identity, system label, counters,
/// and the wide area between clusters (link emulation, gateway relay).

#include "common/node_load.hpp"
#include "common/option_types.hpp"
#include "harness/cluster_map.hpp"

#include <mpi.h>
#include <boost/program_options.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mcb::harness {

/// @brief Shared options of mcb-poisson, mcb-ensflow and the link calibration.
struct RunOptions {
  int clusters = 1;                   //!< --clusters: clusters the ranks are split over
  bool clusters_given = false;        //!< --clusters was given (not its default), from the parse
  std::string cluster_map;            //!< --cluster-map: FILE, or env:VAR (each rank's label)
  std::string output = "runs.jsonl";  //!< --output: JSON Lines file records are appended to
  std::int64_t seed = 1;              //!< --seed
  std::string run_id;                 //!< --run-id: stable id (campaigns set it); default generated
  std::string campaign;               //!< --campaign: campaign name, recorded
  int repetition = 1;                 //!< --repetition: repetition number, recorded
  std::string system;                 //!< --system: label for calibration (default "local")
  std::string counters = "PAPI_TOT_INS,PAPI_TOT_CYC";  //!< --counters: PAPI events, "" for none
  bool quiet = false;                                  //!< --quiet: only the verdict line
  std::optional<cli::Duration> wan_latency;  //!< --wan-latency: emulated link latency ("1ms")
  std::optional<cli::Rate> wan_bandwidth;    //!< --wan-bandwidth: its bandwidth ("100Mbit/s")
  std::string platform;  //!< --platform: file of per-cluster-pair link parameters
  bool relay = false;    //!< --relay: inter-cluster messages through gateway ranks
  NodeLoadSpec node_load;  //!< --node-load: background load on every host while measuring
};

/// @brief Whether the options ask for wide-area link emulation.
inline bool emulates_wan(const RunOptions& o) {
  return o.wan_latency || o.wan_bandwidth || !o.platform.empty();
}

/// @brief Adds the shared options to @p desc, bound to @p options.
void add_run_options(boost::program_options::options_description& desc, RunOptions& options);

/// @brief Checks shared values that types cannot (positive counts, writable --output on rank 0,
/// link units and which wide-area options go together) and notes which were given (read from
/// @p vm: a default is never mistaken for a choice). Call inside collective_check.
/// @throws mcb::UsageError (cli::ValueError for a value wrong on its own).
void check_run_options(RunOptions& options, const boost::program_options::variables_map& vm,
                       bool is_root);

/// @brief The rank-to-cluster map: from --cluster-map when given, else @p default_map(clusters).
/// Collective (env:VAR gathers every rank's label). @throws mcb::UsageError for bad maps.
ClusterMap resolve_cluster_map(MPI_Comm comm, const RunOptions& options,
                               const std::function<ClusterMap(int clusters)>& default_map);

/// @brief The clusters of a run on @p ranks processes, without MPI (for --check): the map of a
/// --cluster-map file, else @p default_map(clusters); with --cluster-map env:VAR, whose labels
/// only the run sees, --clusters. @throws mcb::UsageError as resolve_cluster_map does.
int check_clusters(const RunOptions& options, int ranks,
                   const std::function<ClusterMap(int clusters)>& default_map);

/// @brief "--output none" writes no record.
inline bool writes_records(const RunOptions& o) { return o.output != "none"; }

/// @brief A run id when none was given: "<app>-<UTC yyyymmddThhmmss>-<pid of rank 0>".
std::string default_run_id(const std::string& app);

}  // namespace mcb::harness
