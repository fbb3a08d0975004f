// mcb-calibrate: records (JSON Lines) to runtime tables, communication tables and fitted models.
#include "calibration/calibrate.hpp"
#include "common/cli.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return mcb::cli::run("mcb-calibrate", [&] {
    mcb::calib::Options options;
    boost::program_options::options_description desc("mcb-calibrate", 100, 50);
    mcb::calib::add_options(desc, options);
    const auto parsed = mcb::cli::parse(
        argc, argv, desc,
        "mcb-calibrate --input CAMPAIGN_DIR|RECORDS.jsonl... [--output DIR] [options]\n"
        "       mcb-calibrate --convert SERVICE_TIMES.csv... --problem APP=LABEL --system LABEL "
        "--output DIR\n"
        "       mcb-calibrate --check TABLE");
    if (parsed.help_printed) return 0;
    mcb::calib::check_options(options);
    return mcb::calib::run(options, argc, argv, std::cout);
  });
}
