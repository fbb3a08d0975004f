#pragma once
/// @file
/// @brief One whole mcb-ensflow run: options, experiment, verdict, record, summary.

namespace mcb::ensflow {

/// @brief The program; main() only calls this. Exit codes: 0 VALID, 1 INVALID or failed,
/// 2 bad input.
int run_program(int argc, char** argv);

}  // namespace mcb::ensflow
