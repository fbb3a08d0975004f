#pragma once
/// @file
/// @brief Background load, the run: submits each planned job to its batch system at its
/// compressed arrival time, follows it until it ends, and cancels what it submitted when
/// interrupted (SIGINT, SIGTERM, SIGHUP) or when the load's duration is up. Each job is the
/// script job_script() writes: it stamps its start, sleeps its runtime, stamps its end, so the
/// times are the job's own, not a poll's.

#include "jobscripts/load_plan.hpp"
#include "jobscripts/queue.hpp"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace mcb::load {

/// @brief How a submitted job ended.
enum class Outcome {
  completed,  //!< slept its runtime and ended
  cancelled,  //!< cancelled by the load (interrupted, or its duration up)
  failed      //!< refused at submission, or ended by the system (time limit, node failure)
};

/// "completed", "cancelled", "failed".
std::string to_string(Outcome outcome);

/// @brief A job as it ran. Times are seconds after the load's origin (RunResult::origin),
/// -1 where it never happened.
struct RanJob {
  PlannedJob plan;
  std::string id;         //!< the system's job id ("" when submission failed)
  double planned = 0;     //!< when it was due
  double issued = -1;     //!< when the submit command began
  double submitted = -1;  //!< when the submit command returned with the id
  double started = -1;
  double ended = -1;
  Outcome outcome = Outcome::completed;
  bool stamped = false;  //!< start (and end, if it ended by itself) from the job's own stamps
  std::string note;      //!< why it failed, or "" (one line)
};

/// @brief Settings of a run.
struct RunSettings {
  double duration = 0;      //!< seconds after which the load ends and cancels what is left; 0: none
  double poll = 1;          //!< seconds between status questions about a job without its stamps
  double cancel_wait = 60;  //!< seconds to wait for the systems to confirm cancellations
  std::string work;         //!< folder of the job script and the stamps (reachable by the jobs)
  std::ostream* log = nullptr;  //!< one line per submission problem ("" stream: none)
};

/// @brief What a run did.
struct RunResult {
  std::vector<RanJob> jobs;       //!< every job the load tried to submit, in plan order
  std::size_t not_submitted = 0;  //!< planned jobs left when the load ended
  std::string ended_by;           //!< "all jobs ended", "duration", "signal SIGTERM", ...
  int signal = 0;                 //!< the interrupting signal, 0 when none
  long long origin = 0;           //!< Unix time (s) every time counts from
  double start = 0;               //!< the load's start, seconds after origin
  double wall_seconds = 0;
  std::vector<std::string> unconfirmed;  //!< "system:id" of cancellations never confirmed
};

/// @brief The script every load job runs (`job.sh STAMP SECONDS`), written into @p work.
/// @returns its path.
std::string write_job_script(const std::string& work);

/// @brief Runs the plan on @p queues (one per loaded system, in the plan's system order).
RunResult run_load(const std::vector<PlannedJob>& plan,
                   const std::vector<std::unique_ptr<campaign::BatchQueue>>& queues,
                   const RunSettings& settings);

}  // namespace mcb::load
