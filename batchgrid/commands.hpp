#pragma once
/// @file
/// @brief The three commands of mcb-batchgrid: generate (a Lublin-Feitelson SWF workload), run
/// (one batch grid, single against multiple batch execution, with event files) and study (many
/// random grids, seed 003's Figures 4-7 as a table). Each returns the exit code. Each parses its
/// command line first with its parse_ function (the command-line fuzzer calls those alone).

#include "batchgrid/grid.hpp"
#include "batchgrid/lublin.hpp"

#include <string>

namespace mcb::batchgrid {

/// @brief The options of generate.
struct GenerateOptions {
  LublinSpec spec;
  long long jobs = 10000;
  std::string mix = "1/0/0/0/0";  //!< as given, for the SWF header
  std::string output;
};

/// @brief The options run and study share: the grid every experiment starts from.
struct GridOptions {
  GridSpec grid;
  double horizon_days = 60;
  std::string bandwidths = "10,100,1000";  //!< as given, for study.json
};

/// @brief The options of run.
struct RunOptions {
  GridOptions grid;
  std::string queues;    //!< as given, for summary.json
  std::string app;       //!< --app A:B:BYTES as given; empty: CCSM's shape
  std::string requests;  //!< --requests as given; empty: the base allocation split
  std::string output;
};

/// @brief The options of study.
struct StudyOptions {
  GridOptions grid;
  int experiments = 1000;
  int threads = 0;  //!< 0: one per hardware thread
  std::string output;
};

/// @brief Parse and check a command's arguments (argv[0] is the command's name). False when
/// --help was printed. @throws mcb::UsageError naming the option and the value.
bool parse_generate(int argc, const char* const* argv, GenerateOptions& options);
bool parse_run(int argc, const char* const* argv, RunOptions& options);
bool parse_study(int argc, const char* const* argv, StudyOptions& options);

int generate_command(int argc, const char* const* argv);
int run_command(int argc, const char* const* argv);
int study_command(int argc, const char* const* argv);

}  // namespace mcb::batchgrid
