// Solver time per match (GLPK) against the number of inter-cluster links (clusters) and nodes
// per cluster, for the three matchers, on the study's platforms (matching/study.hpp: LA 25%,
// links' consumed bandwidth drawn with seed 1) with PNBW 0.5. Two job sizes: the study's 12
// tasks, and half the platform's nodes. Wall time (Time: what a scheduler waits for) and CPU
// time (CPU: the solver's own cost, which other work on a shared machine does not inflate).
//
//   build/bin/mcb-match-bench [--benchmark_filter=...]
#include "matching/matcher.hpp"
#include "matching/study.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace mcb::matching;

void match_bench(benchmark::State& state, Matcher matcher) {
  StudyPoint point;
  point.clusters = static_cast<int>(state.range(0));
  point.nodes_per_cluster = static_cast<int>(state.range(1));
  point.pnbw = 0.5;
  point.local_activity = 0.25;
  StudyConfig config;
  config.tasks = state.range(2) > 0 ? static_cast<int>(state.range(2))
                                    : point.clusters * point.nodes_per_cluster / 2;
  config.time_limit = 60.0;  // the paper's threshold of affordability (section 4.1)
  const Platform platform = study_platform(point, config, 1);
  const Job job = study_job(config, point.pnbw);
  const auto solver = make_solver("glpk");
  MatchResult r;
  for (auto _ : state) {
    r = match(platform, job, matcher, *solver, {config.time_limit, false});
    benchmark::DoNotOptimize(r.prediction.time);
  }
  state.counters["nodes"] = point.clusters * point.nodes_per_cluster;
  state.counters["tasks"] = job.tasks;
  state.counters["found"] = r.found();
  state.counters["time_limit"] = r.hit_time_limit;
  state.counters["variables"] = r.variables;
  state.counters["constraints"] = r.constraints;
  if (r.found() && !r.valid) state.SkipWithError(("invalid match: " + r.check).c_str());
}

// (clusters, nodes per cluster, tasks; 0: half the nodes)
void shapes(benchmark::internal::Benchmark* b) {
  for (int links : {2, 4, 8, 16, 32, 64, 128, 256}) b->Args({links, 8, 12});
  for (int per : {8, 16, 32, 64, 128, 256}) b->Args({4, per, 12});
  for (int links : {2, 4, 8, 16, 32, 64}) b->Args({links, 8, 0});
  for (int per : {8, 16, 32, 64, 128}) b->Args({4, per, 0});
  b->ArgNames({"links", "per_cluster", "tasks"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK_CAPTURE(match_bench, optimal, Matcher::kOptimal)->Apply(shapes);
BENCHMARK_CAPTURE(match_bench, non_saturated, Matcher::kNonSaturated)->Apply(shapes);
BENCHMARK_CAPTURE(match_bench, first_feasible, Matcher::kFirstFeasible)->Apply(shapes);

}  // namespace

BENCHMARK_MAIN();
