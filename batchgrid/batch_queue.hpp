#pragma once
/// @file
/// @brief One batch system of a batch grid (seed 003, section 3): a queue of a given size and
/// discipline (FCFS, EASY, conservative; the simulator's engine and disciplines), its external
/// workload, and a maximum execution time. A job that reaches the limit is killed and counted
/// as killed. The long-running application keeps one submission in the queue: each runs until
/// the limit, is killed there, and is resubmitted at once ("a CCSM submission is added to the
/// job trace immediately after the completion of the execution time limit").

#include "simulator/discipline.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mcb::batchgrid {

/// @brief A job of the external workload.
struct ExternalJob {
  double submit = 0;
  int size = 1;
  double runtime = 0;    //!< what the job would run without a limit
  double requested = 0;  //!< the user's estimate (backfilling plans with it); <= 0: the runtime
};

/// @brief One batch system.
struct QueueSpec {
  std::string name;
  int size = 0;  //!< processors
  sim::Discipline discipline = sim::Discipline::kFcfs;
  double limit = 2 * 86400.0;     //!< maximum execution time (s)
  std::vector<ExternalJob> jobs;  //!< in submit order
  int app_request = 0;            //!< processors of each application submission (0: none)
  double app_horizon = 0;         //!< the application submits until this time
};

/// @brief One submission of the application: it waits, then holds its processors until the
/// limit.
struct AppSubmission {
  int number = 0;
  double submit = 0, start = 0, end = 0;
};

/// @brief What one queue's run gives.
struct QueueRun {
  std::vector<AppSubmission> app;  //!< in submission order (the last may never start)
  std::uint64_t external_done = 0, external_killed = 0;
  double external_wait_sum = 0;
  std::uint64_t simulated_jobs = 0;  //!< external and application jobs that ran
};

/// @brief Runs one batch system to the end of its workload.
/// @throws UsageError naming the queue for a job larger than the queue or a bad discipline.
QueueRun run_queue(const QueueSpec& spec);

}  // namespace mcb::batchgrid
