#pragma once
/// @file
/// @brief mcb-ensemble: a long-running Ensflow ensemble across batch queues with time limits
/// (seed 003, section 5): job submitters, job monitors and the coordinator
/// (ensemble_coordinator.hpp) in one loop, its state in the event log of its folder. See
/// jobscripts/README.md, "Multi-queue ensemble".

namespace mcb::campaign {

/// @brief The program: 0 when the run reached its horizon, 1 when it gave up, 2 for bad
/// options or a bad spec (one line).
int run_ensemble_program(int argc, char** argv);

}  // namespace mcb::campaign
