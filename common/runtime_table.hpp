#pragma once
/// @file
/// @brief The runtime table contract (docs/DESIGN.md): what the calibration writes and the
/// simulator replays, one row per configuration,
/// `app,problem,total_size,components,system,n,min,avg,max,median,stddev` (seconds); and the
/// paper's service-time layout `app,total_size,components,service_time_s` (Tables 4 and 5),
/// read as a table whose problem and system the reader supplies. Read and written here only,
/// through the CSV codec (common/csv.hpp).

#include "common/statistics.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mcb {

/// @brief The header of runtimes.csv, exactly.
inline constexpr const char* kRuntimeHeader =
    "app,problem,total_size,components,system,n,min,avg,max,median,stddev";
/// @brief The header of the paper's service-time tables (shared/reference/das2-study).
inline constexpr const char* kServiceTimeHeader = "app,total_size,components,service_time_s";

/// @brief One row: a configuration and the statistics of its runs' wall times.
struct RuntimeRow {
  std::string app;
  std::string problem;  //!< empty in the service-time layout
  std::int64_t total_size = 0;
  std::int64_t components = 0;
  std::string system;  //!< empty in the service-time layout
  Summary stats;
  std::size_t line = 0;  //!< line of the file it was read from (0 when built)
};

/// @brief A runtime table: its rows and, when read, the file and layout.
struct RuntimeTable {
  std::string file;                  //!< the file read ("" when built)
  bool service_time_layout = false;  //!< true when read from the service-time layout
  std::vector<RuntimeRow> rows;

  /// @brief Reads @p path (a file, or a folder holding runtimes.csv). The header must be one of
  /// the two layouts, exactly. Rows are checked: app (and in the runtime layout problem and
  /// system) not empty; total_size and components positive integers up to 10^9 with components
  /// <= total_size; n >= 1; times finite and >= 0 with min <= avg <= max and min <= median <=
  /// max; stddev empty exactly when n < 2; no (app, problem, total_size, components, system)
  /// twice. A service-time row reads as n = 1, min = avg = max = median = the time, no stddev.
  /// @throws mcb::UsageError "<file>:<line>: <what>".
  static RuntimeTable read(const std::string& path);

  /// @brief runtimes.csv text for the rows (in their order), always in the runtime layout.
  std::string to_csv() const;
};

/// @brief The row's key columns as written: app, problem, total_size, components, system.
std::vector<std::string> row_key(const RuntimeRow& row);

}  // namespace mcb
