#pragma once
/// @file
/// @brief mcb-campaign's commands: dry-run, run, scripts, status, collect.

namespace mcb::campaign {

/// @brief The whole program (main calls only this). Returns the exit code.
int run_program(int argc, char** argv);

}  // namespace mcb::campaign
