#pragma once
/// @file
/// @brief The spec of a multi-queue ensemble run (mcb-ensemble, seed 003 section 5): the batch
/// queues (system, partition or queue, processors, time limit, the measured a + b/P of a model
/// day there), the inter-site link the restart file crosses, the Ensflow configuration, the
/// horizon in model days and the checkpoint interval. INI, read through common/ini.hpp with the
/// campaign spec's reader (spec_reader.hpp); see jobscripts/README.md, "Multi-queue ensemble".

#include "jobscripts/queue.hpp"

#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief One batch queue the ensemble may run on.
struct EnsembleQueue {
  std::string name;        //!< from [queue.NAME]; names its pilots and its site folder
  QueueConfig system;      //!< the batch system, with the queue's partition or queue set
  int processors = 1;      //!< of every job submitted to it
  double time_limit = 60;  //!< s: sbatch --time, qsub -l h_rt
  double a = 0;            //!< predicted s per model day: a + b / processors
  double b = 0;
  /// where a and b come from: "spec" (the queue's own a and b), or the compute fit's
  /// "FILE:LINE" (mcb-calibrate's compute_fits.csv, per model day)
  std::string model = "spec";

  double seconds_per_day() const { return a + b / processors; }
};

struct EnsembleSpec {
  std::string path;          //!< the spec file, absolute
  std::string systems_file;  //!< absolute
  std::string binary;        //!< mcb-ensflow
  int horizon = 0;           //!< model days (mcb-ensflow --days)
  int checkpoint_every = 0;  //!< model days per segment: the run checkpoints and may remap
  double poll = 0.2;         //!< s between looks at the pilots
  double status_every = 1;   //!< s between asking a batch system about a pilot
  int max_failures = 3;      //!< segments in a row failing (not killed) before giving up
  std::vector<std::string> launcher{"mpirun", "--mca", "ras", "^slurm", "--bind-to", "none"};
  std::string np_flag = "-np";
  /// may a segment run over several active queues joined into one MPI job (`auto`: when its
  /// predicted time per model day beats the best single queue's, as seed 003's scheduler maps
  /// components over every active system), or never
  bool split = true;
  double join_timeout = 60;                 //!< s: MCB_JOIN_TIMEOUT of a joined segment's parts
  std::string ompi_server = "ompi-server";  //!< the joins' rendezvous (docs/join.md)
  double link_bandwidth = 0;  //!< bytes/s of the inter-site link (0: no transfer cost)
  double link_latency = 0;    //!< s
  /// mcb-calibrate's compute fits (compute_fits.csv or its output folder; "" for none): a
  /// queue's a + b/P of a model day is its row (app ensflow, fit-problem, the queue's
  /// fit-system) divided by the problem's days, else the queue's own a and b
  std::string compute_fits;
  std::string fit_problem;  //!< the fitted runs' problem, "m<M>-d<D>-g<G>" (mcb-ensflow's)
  std::vector<EnsembleQueue> queues;
  /// mcb-ensflow's options (key, value), given to it as a --config file (flags as "true")
  std::vector<std::pair<std::string, std::string>> options;
  std::string text;  //!< the spec's contents (a restarted runner checks them)
};

/// @brief Reads and checks the spec.
/// @throws mcb::UsageError "<spec>:<line>: <key>: ..." (one line) for anything wrong.
EnsembleSpec read_ensemble_spec(const std::string& path);

}  // namespace mcb::campaign
