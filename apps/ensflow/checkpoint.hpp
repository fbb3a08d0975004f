#pragma once
/// @file
/// @brief Checkpoint and restart of a run (restart_file.hpp is the file): when to write, the
/// collective write (members gathered to rank 0, which writes the file atomically) and the
/// collective restart (rank 0's checked bytes broadcast, each rank taking its own members, so
/// another process count and member mapping continue the same run), with their costs.

#include "apps/ensflow/restart_file.hpp"

#include <mpi.h>
#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::ensflow {

/// @brief When a run writes its restart file and where it stops.
struct CheckpointPlan {
  std::string file;    //!< restart file to write ("" writes none); each write replaces the last
  int every_days = 0;  //!< days between writes; 0: after every analysis
  int stop_day = 0;    //!< the last day this run computes (0: the run's last day)
  /// Checked by rank 0 after every analysis: once it exists, the run stops there as at
  /// stop_day ("" checks nothing). A runner asks a run to checkpoint now without knowing its day.
  std::string stop_file;

  /// @brief Whether a restart file is written at the end of @p day.
  bool due(const ExperimentSettings& settings, int day) const;
  /// @brief The last day this run computes.
  int last_day(const ExperimentSettings& settings) const;
};

/// @brief A restart to start from: rank 0's bytes (checked at parse time, read_restart) and
/// what reading them cost.
struct RestartSource {
  std::string file;
  std::string bytes;     //!< rank 0 only
  double read_time = 0;  //!< rank 0: reading and checking the file
  int day = 0;           //!< rank 0: the day it continues from
};

/// @brief The record's account of restart files: what was read and written, sizes and times.
struct CheckpointBook {
  struct Write {
    int day;
    std::size_t bytes;
    double seconds;  //!< gather, encode, write, sync, rename; as rank 0 saw it
  };
  std::string restart_file;  //!< "" when the run started from day 0
  int restart_day = 0;
  std::size_t restart_bytes = 0;
  double read_time = 0;        //!< rank 0: reading and checking the file
  double distribute_time = 0;  //!< broadcast and unpacking, the slowest rank
  std::vector<Write> writes;
  int stopped_at = 0;      //!< the day the run stopped at; 0 when it ran to the end
  std::string stopped_by;  //!< what stopped it: "--stop-at-day" or "--stop-file"

  double write_time() const;
  /// @brief The record's `restart` block.
  nlohmann::json to_json(const std::string& checkpoint_file) const;
};

/// @brief Reads and checks the restart file at @p path for a run of @p settings with @p config
/// (restart_config_text). @throws UsageError "--restart: '<path>': <what is wrong>".
RestartSource read_restart(const std::string& path, const std::string& config,
                           const ExperimentSettings& settings);

/// @brief Rank 0's bytes to every rank, decoded there for this run's @p config. Collective.
RestartState receive_restart(MPI_Comm comm, const RestartSource& source, const std::string& config,
                             const ExperimentSettings& settings);

/// @brief Writes @p head (everything but the members) plus every rank's @p local_states (n x
/// M/P, ranks in member order) to @p path. Collective; returns the file's size on rank 0 (0
/// elsewhere). @throws std::runtime_error on every rank when rank 0 could not write.
std::size_t write_checkpoint(MPI_Comm comm, const std::string& path, RestartState& head,
                             const Eigen::MatrixXd& local_states);

}  // namespace mcb::ensflow
