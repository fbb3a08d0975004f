#pragma once
/// @file
/// @brief A campaign spec, read and checked: which application, which of its options to sweep,
/// how many repetitions, which executor and its settings. Layout and meaning of every key:
/// jobscripts/README.md.

#include "common/ini.hpp"
#include "jobscripts/coalloc_spec.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief One application option and the values it takes across the campaign (one value: the
/// same for every run; several: an axis of the sweep).
struct OptionAxis {
  std::string key;  //!< option name without "--", or "ranks"
  std::vector<std::string> values;
  int line = 0;
};

/// @brief What to do with combinations the application cannot run.
enum class OnInvalid { skip, refuse };

/// @brief [local]: mpirun on this machine.
struct LocalSettings {
  std::vector<std::string> launcher{"mpirun"};  //!< launcher command words
  std::string np_flag = "-np";                  //!< flag before the process count
};

/// @brief [smpi]: smpirun on this machine, each run on a simulated platform (docs/smpi.md).
struct SmpiSettings {
  std::string platform;               //!< the platform file (absolute)
  std::vector<std::string> clusters;  //!< zone prefix of cluster 0, 1, ... ("fs0", "c0")
  int per_node = 1;                   //!< ranks placed on one simulated node
  std::string binary;                 //!< the SMPI build of the app (absolute)
  /// smpirun options before the program: the network model that represents the links as the
  /// emulation books them, and a host speed equal to the platform's (docs/smpi.md).
  std::vector<std::string> config{"--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                                  "--cfg=smpi/host-speed:1Gf", "--log=root.thres:warning"};
};

/// @brief What [slurm] and [pbs] share: how runs are launched and grouped into jobscripts.
struct BatchSettings {
  std::string account;                  //!< --account, -A
  std::vector<std::string> directives;  //!< extra #SBATCH / #PBS options
  std::vector<std::string> launcher;    //!< launcher command words
  int group = 1;                        //!< runs per jobscript
  std::string setup;                    //!< shell file sourced before the runs (absolute)
  double linger = 30;                   //!< seconds a launcher may outlive its run's record
};

/// @brief [slurm]: one jobscript per run (or group), heterogeneous jobs for co-allocated runs.
struct SlurmSettings : BatchSettings {
  SlurmSettings() { launcher = {"srun", "--mpi=pmix"}; }
  std::vector<std::string> partitions;  //!< partition of cluster 0, 1, ...
  int tasks_per_node = 0;               //!< --ntasks-per-node per component; 0: Slurm decides
  std::string time;                     //!< --time; empty: from the runs' timeouts
  std::string qos;                      //!< --qos
};

/// @brief [pbs]: one jobscript per run (or group), chunks per cluster in one select statement.
struct PbsSettings : BatchSettings {
  PbsSettings() { launcher = {"mpirun"}; }
  std::string queue;
  std::string cluster_resource;              //!< chunk resource naming a node's cluster
  std::vector<std::string> clusters;         //!< its value for cluster 0, 1, ...
  int procs_per_chunk = 1;                   //!< ncpus and mpiprocs of one chunk
  std::string walltime;                      //!< empty: from the runs' timeouts
  std::string hostfile_flag = "--hostfile";  //!< launcher flag given $PBS_NODEFILE; "" for none
};

/// @brief Command-line choices that override the spec.
struct SpecOverrides {
  std::string folder;    //!< --folder
  std::string executor;  //!< --executor
};

/// @brief A checked campaign spec. Paths are absolute.
struct CampaignSpec {
  ini::File file;   //!< the spec as read (common/ini.hpp: the suite's one INI dialect)
  std::string dir;  //!< folder of the spec file; relative paths start here
  std::string name;
  std::string app;
  std::string binary;
  std::string folder;
  int repetitions = 1;
  std::string executor = "local";
  OnInvalid on_invalid = OnInvalid::skip;
  double timeout = 3600;                                 //!< seconds per run
  std::vector<std::pair<std::string, std::string>> env;  //!< exported to every run
  std::vector<OptionAxis> options;                       //!< in file order; the sweep's axes
  LocalSettings local;
  SmpiSettings smpi;
  SlurmSettings slurm;
  PbsSettings pbs;
  CoallocSettings coalloc;

  /// @brief "<spec>:<line>" of a top-level key (or the file alone when absent).
  std::string where(const std::string& section, const std::string& key) const;
  /// @brief The axis of @p key, or nullptr.
  const OptionAxis* axis(const std::string& key) const;
  /// @brief Clusters the executor can place a run on (0: no limit).
  int executor_clusters() const;
  /// @brief The settings of the batch executor (slurm or pbs). @throws std::logic_error for
  /// the local executor.
  const BatchSettings& batch() const;
};

/// @brief Reads and checks a spec: known keys, well-formed values, an existing binary.
/// @throws mcb::UsageError "<spec>:<line>: <key>: ..." for the first problem.
CampaignSpec load_spec(const std::string& path, const SpecOverrides& overrides = {});

/// @brief Seconds from "90", "90s", "10min", "2h" or "HH:MM:SS". @throws std::invalid_argument.
double parse_seconds(const std::string& text);

/// @brief The directory of the running program (for mcb-<app> next to mcb-campaign).
std::string program_directory();

}  // namespace mcb::campaign
