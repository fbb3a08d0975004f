// Spread-skill and the other verdict diagnostics for several ensemble sizes and both filters
// from ONE spin-up (the program spins up afresh every run; the background is the same), on one
// process, one CSV row per experiment, for the diagnostics table of apps/ensflow/README.md:
//   ensflow_skill SIZES FILTERS [mcb-ensflow options]      e.g. ensflow_skill 12,24,60
//   stochastic,sqrt
// The free run is off (--no-free-run), so the verdict checks the analyses only. The last
// column is the timed loop's wall time per member-day (forecast and analyses).
#include "apps/ensflow/bench/flow_tool.hpp"
#include "apps/ensflow/experiment.hpp"
#include "apps/ensflow/truth.hpp"
#include "apps/ensflow/verdict.hpp"
#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/text.hpp"

#include <mpi.h>

#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace mcb::ensflow;

namespace {

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> parts;
  std::stringstream in(list);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  return parts;
}

std::vector<int> sizes_of(const std::string& list) {
  std::vector<int> sizes;
  for (const std::string& s : split(list)) {
    const std::optional<long> m = mcb::whole_number(s);
    if (!m || *m < 2 || *m > std::numeric_limits<int>::max())
      throw mcb::UsageError("SIZES: '" + s + "' is not a member count >= 2");
    sizes.push_back(static_cast<int>(*m));
  }
  return sizes;
}

// The filters by the names --filter takes (filter_name), so the tool and the program agree.
std::vector<FilterKind> filters_of(const std::string& list) {
  std::vector<FilterKind> filters;
  for (const std::string& f : split(list)) {
    bool known = false;
    for (const FilterKind kind : {FilterKind::stochastic, FilterKind::square_root}) {
      if (f == filter_name(kind)) {
        filters.push_back(kind);
        known = true;
      }
    }
    if (!known) throw mcb::UsageError("FILTERS: '" + f + "' is not stochastic or sqrt");
  }
  return filters;
}

double check(const Verdict& v, const char* name) {
  const auto& c = v.details["checks"];
  return c.contains(name) ? c[name]["value"].get<double>() : -1;
}

void print_row(const ExperimentSettings& s, const ExperimentOutcome& out, const Verdict& v) {
  std::printf("%d,%s,%g,%g,%g", s.members, filter_name(s.analysis.filter).c_str(),
              s.analysis.localisation_km, s.analysis.relaxation, s.analysis.inflation);
  for (const char* kind : {"forecast", "analysis"}) {
    for (const DiagnosticPoint& p : points_of(out.points, kind))
      std::printf(",%s d%d %.4f/%.4f", kind, p.day, p.rmse, p.spread);
  }
  std::printf(",%.2f,%.2f,%.2f,%.2f,%.2f,%s,%s,%.4f\n", check(v, "spread_skill_forecast"),
              check(v, "spread_skill_analysis"), check(v, "chi_square"),
              check(v, "error_consistency"), check(v, "rank_outer_ratio"),
              v.valid ? "VALID" : "INVALID", v.reason.c_str(),
              out.wall_time / (static_cast<double>(s.members) * s.days));
}

int run(int argc, char** argv) {
  const FlowToolArguments a = parse_flow_tool(argc, argv, {}, {"SIZES", "FILTERS"});
  const std::vector<int> sizes = sizes_of(a.rest[0]);
  const std::vector<FilterKind> filters = filters_of(a.rest[1]);
  ExperimentSettings base = a.settings;
  {
    QgModel model(base.model);
    base.background = std::make_shared<const std::vector<double>>(
        spin_up(model, base.spinup_days, base.spinup_seed));
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf(
      "members,filter,localisation_km,relaxation,inflation,...points,"
      "spread_skill_forecast,spread_skill_analysis,chi_square,desroziers,outer_bins,"
      "verdict,reason,seconds_per_member_day\n");
  for (int m : sizes) {
    for (FilterKind f : filters) {
      ExperimentSettings s = base;
      s.members = m;
      s.analysis.filter = f;
      // --localisation auto means each filter's own default, as mcb-ensflow --filter F gives.
      if (a.localisation_auto) s.analysis.localisation_km = default_localisation_km(f);
      mcb::harness::InstrumentedComm comm(MPI_COMM_SELF, mcb::harness::ClusterMap::single(1),
                                          channel_names());
      const ExperimentOutcome out = run_experiment(s, comm);
      print_row(s, out, judge(out.points, out.innovations, s.free_run, out.reference));
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int code = mcb::cli::run("ensflow_skill", [&] { return run(argc, argv); });
  MPI_Finalize();
  return code;
}
