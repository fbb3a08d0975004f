#pragma once
/// @file
/// @brief The runtime table the simulator replays, made from records. The table's format (both
/// layouts, reading and writing) is owned by common/runtime_table.hpp; here the calibration
/// builds its rows from runs and names the service-time layout's missing labels.

#include "calibration/grouping.hpp"
#include "calibration/records.hpp"
#include "common/runtime_table.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mcb::calib {

/// @brief Labels the service-time layout lacks: the problem of each application and the system.
struct ServiceTimeLabels {
  std::map<std::string, std::string> problem_of_app;  //!< e.g. poisson -> 4000x4000
  std::string system;                                 //!< e.g. das2
};

/// @brief A table as read, and which layout it had.
struct LoadedTable {
  std::vector<RuntimeRow> rows;
  bool service_time_layout = false;  //!< true when converted from the service-time layout
};

/// @brief Reads a runtime table from @p path (a file, or a folder holding runtimes.csv), in the
/// runtime layout or the service-time layout (converted with @p labels: n = 1, min = avg = max =
/// median = the service time, stddev empty). Rows are checked: key fields present, sizes
/// positive integers with components <= total_size, n >= 1, min <= avg <= max and
/// min <= median <= max, stddev empty exactly when n < 2, no key twice.
/// @throws mcb::UsageError "<file>:<line>: <what>".
LoadedTable read_runtime_table(const std::string& path, const ServiceTimeLabels& labels = {});

/// @brief runtimes.csv text for @p rows (in the given order).
std::string runtime_csv(const std::vector<RuntimeRow>& rows);

/// @brief Runtime rows made from valid application runs: grouped by (app, problem, total_size,
/// components, system) and the compared configuration (grouping.hpp), the statistics taken over
/// each run's `result.wall_time`.
struct RuntimeTable {
  std::vector<RuntimeRow> rows;
  std::vector<Group> groups;  //!< parallel to rows
};

/// @brief Builds the table from @p runs (application runs, not link calibration).
/// @param hint filter option suggested when a row's runs differ in configuration.
/// @throws mcb::UsageError when a row's runs differ in a configuration field.
RuntimeTable build_runtime_table(const std::vector<const Record*>& runs, const std::string& hint);

/// @brief The provenance sidecar runtimes.json: per row the runs it pooled (run id, file:line,
/// hosts, date, suite revision) and its compared configuration; overall the record ids, hosts,
/// dates, revisions, plus @p extra merged in at the top level.
nlohmann::json runtime_sidecar(const RuntimeTable& table, const nlohmann::json& extra);

}  // namespace mcb::calib
