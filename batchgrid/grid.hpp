#pragma once
/// @file
/// @brief A batch grid experiment (seed 003, section 4.1): B queues with their workloads, the
/// application on all of them against the application on the largest alone, and the study of
/// many random grids that Figures 4-7 summarise.

#include "batchgrid/application.hpp"
#include "batchgrid/batch_queue.hpp"
#include "batchgrid/events.hpp"
#include "batchgrid/execution.hpp"
#include "batchgrid/lublin.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mcb::batchgrid {

/// @brief One queue of a grid: size, discipline and workload (an SWF trace, else the model).
struct QueueConfig {
  int size = 0;
  sim::Discipline discipline = sim::Discipline::kFcfs;
  std::array<double, kClasses> mix{1, 0, 0, 0, 0};
  std::string trace;  //!< SWF file; empty: Lublin-Feitelson with @ref mix
  double limit = 0;   //!< this queue's maximum execution time (s); 0: the grid's
};

/// @brief Queues from "SIZE:DISCIPLINE[:MIX|:trace=FILE][:limit=S]" items, comma-separated; MIX
/// is the m/s/l/n/w weights separated by '/', e.g. "256:easy:0/1/1/1/1,64:fcfs:trace=x.swf";
/// limit=S overrides --limit for that queue.
/// @throws UsageError naming --queues and the bad item.
std::vector<QueueConfig> parse_queues(const std::string& text);

/// @brief Everything an experiment needs.
struct GridSpec {
  std::vector<QueueConfig> queues;
  /// Processors the application asks of the largest queue in the single execution; 0: its
  /// single-system best schedule on the largest queue (seed 003, section 3.2).
  int request = 0;
  double limit = 2 * 86400.0;     //!< every queue's maximum execution time (s)
  double horizon = 60 * 86400.0;  //!< wall-clock seconds evaluated
  double interarrival = 3000;     //!< mean, seconds
  std::vector<double> bandwidths{10e6, 100e6, 1e9};
  std::uint64_t seed = 1;
  AppModel model = ccsm_model();
  /// Processors of each queue's submission in the multiple batch execution, as a real runner
  /// (mcb-ensemble) asks them; empty: the base allocation split over the queues.
  std::vector<int> requests;
};

/// @brief A one-component application from "A:B:BYTES": a + b / P seconds per simulated day
/// and a restart file of BYTES (an Ensflow ensemble as mcb-ensemble runs it).
/// @throws UsageError naming --app and the bad value.
AppModel parse_app(const std::string& text);

/// @brief Per-queue request sizes from "P,P,...", one per queue of @p queues, each from 1 to
/// the queue's size. @throws UsageError naming --requests and the bad value.
std::vector<int> parse_requests(const std::string& text, const std::vector<QueueConfig>& queues);

/// @brief Single (largest queue) against multiple batch execution at one bandwidth.
struct Outcome {
  double bandwidth = 0;
  ExecutionResult single, multi;
};

/// @brief One experiment's results.
struct Comparison {
  int largest = 0;                         //!< index of the largest queue
  int request = 0;                         //!< of the single execution
  std::vector<int> requests;               //!< per queue, in the multiple batch execution
  std::vector<int> base;                   //!< single-system best allocation
  double single_wait = 0, multi_wait = 0;  //!< mean wait of the application in the largest queue
  std::vector<Outcome> outcomes;           //!< per bandwidth
  std::uint64_t simulated_jobs = 0;        //!< jobs through all queue runs
};

/// @brief The external workload of a queue, until @p until seconds.
std::vector<ExternalJob> queue_workload(const QueueConfig& q, double interarrival,
                                        std::uint64_t seed, double until);

/// @brief Requests of the multiple batch execution: the base allocation's components, largest
/// first, each to the largest queue without a component that holds it, else to the queue with
/// the most room left. They add up to the base allocation; a queue may get none.
/// @throws UsageError if a component fits in no queue.
std::vector<int> split_request(const std::vector<int>& base, const std::vector<QueueConfig>& qs);

/// @brief Runs one experiment. Events of the multiple (single) execution at the first bandwidth
/// go to @p multi_events (@p single_events) when given.
Comparison compare(const GridSpec& spec, std::vector<Event>* multi_events,
                   std::vector<Event>* single_events);

/// @brief A random grid as section 4.1 draws it: 4 queues, sizes from {32, ..., 512},
/// disciplines from FCFS, CONS and EASY, random numbers of S, L, N and W jobs; the request is
/// left to the single-system best schedule (0).
GridSpec random_grid(std::uint64_t seed, const GridSpec& defaults);

}  // namespace mcb::batchgrid
