/// @file
/// @brief mcb-ensemble: an Ensflow run across batch queues with time limits; see
/// jobscripts/README.md, "Multi-queue ensemble".
#include "common/cli.hpp"
#include "jobscripts/ensemble_program.hpp"

int main(int argc, char** argv) {
  return mcb::cli::run("mcb-ensemble",
                       [&] { return mcb::campaign::run_ensemble_program(argc, argv); });
}
