/// @file
/// @brief mcb-redundant: seed 004's grid with redundant requests and site rankers; see
/// redundant/README.md.
#include "common/cli.hpp"
#include "common/environment.hpp"
#include "redundant/study.hpp"

int main(int argc, char** argv) {
  return mcb::cli::run("mcb-redundant", [&] {
    mcb::redundant::StudyOptions options;
    if (!mcb::redundant::parse_study(argc, argv, options)) return 0;
    const int invalid = mcb::redundant::run_study(options, mcb::environment_block(argc, argv));
    return invalid == 0 ? 0 : 1;
  });
}
