/// @file
/// @brief mcb-load: background load for batch systems, replayed from an SWF workload; see
/// jobscripts/README.md, "Background load".
#include "common/cli.hpp"
#include "jobscripts/load_program.hpp"

int main(int argc, char** argv) {
  return mcb::cli::run("mcb-load", [&] { return mcb::load::run_program(argc, argv); });
}
