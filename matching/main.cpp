/// @file
/// @brief mcb-match: matches one job to the platform of a platform file with one of the three
/// matchers of seed 002 and prints the match and the model's prediction as JSON. Exit 0 for a
/// checked match, 1 when the match fails its check, 3 when no matching exists, 4 when the time
/// limit came first, 2 for bad input.
#include "common/cli.hpp"
#include "common/environment.hpp"
#include "matching/matcher.hpp"
#include "matching/platform_file.hpp"
#include "matching/report.hpp"

#include <iostream>

namespace {

namespace po = boost::program_options;
namespace cli = mcb::cli;
using namespace mcb::matching;

int body(int argc, char** argv) {
  std::string platform_path, matcher_name = "optimal", solver_name = "glpk";
  Job job;
  double time_limit = 60.0;
  po::options_description o("Options");
  o.add_options()("platform", po::value(&platform_path)->required()->value_name("FILE"),
                  "platform file ([cluster.NAME] sections, see matching/README.md)")(
      "tasks", po::value(&job.tasks)->default_value(1)->notifier([](int v) {
        cli::require_positive("tasks", v);
      }),
      "t^j: tasks of the job")("pnbw",
                               po::value(&job.pnbw)->default_value(0.0)->notifier(
                                   [](double v) { cli::require_non_negative("pnbw", v); }),
                               "PNBW^j: per-node bandwidth, in the platform's bandwidth unit")(
      "processing", po::value(&job.processing)->default_value(1.0)->notifier([](double v) {
        cli::require_non_negative("processing", v);
      }),
      "T^p: dedicated processing time (s)")(
      "communication", po::value(&job.communication)->default_value(0.0)->notifier([](double v) {
        cli::require_non_negative("communication", v);
      }),
      "T^c: dedicated communication time (s)")(
      "matcher",
      po::value(&matcher_name)->default_value(matcher_name)->notifier([](const std::string& v) {
        cli::require_choice("matcher", v, {"optimal", "non-saturated", "first-feasible"});
      }),
      "optimal | non-saturated | first-feasible")(
      "solver",
      po::value(&solver_name)->default_value(solver_name)->notifier([](const std::string& v) {
        cli::require_choice("solver", v, {"glpk"});
      }),
      "integer-programming solver")(
      "time-limit", po::value(&time_limit)->default_value(time_limit)->notifier([](double v) {
        cli::require_positive_real("time-limit", v);
      }),
      "seconds the solver may take");
  const cli::Parsed parsed = cli::parse(argc, argv, o, "mcb-match --platform FILE [options]");
  if (parsed.help_printed) return 0;
  const Platform platform = read_platform(platform_path, "--platform: ");
  const auto solver = make_solver(solver_name);
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
