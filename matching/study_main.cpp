/// @file
/// @brief mcb-match-study: the experiment of seed 002's Figs. 5-8 (matching/study.hpp). Writes
/// DIR/matches.csv (one row per match) and DIR/study.json (configuration, environment, counts,
/// verdict); prints one line ending VALID when every match found passed its check.
#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/environment.hpp"
#include "common/output_set.hpp"
#include "matching/options.hpp"
#include "matching/report.hpp"
#include "matching/study.hpp"

#include <chrono>
#include <iostream>

namespace {

namespace cli = mcb::cli;
namespace csv = mcb::csv;
using namespace mcb::matching;

const std::vector<std::string> kHeader{"figure",         "clusters",    "nodes_per_cluster",
                                       "nodes",          "links",       "pnbw",
                                       "local_activity", "replication", "seed",
                                       "matcher",        "status",      "hit_time_limit",
                                       "valid",          "sp",          "sc",
                                       "time",           "saturated",   "seconds",
                                       "cpu_seconds",    "variables",   "constraints"};

std::vector<std::string> row(const StudyPoint& p, int r, std::uint64_t seed, const MatchResult& m) {
  const bool f = m.found();
  auto opt = [&](double v) { return f ? csv::number(v) : std::string(); };
  return {p.figure,
          std::to_string(p.clusters),
          std::to_string(p.nodes_per_cluster),
          std::to_string(p.clusters * p.nodes_per_cluster),
          std::to_string(p.clusters),
          csv::number(p.pnbw),
          csv::number(p.local_activity),
          std::to_string(r),
          std::to_string(seed),
          std::string(to_string(m.matcher)),
          std::string(to_string(m.status)),
          m.hit_time_limit ? "1" : "0",
          f ? (m.valid ? "1" : "0") : "",
          opt(m.prediction.processing_slowdown),
          opt(m.prediction.communication_slowdown),
          opt(m.prediction.time),
          f ? (m.prediction.saturated ? "1" : "0") : "",
          csv::number(m.seconds),
          csv::number(m.cpu_seconds),
          std::to_string(m.variables),
          std::to_string(m.constraints)};
}

int body(int argc, char** argv) {
  MatchStudyOptions options;
  if (!parse_match_study_options(argc, argv, options)) return 0;
  const StudyConfig& c = options.config;
  const std::string& output = options.output;
  const auto solver = make_solver("glpk");
  csv::Writer table(kHeader);
  int found = 0, invalid = 0, infeasible = 0, limited = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto points = study_points();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const StudyPoint& p = points[i];
    for (int r = 0; r < c.replications; ++r) {
      const std::uint64_t seed = replication_seed(c.seed, i, r);
      const Platform platform = study_platform(p, c, seed);
      for (Matcher m : p.matchers) {
        const MatchResult res =
            match(platform, study_job(c, p.pnbw), m, *solver, {c.time_limit, false});
        found += res.found();
        invalid += res.found() && !res.valid;
        infeasible += res.status == MipStatus::kInfeasible;
        limited += res.hit_time_limit;
        table.row(row(p, r, seed, res));
      }
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string v = invalid == 0 ? "VALID" : "INVALID";
  nlohmann::json doc{{"study", "seed 002 Figs. 5-8"},
                     {"config",
                      {{"tasks", c.tasks},
                       {"comm_share", c.comm_share},
                       {"link_max", c.link_max},
                       {"consumed_share", c.consumed_share},
                       {"local_availability", c.local_availability},
                       {"replications", c.replications},
                       {"seed", c.seed},
                       {"time_limit", c.time_limit},
                       {"solver", solver->name()}}},
                     {"matches", table.rows()},
                     {"found", found},
                     {"invalid", invalid},
                     {"infeasible", infeasible},
                     {"hit_time_limit", limited},
                     {"wall_seconds", wall},
                     {"verdict", v},
                     {"env", mcb::environment_block(argc, argv)}};
  mcb::OutputSet outputs(output, {"matches.csv", "study.json"});
  outputs.write("matches.csv", table.text());
  outputs.write("study.json", doc.dump(2) + "\n");
  outputs.commit();
  std::cout << "mcb-match-study: " << table.rows() << " matches, " << found << " found, "
            << infeasible << " infeasible, " << limited << " at the time limit, " << wall
            << " s: " << v << '\n';
  return invalid == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return cli::run("mcb-match-study", [&] { return body(argc, argv); });
}
