#pragma once
/// @file
/// @brief Background load, the outputs, written atomically once the load has ended:
/// - `<system>.swf` per loaded system: its jobs as they ran, through the SWF owner
///   (simulator/swf.hpp), times in seconds from the header's UnixStartTime, so `mcb-sim --trace`
///   and a replay of the same workload read them as any trace;
/// - `jobs.csv`: every job with its plan, its batch id and its times (common/csv.hpp);
/// - `load.json` (`mcb-load/1`): the load's name and settings, per system counts and loads, the
///   submission lag, how it ended, the environment. A record names its load with cite_load().

#include "jobscripts/load_plan.hpp"
#include "jobscripts/load_run.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::load {

/// @brief Schema of load.json.
inline constexpr const char* kLoadSchema = "mcb-load/1";

/// @brief A loaded system as the outputs name it.
struct LoadedSystem {
  std::string name;
  std::string kind;
  int processors = 0;
  double scale = 1;  //!< processors of a trace job are multiplied by it
};

/// @brief The SWF lines of one system's jobs as they ran (field 16 = partition @p partition).
std::vector<sim::SwfRecord> ran_records(const RunResult& result, std::size_t system, int partition);

/// @brief Writes the three outputs into @p dir (which exists), each through an atomic file;
/// load.json last, so a folder with load.json holds the whole load.
void write_outputs(const std::string& dir, const LoadSpec& spec, const TraceExcerpt& excerpt,
                   const std::vector<LoadedSystem>& systems, const RunResult& result,
                   const nlohmann::json& env);

/// @brief What a record cites of the load in @p summary (a load.json): its id, the summary's
/// path, trace, window, factor, assignment, seed and the loaded systems.
/// @throws UsageError naming the file when it is not a load summary.
nlohmann::json cite_load(const std::string& summary);

}  // namespace mcb::load
