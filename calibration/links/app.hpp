#pragma once
/// @file
/// @brief One whole mcb-links run: options, measurement of every link class, fits, the relay
/// study when asked for, verdict, record, summary.

namespace mcb::links {

/// @brief The program; main() only calls this. Exit codes: 0 VALID, 1 INVALID, 2 bad input.
int run_program(int argc, char** argv);

}  // namespace mcb::links
