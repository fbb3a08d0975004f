// Speed of the Poisson solver, measured in one run:
//  - the frozen reference sweep and the tuned sweep on grids far larger than the caches,
//    in lattice-site updates per second;
//  - STREAM triad bandwidth (a = b + s c, 24 bytes per element), the memory roofline of a
//    sweep that moves 24 bytes per site update (read u, read h^2 f, write u). The tuned sweep
//    does: it updates black row j and red row j - 1 in one pass, so each iteration streams u
//    and h^2 f once, the rows in between staying in cache, and writes u back in place;
//  - the ceiling of the sweep's own access pattern: two read streams, one of them written back
//    in place (a = a + s b, 24 bytes per element). The triad writes a third array, whose lines
//    the cache must first read (write-allocate: 32 bytes moved for 24 counted); the sweep
//    writes back lines it has just read, so its pattern may run faster or slower than the
//    triad on a given memory system, and this number says which;
//  - two iterations per pass (sweep_two_tuned, what the solver runs on one process): each
//    pair of iterations streams u and h^2 f once, 12 bytes per site update, so its rate is
//    compared both with the 24-byte roofline above (the one-pass model, the yardstick)
//    and with its own 12-byte one;
//  - the tuned sweep on grids that fit in L3 and in L2, whose speed is the sweep's in-core
//    ceiling (arithmetic, loads and stores with no memory traffic to wait for);
//  - the harness's cost: the whole solver loop instrumented vs uninstrumented.
// Run on one rank for the kernels; `mpirun -np 2 poisson_bench --benchmark_filter=Harness`
// measures the harness cost with real neighbours. The summary at the end prints the ratios.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "apps/poisson/kernels.hpp"
#include "apps/poisson/solver.hpp"

namespace {

using namespace mcb::poisson;

constexpr long kSolverIterations = 100;

LocalProblem big_problem(int n) {
  return LocalProblem::manufactured(Subdomain::of(n, mcb::harness::ProcessGrid(1, 1), 0));
}

void BM_SweepReference(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  LocalProblem p = big_problem(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sweep_both_reference(p.u, p.h2f, p.sub, 1.0));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n) * n);
  state.counters["LUP/s"] =
      benchmark::Counter(static_cast<double>(n) * n, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SweepTuned(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  LocalProblem p = big_problem(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sweep_both_tuned(p.u, p.h2f, p.sub, 1.0));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n) * n);
  state.counters["LUP/s"] =
      benchmark::Counter(static_cast<double>(n) * n, benchmark::Counter::kIsIterationInvariantRate);
}

// Two iterations per pass over memory (sweep_two_tuned, the second always run): the counter
// is per-iteration site updates, 2 N^2 per pass.
void BM_SweepTwoTuned(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  LocalProblem p = big_problem(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sweep_two_tuned(p.u, p.h2f, p.sub, 1.0, -1.0));
  }
  state.SetItemsProcessed(state.iterations() * 2 * static_cast<int64_t>(n) * n);
  state.counters["LUP/s"] =
      benchmark::Counter(2.0 * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_StreamTriad(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  const double s = 3.0;
  for (auto _ : state) {
    double* __restrict pa = a.data();
    const double* __restrict pb = b.data();
    const double* __restrict pc = c.data();
    for (size_t i = 0; i < n; ++i) pa[i] = pb[i] + s * pc[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(n) * 24);
}

// The sweep's access pattern without its arithmetic: read a and b, write a back in place.
void BM_StreamInPlace(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<double> a(n, 0.0), b(n, 1.0);
  const double s = 3.0;
  for (auto _ : state) {
    double* __restrict pa = a.data();
    const double* __restrict pb = b.data();
    for (size_t i = 0; i < n; ++i) pa[i] = pa[i] + s * pb[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(n) * 24);
}

// The whole solver loop (sweeps, four border steps, global error) for a fixed number of
// iterations, with or without the harness's bookkeeping; returns the slowest rank's time.
// Fixed iteration counts keep every rank in step under mpirun.
double timed_solve(int n, bool instrumented) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const mcb::harness::ProcessGrid grid(size, 1);
  const auto map = mcb::harness::ClusterMap::single(size);
  SolverSettings settings;
  settings.tolerance = 1e-300;  // never met: run exactly max_iterations
  settings.max_iterations = kSolverIterations;
  settings.instrumented = instrumented;
  LocalProblem p = LocalProblem::manufactured(Subdomain::of(n, grid, rank));
  HaloExchange halo(p.sub, grid, rank);
  mcb::harness::InstrumentedComm comm(MPI_COMM_WORLD, map, {"top", "bottom", "left", "right"},
                                      instrumented);
  const SolverOutcome out = solve(p, halo, comm, settings);
  double wall = 0;
  MPI_Allreduce(&out.wall_time, &wall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return wall;
}

// The harness's cost: both variants in every iteration, in alternating order, so drift in the
// machine hits both alike; the counter is the ratio of their total times.
void BM_HarnessCost(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  double plain = 0, instrumented = 0;
  bool instrumented_first = false;
  for (auto _ : state) {
    double a = 0, b = 0;
    if (instrumented_first) {
      b = timed_solve(n, true);
      a = timed_solve(n, false);
    } else {
      a = timed_solve(n, false);
      b = timed_solve(n, true);
    }
    instrumented_first = !instrumented_first;
    plain += a;
    instrumented += b;
    state.SetIterationTime(a + b);
  }
  state.counters["instrumented_over_plain"] = instrumented / plain;
  state.counters["LUP/s"] = benchmark::Counter(2.0 * n * n * kSolverIterations,
                                               benchmark::Counter::kIsIterationInvariantRate);
}

// 4096^2 doubles are 128 MiB per field: far beyond the 32 MiB L3 of the machines we run on.
// N = 512 (4 MiB for both fields) stays in L3 and N = 128 (270 KiB) in L2: the sweep's speed
// there is its in-core ceiling, which bounds it whatever the memory system delivers.
BENCHMARK(BM_SweepReference)->Arg(4096)->Arg(512)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepTuned)->Arg(4096)->Arg(512)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepTwoTuned)->Arg(4096)->Arg(512)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamTriad)->Arg(1 << 25)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamInPlace)->Arg(1 << 25)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HarnessCost)
    ->Arg(1024)
    ->UseManualTime()
    ->Iterations(10)
    ->Repetitions(10)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);

// Collects the speed figures (ratios to the reference and to the roofline, harness cost) and
// prints them after the table.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const std::string name = run.benchmark_name();
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") continue;
      if (auto it = run.counters.find("LUP/s"); it != run.counters.end()) {
        // Keyed by family and grid size, "BM_SweepTuned/4096", whatever the name's suffixes.
        const size_t slash = name.find('/');
        const size_t digits = name.find_first_not_of("0123456789", slash + 1);
        figures_[name.substr(0, digits)] = it->second.value;
      }
      if (auto it = run.counters.find("instrumented_over_plain"); it != run.counters.end()) {
        figures_["instrumented_over_plain"] = it->second.value;
      }
      if (name.rfind("BM_StreamTriad", 0) == 0) {
        figures_["triad_bytes_per_second"] = run.counters.at("bytes_per_second").value;
      }
      if (name.rfind("BM_StreamInPlace", 0) == 0) {
        figures_["in_place_bytes_per_second"] = run.counters.at("bytes_per_second").value;
      }
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    const double naive = get("BM_SweepReference/4096"), tuned = get("BM_SweepTuned/4096");
    const double in_l2 = get("BM_SweepTuned/128");
    const double triad = get("triad_bytes_per_second");
    std::printf("\nSummary\n");
    if (naive > 0 && tuned > 0) {
      std::printf("  tuned / reference sweep: %.2fx (%.3g vs %.3g LUP/s)\n", tuned / naive, tuned,
                  naive);
    }
    if (triad > 0 && tuned > 0) {
      const double roofline = triad / 24.0;
      std::printf("  memory roofline: triad %.3g GB/s / 24 B = %.3g LUP/s; tuned reaches %.0f%%\n",
                  triad / 1e9, roofline, 100.0 * tuned / roofline);
    }
    if (const double in_place = get("in_place_bytes_per_second"); in_place > 0 && tuned > 0) {
      const double ceiling = in_place / 24.0;
      std::printf(
          "  sweep pattern ceiling: 2 reads + 1 in-place write %.3g GB/s / 24 B = %.3g "
          "LUP/s; tuned reaches %.0f%%%s\n",
          in_place / 1e9, ceiling, 100.0 * tuned / ceiling,
          triad > 0
              ? (" (" + std::to_string(std::lround(100.0 * in_place / triad)) + "% of the triad)")
                    .c_str()
              : "");
    }
    if (in_l2 > 0 && tuned > 0) {
      std::printf(
          "  in-core ceiling: tuned sweep with its fields in L2 (N = 128) %.3g LUP/s; at N = "
          "4096 it reaches %.0f%% of it\n",
          in_l2, 100.0 * tuned / in_l2);
    }
    print_two_per_pass(naive, triad);
    if (const double ratio = get("instrumented_over_plain"); ratio > 0) {
      std::printf(
          "  harness cost (median of 10, interleaved): instrumented run takes %+.2f%% "
          "time against uninstrumented\n",
          100.0 * (ratio - 1.0));
    }
  }

 private:
  double get(const char* key) const {
    auto it = figures_.find(key);
    return it == figures_.end() ? 0.0 : it->second;
  }
  // Two iterations per pass, in per-iteration site updates: against the reference, against
  // the roofline under both traffic models, and against its own in-core ceiling.
  void print_two_per_pass(double naive, double triad) const {
    const double two = get("BM_SweepTwoTuned/4096"), in_l2 = get("BM_SweepTwoTuned/128");
    if (two <= 0) return;
    std::printf("  two iterations per pass (N = 4096): %.3g LUP/s per iteration\n", two);
    if (naive > 0) std::printf("    / reference sweep: %.2fx\n", two / naive);
    if (triad > 0) {
      std::printf(
          "    roofline, one-pass model (24 B per site update, triad / 24 = %.3g LUP/s): %.0f%%\n",
          triad / 24.0, 100.0 * two * 24.0 / triad);
      std::printf(
          "    roofline, its own traffic (12 B per site update, triad / 12 = %.3g LUP/s): %.0f%%\n",
          triad / 12.0, 100.0 * two * 12.0 / triad);
    }
    if (in_l2 > 0) {
      std::printf(
          "    in-core ceiling: the same kernel in L2 (N = 128) %.3g LUP/s; reaches %.0f%%\n",
          in_l2, 100.0 * two / in_l2);
    }
  }

  std::map<std::string, double> figures_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  benchmark::Initialize(&argc, argv);
  if (rank == 0) {
    SummaryReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    // Other ranks take part in the MPI benchmarks and report nothing.
    benchmark::BenchmarkReporter* silent = nullptr;
    class Silent : public benchmark::BenchmarkReporter {
     public:
      bool ReportContext(const Context&) override { return true; }
      void ReportRuns(const std::vector<Run>&) override {}
    } quiet;
    silent = &quiet;
    benchmark::RunSpecifiedBenchmarks(silent);
  }
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
