/// @file
/// @brief mcb-batchgrid: batch grids with time-limited queues, a long-running multi-component
/// application and Lublin-Feitelson workloads (seed 003). See batchgrid/README.md.
#include "batchgrid/commands.hpp"
#include "common/cli.hpp"
#include "common/errors.hpp"

#include <iostream>
#include <string>

int main(int argc, char** argv) {
  return mcb::cli::run("mcb-batchgrid", [&] {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "generate") return mcb::batchgrid::generate_command(argc - 1, argv + 1);
    if (command == "run") return mcb::batchgrid::run_command(argc - 1, argv + 1);
    if (command == "study") return mcb::batchgrid::study_command(argc - 1, argv + 1);
    if (command == "--help" || command == "-h") {
      std::cout << "usage: mcb-batchgrid generate|run|study [options] (each takes --help)\n";
      return 0;
    }
    throw mcb::UsageError("command: '" + command + "' is not generate, run or study");
  });
}
