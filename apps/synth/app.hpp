#pragma once
/// @file
/// @brief One whole mcb-synth run: options, iterations, verdict, record, summary.

namespace mcb::synth {

/// @brief The program; main() only calls this. Exit codes: 0 VALID, 1 INVALID or failed,
/// 2 bad input.
int run_program(int argc, char** argv);

}  // namespace mcb::synth
