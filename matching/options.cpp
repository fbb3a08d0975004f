#include "matching/options.hpp"

#include "common/cli.hpp"
#include "common/files.hpp"

#include <cstdint>

namespace mcb::matching {

namespace po = boost::program_options;

bool parse_match_options(int argc, const char* const* argv, MatchOptions& m) {
  Job& job = m.job;
  po::options_description o("Options");
  o.add_options()("platform", po::value(&m.platform)->required()->value_name("FILE"),
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
      po::value(&m.matcher)->default_value(m.matcher)->notifier([](const std::string& v) {
        cli::require_choice("matcher", v, {"optimal", "non-saturated", "first-feasible"});
      }),
      "optimal | non-saturated | first-feasible")(
      "solver", po::value(&m.solver)->default_value(m.solver)->notifier([](const std::string& v) {
        cli::require_choice("solver", v, {"glpk"});
      }),
      "integer-programming solver")(
      "time-limit", po::value(&m.time_limit)->default_value(m.time_limit)->notifier([](double v) {
        cli::require_positive_real("time-limit", v);
      }),
      "seconds the solver may take");
  return !cli::parse(argc, argv, o, "mcb-match --platform FILE [options]").help_printed;
}

bool parse_match_study_options(int argc, const char* const* argv, MatchStudyOptions& s) {
  StudyConfig& c = s.config;
  std::int64_t seed_option = 1;  // signed, so that '-1' is refused rather than wrapped
  po::options_description o("Options");
  o.add_options()("output", po::value(&s.output)->required()->value_name("DIR"),
                  "folder for the outputs")(
      "seed", po::value(&seed_option)->default_value(1)->notifier([](std::int64_t v) {
        cli::require_non_negative("seed", static_cast<double>(v));
      }),
      "seed of the platforms")(
      "replications",
      po::value(&c.replications)->default_value(c.replications)->notifier([](int v) {
        cli::require_positive("replications", v);
      }),
      "platforms per point")(
      "time-limit", po::value(&c.time_limit)->default_value(c.time_limit)->notifier([](double v) {
        cli::require_positive_real("time-limit", v);
      }),
      "seconds per match")("tasks",
                           po::value(&c.tasks)->default_value(c.tasks)->notifier(
                               [](int v) { cli::require_positive("tasks", v); }),
                           "tasks of the job");
  if (cli::parse(argc, argv, o, "mcb-match-study --output DIR [options]").help_printed) {
    return false;
  }
  c.seed = static_cast<std::uint64_t>(seed_option);
  check_creatable_folder("output", s.output);
  return true;
}

}  // namespace mcb::matching
