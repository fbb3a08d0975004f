/// @file
/// @brief mcb-match: matches one job to the platform of a platform file with one of the three
/// matchers of seed 002 and prints the match and the model's prediction as JSON. Exit 0 for a
/// checked match, 1 when the match fails its check, 3 when no matching exists, 4 when the time
/// limit came first, 2 for bad input.
#include "common/cli.hpp"
#include "common/environment.hpp"
#include "matching/matcher.hpp"
#include "matching/options.hpp"
#include "matching/platform_file.hpp"
#include "matching/report.hpp"

#include <iostream>

namespace {

namespace cli = mcb::cli;
using namespace mcb::matching;

int body(int argc, char** argv) {
  MatchOptions m;
  if (!parse_match_options(argc, argv, m)) return 0;
  const Job& job = m.job;
  const std::string& platform_path = m.platform;
  const std::string& matcher_name = m.matcher;
  const double time_limit = m.time_limit;
  const Platform platform = read_platform(platform_path, "--platform: ");
  const auto solver = make_solver(m.solver);
  const MatchResult r =
      match(platform, job, parse_matcher(matcher_name), *solver, {time_limit, false});
  nlohmann::json out{{"platform", platform_path},
                     {"job",
                      {{"tasks", job.tasks},
                       {"pnbw", job.pnbw},
                       {"processing", job.processing},
                       {"communication", job.communication}}},
                     {"solver", solver->name()},
                     {"time_limit", time_limit},
                     {"match", to_json(r)},
                     {"env", mcb::environment_block(argc, argv)}};
  std::cout << out.dump(2) << '\n';
  const std::string v = verdict(r);
  std::cerr << "mcb-match: " << v;
  if (!r.check.empty()) std::cerr << ": " << r.check;
  if (v == "INFEASIBLE")
    std::cerr << ": no matching of " << job.tasks << " tasks meets the " << matcher_name
              << " program";
  if (v == "TIME-LIMIT") std::cerr << ": no solution within " << time_limit << " s";
  std::cerr << '\n';
  if (v == "VALID") return 0;
  return v == "INVALID" ? 1 : v == "INFEASIBLE" ? 3 : 4;
}

}  // namespace

int main(int argc, char** argv) {
  return cli::run("mcb-match", [&] { return body(argc, argv); });
}
