#pragma once
/// @file
/// @brief mcb-load: replays a window of an SWF workload into batch systems as real jobs (each a
/// sleep of its compressed runtime on its scaled processors), then writes the jobs as they ran.
/// See jobscripts/README.md, "Background load".

#include "jobscripts/load_plan.hpp"

#include <string>

namespace mcb::load {

/// @brief The program's options.
struct ProgramOptions {
  LoadSpec spec;
  std::string systems;  //!< systems file (the rig's DIR/rig.env)
  std::string select;   //!< comma-separated system names; "" = every system of the file
  std::string output;   //!< folder of the outputs
  double duration = 0;  //!< seconds; 0 = until every job ended
  double poll = 1;      //!< seconds
};

/// @brief Parses and checks the options (nothing is contacted or written). False when --help
/// was printed. @throws UsageError.
bool parse_options(int argc, const char* const* argv, ProgramOptions& options);

/// @brief The whole program; returns its exit code (0, 1 when a job failed or a cancellation
/// was not confirmed, 130 when interrupted). @throws UsageError for bad input.
int run_program(int argc, const char* const* argv);

}  // namespace mcb::load
