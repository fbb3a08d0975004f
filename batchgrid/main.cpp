/// @file
/// @brief mcb-batchgrid: batch grids with time-limited queues, a long-running multi-component
/// application and Lublin-Feitelson workloads (seed 003). See batchgrid/README.md.
#include "batchgrid/commands.hpp"
#include "common/cli.hpp"
#include "common/subcommand.hpp"

int main(int argc, char** argv) {
  namespace bg = mcb::batchgrid;
  return mcb::cli::run("mcb-batchgrid", [&] {
    return mcb::cli::run_subcommand(
        argc, argv,
        {{"generate", "a Lublin-Feitelson workload as an SWF file", bg::generate_command},
         {"run", "one batch grid: single against multiple batch execution", bg::run_command},
         {"study", "many random grids: seed 003's Figures 4-7 as a table", bg::study_command}},
        "mcb-batchgrid COMMAND [options]", "Each command takes --help.");
  });
}
