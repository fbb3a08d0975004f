#pragma once
/// @file
/// @brief The application's run over the queues' activity (seed 003's statistic calculator):
/// whenever the set of active submissions changes, it dumps its restart files and is remapped
/// onto the active set; between changes it progresses at the predicted rate.

#include "batchgrid/application.hpp"
#include "batchgrid/batch_queue.hpp"
#include "batchgrid/events.hpp"

#include <vector>

namespace mcb::batchgrid {

/// @brief What an execution needs.
struct ExecutionSpec {
  AppModel model;
  std::vector<int> requests;                     //!< processors per queue's submission
  std::vector<std::vector<AppSubmission>> runs;  //!< per queue, from run_queue
  std::vector<int> base;                         //!< base processor allocation
  double bandwidth = 100e6;                      //!< inter-site bit/s
  double horizon = 0;                            //!< seconds of wall clock evaluated
};

/// @brief What it achieved.
struct ExecutionResult {
  double simulated_days = 0;
  double days_per_day = 0;  //!< simulated days per wall-clock day (application throughput)
  double rar = 0;           //!< resource availability rate: processor-seconds / seconds
  int reschedulings = 0;
  double restart_seconds = 0;  //!< spent dumping, moving and restarting
  double active_seconds = 0;   //!< with at least one submission active
};

/// @brief Runs the application over the activity; appends its events to @p events if given.
ExecutionResult execute(const ExecutionSpec& spec, std::vector<Event>* events);

}  // namespace mcb::batchgrid
