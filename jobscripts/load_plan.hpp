#pragma once
/// @file
/// @brief Background load, the plan: which jobs of an SWF trace (a window of it), on which batch
/// system each goes, when it is submitted (its trace arrival compressed by a factor), how long it
/// sleeps and on how many processors. No batch system is contacted here.

#include "simulator/swf.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcb::load {

/// @brief How jobs are spread over the systems.
enum class Assign {
  random,  //!< each job to one system, drawn uniformly from the seed
  every    //!< every system gets its own copy of every job
};

/// "random", "every".
std::string to_string(Assign assign);

/// @brief Which jobs of the trace: the jobs from the @c from-th job line on (1-based, every
/// record counts) and at most @c count usable ones of them; or those submitted in [start, end)
/// of trace time. The two ways are exclusive.
struct Window {
  long long from = 1;
  std::optional<long long> count;
  std::optional<std::pair<double, double>> time;  //!< [start, end) in trace seconds
};

/// @brief Everything that shapes the load.
struct LoadSpec {
  std::string trace;  //!< SWF file (real trace excerpt or mcb-batchgrid generate)
  Window window;
  double factor = 1;                  //!< time compression: trace seconds per real second
  std::optional<double> procs_scale;  //!< processors x scale; empty: system / trace MaxProcs
  int max_procs = 0;                  //!< cap below the system's size (0: the system's size)
  Assign assign = Assign::random;
  std::uint64_t seed = 1;
  double slack = 5;  //!< seconds added to a job's time limit
};

/// @brief The usable jobs of the window, in trace order.
struct TraceExcerpt {
  sim::SwfHeader header;
  std::vector<sim::SwfRecord> jobs;
  std::map<std::string, long long> skipped;  //!< reason -> job lines of the window left out
  long long job_lines = 0;                   //!< job lines read
  double span = 0;  //!< trace seconds the window covers (its length, or last - first submit)
};

/// @brief Reads the window of @p spec's trace through the SWF owner (simulator/swf.hpp). Lines
/// without a runtime (field 4 <= 0) or processors (fields 8 and 5 <= 0) are skipped and counted.
/// @throws UsageError naming the trace and line for malformed lines, or the option when the
/// window holds no usable job.
TraceExcerpt read_excerpt(const LoadSpec& spec);

/// @brief The processors of a trace job: requested (field 8), else allocated (field 5).
long long trace_processors(const sim::SwfRecord& record);

/// @brief One job of the load.
struct PlannedJob {
  std::size_t seq = 0;         //!< position in the plan: the submission order
  std::size_t system = 0;      //!< index into the loaded systems
  std::int64_t trace_job = 0;  //!< SWF job number (field 1)
  long trace_line = 0;
  double trace_submit = 0;    //!< trace seconds
  double trace_runtime = 0;   //!< trace seconds
  long long trace_procs = 0;  //!< processors the trace gives
  double at = 0;              //!< submission, seconds after the load's start
  double runtime = 0;         //!< the job's sleep, seconds
  double time_limit = 0;      //!< seconds
  int procs = 1;              //!< processors asked of the system
};

/// @brief The scale of processors for a system of @p system_procs processors: the spec's, or
/// system / trace MaxProcs. @throws UsageError when auto meets a trace without MaxProcs.
double processor_scale(const LoadSpec& spec, const sim::SwfHeader& header, int system_procs);

/// @brief The plan, ordered by submission time (ties in trace order). @p system_procs gives each
/// loaded system's processors; a job gets max(1, round(procs x scale)), capped at the system's
/// size and at the spec's max_procs.
std::vector<PlannedJob> plan_load(const TraceExcerpt& excerpt, const LoadSpec& spec,
                                  const std::vector<int>& system_procs);

/// @brief The load's name a record cites: trace file name, window, factor, assignment and seed,
/// e.g. "DAS2-fs1-2003-1.swf#1+40/x1000/random/seed7".
std::string load_id(const LoadSpec& spec);

}  // namespace mcb::load
