// Speed of Ensflow's two kinds of work, on one process:
//  - one model day of one member (the forecast, M x D of them per run), at the default grid
//    and at larger grids (the cost per member a real study would choose);
//  - one whole analysis (observe, gather or halo, transform, transpose, apply, update, restore,
//    in the layout the program picks: ensemble.hpp) at the default size, and its scaling with
//    the ensemble size M and the observation count m;
//  - the two parts of the analysis that carry its scaling: the ensemble transform
//    (O(m M^2 + M^3)) and the row update X T (O(n M^2)).
// The summary at the end prints the per-day and per-analysis times, the share of the analysis
// in a whole default run, and the measured scaling exponents.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "apps/ensflow/enkf.hpp"
#include "apps/ensflow/ensemble.hpp"
#include "apps/ensflow/experiment.hpp"
#include "apps/ensflow/layout.hpp"
#include "apps/ensflow/model.hpp"
#include "apps/ensflow/observations.hpp"
#include "apps/ensflow/random.hpp"
#include "apps/ensflow/settings.hpp"

namespace {

using namespace mcb::ensflow;

ExperimentSettings default_settings(int grid = 63) {
  ExperimentSettings s;  // the program's defaults
  s.model.grid = grid;
  s.model.viscosity = resolving_viscosity(s.model);
  s.model.steps_per_day = stable_steps_per_day(s.model);
  return s;
}

// A spun-up-like state: a smooth random field on top of 20 days of wind-driven flow.
std::vector<double> developed_state(const ExperimentSettings& s, QgModel& model) {
  std::vector<double> q(model.size(), 0.0);
  for (int day = 0; day < 20; ++day) model.advance_day(q.data());
  PerturbationField field(s.model, s.initial_spread_m, s.initial_length_km);
  KeyedStream stream(1, StreamPurpose::truth_perturbation);
  std::vector<double> dq(model.size());
  field.draw(stream, model, dq.data());
  for (std::size_t c = 0; c < q.size(); ++c) q[c] += dq[c];
  return q;
}

void BM_ModelDay(benchmark::State& state) {
  const ExperimentSettings s = default_settings(static_cast<int>(state.range(0)));
  QgModel model(s.model);
  std::vector<double> q = developed_state(s, model);
  for (auto _ : state) {
    model.advance_day(q.data());
    benchmark::DoNotOptimize(q.data());
  }
  state.counters["steps_per_day"] = s.model.steps_per_day;
  state.counters["points"] = static_cast<double>(model.size());
}

// One analysis of M members with m observations on one process (the exchanges are then
// local copies), the ensemble restarted from the same forecast every iteration.
// range(2), when given, picks the update: 0 the global transform (stochastic), 1 the
// Gaspari-Cohn localised stochastic filter (the default), 2 the local square-root filter (LETKF).
void BM_Analysis(benchmark::State& state) {
  ExperimentSettings s = default_settings();
  s.members = static_cast<int>(state.range(0));
  s.observations = static_cast<std::size_t>(state.range(1));
  if (state.range(2) == 0) s.analysis.localisation_km = 0;
  if (state.range(2) == 2) s.analysis.filter = FilterKind::square_root;
  QgModel model(s.model);
  const std::vector<double> background = developed_state(s, model);
  PerturbationField field(s.model, s.initial_spread_m, s.initial_length_km);
  const ObservationNetwork network(s.model, s.observations, s.analysis.observation_variance,
                                   s.truth_seed);
  const EnsembleLayout layout = analysis_layout(s, 1);
  mcb::harness::InstrumentedComm comm(MPI_COMM_SELF, mcb::harness::ClusterMap::single(1),
                                      channel_names());
  Ensemble ensemble(s, layout, 0, network);
  std::vector<double> truth_psi(model.size());
  model.invert(background.data(), truth_psi.data());
  const Eigen::VectorXd y = network.synthetic(truth_psi.data(), s.truth_seed, 0);
  PhaseTimes times;
  for (auto _ : state) {
    state.PauseTiming();
    ensemble.start(background, model, field);
    Diagnostics diagnostics(layout, 0, s.model.ssh_per_streamfunction(), model.layer_size());
    mcb::harness::CommTimeline timeline(false);
    state.ResumeTiming();
    ensemble.analyse(s.analysis_every, y, truth_psi.data(), model, comm, times, timeline,
                     diagnostics);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["observe_ms"] = 1e3 * times.observe / n;
  state.counters["transform_ms"] = 1e3 * times.transform / n;
  state.counters["apply_ms"] = 1e3 * times.apply / n;
  state.counters["restore_ms"] = 1e3 * times.restore / n;
}

void BM_Transform(benchmark::State& state) {
  const int members = static_cast<int>(state.range(0));
  const auto m = static_cast<Eigen::Index>(state.range(1));
  KeyedStream stream(2, StreamPurpose::member_perturbation);
  Eigen::MatrixXd hx(m, members), e(m, members);
  Eigen::VectorXd y(m);
  for (Eigen::Index c = 0; c < hx.size(); ++c) hx.data()[c] = stream.normal();
  for (Eigen::Index c = 0; c < e.size(); ++c) e.data()[c] = 0.1 * stream.normal();
  for (Eigen::Index c = 0; c < y.size(); ++c) y[c] = stream.normal();
  AnalysisSettings settings;
  settings.observation_variance = 0.01;
  for (auto _ : state) benchmark::DoNotOptimize(ensemble_transform(hx, y, e, settings).data());
}

// X^a = X^f T for every row of the default state, in the program's fixed row blocks.
void BM_Apply(benchmark::State& state) {
  const int members = static_cast<int>(state.range(0));
  const ExperimentSettings s = default_settings();
  const auto n =
      static_cast<Eigen::Index>(s.model.layers()) * static_cast<Eigen::Index>(s.model.points());
  const Eigen::MatrixXd x = Eigen::MatrixXd::Random(n, members);
  const Eigen::MatrixXd t = Eigen::MatrixXd::Random(members, members);
  Eigen::MatrixXd xa(n, members);
  for (auto _ : state) {
    for (Eigen::Index b = 0; b < n; b += static_cast<Eigen::Index>(kBlockRows)) {
      const Eigen::Index len = std::min<Eigen::Index>(static_cast<Eigen::Index>(kBlockRows), n - b);
      xa.middleRows(b, len).noalias() = x.middleRows(b, len) * t;
    }
    benchmark::DoNotOptimize(xa.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * static_cast<double>(n) * members * members * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_ModelDay)
    ->Arg(31)
    ->Arg(47)
    ->Arg(63)
    ->Arg(127)
    ->Arg(255)
    ->Arg(511)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Analysis)
    ->Args({60, 200, 1})
    ->Args({20, 200, 1})
    ->Args({120, 200, 1})
    ->Args({240, 200, 1})
    ->Args({60, 50, 1})
    ->Args({60, 800, 1})
    ->Args({60, 3200, 1})
    ->Args({60, 200, 0})
    ->Args({60, 200, 2})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Transform)
    ->Args({60, 200})
    ->Args({20, 200})
    ->Args({120, 200})
    ->Args({240, 200})
    ->Args({60, 50})
    ->Args({60, 800})
    ->Args({60, 3200})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Apply)->Arg(20)->Arg(60)->Arg(120)->Arg(240)->Unit(benchmark::kMillisecond);

// Collects CPU times (seconds) by benchmark name and prints the summary: the cost of a model day
// and of an analysis, the analysis share of a run and how it scales. CPU time, not real time:
// on a machine shared with other work the real time of a one-process
// benchmark measures the other work too; the programs' own records carry real times.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") continue;
      std::string name = run.benchmark_name();
      if (const auto cut = name.find("_median"); cut != std::string::npos) name.resize(cut);
      seconds_[name] = run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto get = [&](const std::string& key) {
      const auto it = seconds_.find(key);
      return it == seconds_.end() ? 0.0 : it->second;
    };
    const ExperimentSettings s = default_settings();
    const double day = get("BM_ModelDay/63");
    const double analysis = get("BM_Analysis/60/200/1");
    std::printf("\nSummary (one process, CPU time)\n");
    if (day > 0)
      std::printf("  one model day of one member, %dx%d grid: %.3g ms\n", s.model.grid,
                  s.model.grid, 1e3 * day);
    for (int g : {127, 255, 511}) {
      const double t = get("BM_ModelDay/" + std::to_string(g));
      if (t > 0) std::printf("  one model day of one member, %dx%d grid: %.3g ms\n", g, g, 1e3 * t);
    }
    if (analysis > 0)
      std::printf("  one analysis, M = %d, m = %zu: %.3g ms\n", s.members, s.observations,
                  1e3 * analysis);
    if (day > 0 && analysis > 0) {
      const double forecast = day * s.members * s.days;
      const double analyses = analysis * s.analyses();
      std::printf(
          "  default run (M = %d, D = %d, %d analyses): forecast %.3g s + analyses %.3g s; "
          "analysis share %.2f%%\n",
          s.members, s.days, s.analyses(), forecast, analyses,
          100 * analyses / (forecast + analyses));
    }
    auto slope = [&](const std::string& a, double xa, const std::string& b, double xb) {
      const double ta = get(a), tb = get(b);
      return ta > 0 && tb > 0 ? std::log(tb / ta) / std::log(xb / xa) : 0.0;
    };
    std::printf(
        "  analysis time ~ M^%.2f (M 20 -> 240, m = 200), ~ m^%.2f (m 50 -> 3200, M = 60)\n",
        slope("BM_Analysis/20/200/1", 20, "BM_Analysis/240/200/1", 240),
        slope("BM_Analysis/60/50/1", 50, "BM_Analysis/60/3200/1", 3200));
    std::printf("  transform   ~ M^%.2f, ~ m^%.2f;  row update X T ~ M^%.2f\n",
                slope("BM_Transform/20/200", 20, "BM_Transform/240/200", 240),
                slope("BM_Transform/60/50", 50, "BM_Transform/60/3200", 3200),
                slope("BM_Apply/20", 20, "BM_Apply/240", 240));
  }

 private:
  std::map<std::string, double> seconds_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
