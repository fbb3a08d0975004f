#pragma once
/// @file
/// @brief mcb-redundant's study: options, the runs they ask for (rankers x duplication
/// factors x replications on one grid and discipline), and the files they write.

#include "redundant/grid.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::redundant {

struct StudyOptions {
  GridConfig base;
  std::string clusters = "8x64";
  std::vector<std::string> rankers;
  std::vector<int> duplicates;
  std::vector<Sync> syncs;  //!< synchronization methods to run (none: no co-allocation)
  int replications = 5;
  std::string output;
};

/// @brief Parses the command line. @throws UsageError (one line naming the option and value).
/// Returns false when --help was printed.
bool parse_study(int argc, const char* const* argv, StudyOptions& options);

/// @brief Runs every combination, prints one line per run with its verdict, and writes
/// DIR/redundant.csv and DIR/redundant.json (invalid runs are kept out of the CSV).
/// Returns the number of invalid runs.
int run_study(const StudyOptions& options, const nlohmann::json& env);

/// @brief Parses "0:7" (every value) or "0,1,7". @throws UsageError naming --duplicates.
std::vector<int> parse_duplicates(const std::string& text);

}  // namespace mcb::redundant
