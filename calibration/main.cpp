// mcb-calibrate: records (JSON Lines) to runtime tables, communication tables and fitted models.
#include "calibration/calibrate.hpp"
#include "common/cli.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return mcb::cli::run("mcb-calibrate", [&] {
    mcb::calib::Options options;
    if (!mcb::calib::parse_command_line(argc, argv, options)) return 0;
    return mcb::calib::run(options, argc, argv, std::cout);
  });
}
