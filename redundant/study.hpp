#pragma once
/// @file
/// @brief mcb-redundant's study: options, the runs they ask for (rankers x duplication
/// factors x replications on one grid and discipline), and the files they write.

#include "redundant/grid.hpp"
#include "redundant/replay.hpp"
#include "simulator/discipline.hpp"

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace mcb::redundant {

/// @brief --global-load-of: what --global-load is relative to.
enum class LoadOf { site, grid };
const char* name_of(LoadOf of);

/// @brief --queue: the disciplines the grid models, FCFS and conservative backfilling.
struct Queue {
  sim::Discipline kind = sim::Discipline::kFcfs;
};

// Typed at parse time (cli::validate_choice); operator<< prints the spelling in --help.
void validate(boost::any& v, const std::vector<std::string>& values, LoadOf*, int);
void validate(boost::any& v, const std::vector<std::string>& values, Queue*, int);
std::ostream& operator<<(std::ostream& os, LoadOf of);
std::ostream& operator<<(std::ostream& os, Queue q);

/// @brief Every option of mcb-redundant, with its default; the grid's own settings are bound
/// into @ref base while Boost parses them.
struct StudyOptions {
  GridConfig base;
  std::string clusters = "8x64";
  Queue queue;
  LoadOf global_load_of = LoadOf::site;
  std::vector<std::string> rankers;  //!< --rankers (default: all five)
  std::vector<int> duplicates;       //!< --duplicates (default: 0:7)
  std::vector<Sync> syncs;           //!< synchronization methods to run (none: no co-allocation)
  int replications = 5;
  std::string output;
  /// A recorded workload instead of the synthetic one (--site-trace, --requests).
  std::vector<std::string> site_traces;
  std::string requests;
  Replay replay;  //!< read at parse time when site_traces is not empty
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
