#pragma once
/// @file
/// @brief A job in the simulated system: what the workload said, what admission decided, and
/// its reservation and run.

#include "simulator/tables.hpp"
#include "simulator/types.hpp"

#include <cstdint>
#include <vector>

namespace mcb::sim {

using JobId = std::uint32_t;
inline constexpr JobId kNoJob = ~JobId{0};

/// @brief Where a job's service time comes from.
struct Pricing {
  const PriceList* table = nullptr;  //!< runtime-table prices by number of clusters, or null
  double runtime = -1;               //!< else: single-cluster runtime at speed 1 (traces)
  double requested = -1;             //!< user's requested time on one cluster, -1 unknown
};

/// @brief One job from its arrival to its departure.
/// The fields are ordered to leave no padding between them: the job store's slots take a
/// fresh page every ten or so jobs in the system, so the size of Job is paid in page faults.
struct Job {
  // From the workload.
  std::int64_t id = 0;
  std::uint64_t seq = 0;  //!< arrival order, from 0
  Time submit = 0;
  Request req;
  Pricing price;
  long line = 0;  //!< source line in a trace (0: synthetic)
  int app = 0;    //!< index into the run's application names
  int home = -1;  //!< home cluster (-1: none given)

  // Decided at admission.
  ClusterMask allowed = kAllClusters;  //!< clusters the job may use
  Time plan = 0;  //!< requested time of the longest placement the job may get (backfilling)
  int queue = 0;
  bool measured = false;  //!< counted in the statistics (not in the warm-up)

  // Queue links (intrusive list).
  JobId prev = kNoJob, next = kNoJob;

  // Reservation (EASY, conservative).
  Time res_start = kNever, res_end = kNever;
  Time first_reservation = kNever;  //!< the first start time the scheduler promised
  std::vector<int> res_alloc;

  // Running.
  Time start = kNever, expected_end = kNever, end = kNever;
  double service = 0, net_service = 0;
  Counts alloc;                 //!< processors per cluster
  std::uint64_t departure = 0;  //!< order of its pending departure event (0: none)
  int held = 0;  //!< processors it holds, the sum of alloc (set with it; a moldable job may
                 //!< hold fewer than it asked for)
  int components_run = 0;
  std::uint32_t running_index = 0;

  // Preemption (Sim::preempt): a suspended job resumes with what was left of its run.
  int preemptions = 0;
  Time suspended = kNever;     //!< when it was last suspended
  double left = -1;            //!< runtime left while suspended (-1: not suspended)
  double left_requested = -1;  //!< requested time left while suspended
};

}  // namespace mcb::sim
