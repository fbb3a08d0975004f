// Simulator throughput: jobs simulated per CPU second with FCFS, EASY and conservative
// backfilling, on the DAS2-fs1 trace (skipped without it) and on a synthetic workload of up to a
// million jobs, and peak memory (getrusage). Each benchmark is one whole run, as mcb-sim does it
// (checking pass included for traces); the second argument of the synthetic runs writes the
// per-job CSV (jobs.csv) into a temporary file, as mcb-sim does by default.
#include "simulator/options.hpp"
#include "simulator/study.hpp"

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using mcb::sim::Options;
using mcb::sim::Study;

const std::string kSource = MCB_SOURCE_DIR;

std::string trace_path() {
  if (const char* env = std::getenv("MCB_DAS2_TRACE")) return env;
  return kSource + "/../shared/traces/DAS2-fs1-2003-1.swf";
}

std::vector<std::string> tables() {
  if (fs::exists(kSource + "/calibration/das2/runtimes.csv"))
    return {kSource + "/calibration/das2"};
  const std::string ref = kSource + "/tests/fixtures/simulator/das2-study/";
  return {ref + "poisson_sim_service_times.csv", ref + "ensflow_sim_service_times.csv"};
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

void run_study(benchmark::State& state, const Options& o, bool jobs_csv = false) {
  std::uint64_t jobs = 0, in_system = 0;
  const fs::path csv_path = fs::temp_directory_path() / "mcb-sim-bench-jobs.csv";
  for (auto _ : state) {
    const Study study = Study::build(o);
    std::ofstream csv;
    if (jobs_csv) csv.open(csv_path);
    const auto result = study.run_item(0, jobs_csv ? &csv : nullptr);
    jobs = result["summary"]["jobs"]["arrived"].get<std::uint64_t>();
    in_system = result["summary"]["jobs"]["max_in_system"].get<std::uint64_t>();
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(static_cast<int64_t>(jobs * state.iterations()));
  state.counters["jobs"] = static_cast<double>(jobs);
  state.counters["max_in_system"] = static_cast<double>(in_system);
  state.counters["peak_rss_MB"] = peak_rss_mb();
  if (jobs_csv) {
    state.counters["jobs_csv_MB"] = static_cast<double>(fs::file_size(csv_path)) / 1e6;
    fs::remove(csv_path);
  }
}

void BM_Das2Trace(benchmark::State& state, const char* queue) {
  if (!fs::exists(trace_path())) {
    state.SkipWithError(("no trace at " + trace_path() + " (set MCB_DAS2_TRACE)").c_str());
    return;
  }
  Options o;
  o.trace = trace_path();
  o.clusters = "64";  // the trace's one cluster of 64 processors
  o.queue = queue;
  o.output = fs::temp_directory_path().string();
  run_study(state, o);
}

void BM_Synthetic(benchmark::State& state, const char* queue) {
  Options o;
  o.workload = "mixed";
  o.tables = tables();
  o.rule = "rco";
  o.policy = "gs";
  o.queue = queue;
  o.utilization = "0.6";
  o.jobs = state.range(0);
  o.output = fs::temp_directory_path().string();
  run_study(state, o, state.range(1) != 0);
}

}  // namespace

BENCHMARK_CAPTURE(BM_Das2Trace, fcfs, "fcfs")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_Das2Trace, easy, "easy")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_Das2Trace, cons, "cons")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_Synthetic, fcfs, "fcfs")
    ->ArgNames({"jobs", "jobs_csv"})
    ->Args({100000, 1})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Synthetic, easy, "easy")
    ->ArgNames({"jobs", "jobs_csv"})
    ->Args({100000, 1})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Synthetic, cons, "cons")
    ->ArgNames({"jobs", "jobs_csv"})
    ->Args({100000, 1})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_MAIN();
