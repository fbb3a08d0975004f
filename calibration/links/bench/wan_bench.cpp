// Speed and accuracy of the harness's communication, measured in one run on 2 ranks:
//  - plain MPI ping-pong bandwidth (2N bytes per round trip) at message size N;
//  - the Poisson border exchange through InstrumentedComm, instrumented, no emulation, at the
//    same message size: rows (sent straight from the field) and columns (packed), bandwidth
//    2N bytes per exchange (each of the two ranks sends one border);
//  - an emulated wide-area link (1 ms, 100 Mbit/s): one-way time against latency + N / B.
// Run: mpirun -np 2 build/bin/wan_bench. The summary at the end prints the ratios.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include "apps/poisson/halo.hpp"
#include "harness/wide_area.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace mcb;

std::shared_ptr<harness::WideArea> g_wide;  // the emulated link, made once in main
const harness::LinkParameters kLink{1e-3, 100e6 / 8};

int rank_of() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

bool two_ranks(benchmark::State& state) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) state.SkipWithError("run with mpirun -np 2");
  return size == 2;
}

// Seconds of the slowest rank.
double slowest(double seconds) {
  double max = 0;
  MPI_Allreduce(&seconds, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return max;
}

void BM_PingPong(benchmark::State& state) {
  if (!two_ranks(state)) return;
  const auto bytes = static_cast<size_t>(state.range(0));
  std::vector<char> buffer(bytes, 1);
  const int rank = rank_of();
  constexpr int kRounds = 200;
  for (auto _ : state) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < kRounds; ++i) {
      if (rank == 0) {
        MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    state.SetIterationTime(slowest(MPI_Wtime() - start) / kRounds);
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      2.0 * static_cast<double>(bytes), benchmark::Counter::kIsIterationInvariantRate);
}

// The exchange on a 1x2 grid moves rows (contiguous), on a 2x1 grid columns (packed).
void border_exchange(benchmark::State& state, bool rows) {
  if (!two_ranks(state)) return;
  const int rank = rank_of();
  const int points = static_cast<int>(state.range(0) / 8);
  const harness::ProcessGrid grid = rows ? harness::ProcessGrid(1, 2) : harness::ProcessGrid(2, 1);
  poisson::Subdomain sub;
  sub.n = points;
  sub.nx = rows ? points : 2;
  sub.ny = rows ? 2 : points;
  sub.h = 1.0 / (points + 1);
  poisson::Field u(sub.nx, sub.ny);
  poisson::HaloExchange halo(sub, grid, rank);
  harness::InstrumentedComm comm(MPI_COMM_WORLD, harness::ClusterMap::single(2),
                                 {"top", "bottom", "left", "right"}, true);
  constexpr int kRounds = 200;
  for (auto _ : state) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < kRounds; ++i) halo.exchange_all(comm, u);
    state.SetIterationTime(slowest(MPI_Wtime() - start) / kRounds);
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      2.0 * 8 * points, benchmark::Counter::kIsIterationInvariantRate);
}
void BM_BorderExchangeRows(benchmark::State& state) { border_exchange(state, true); }
void BM_BorderExchangeColumns(benchmark::State& state) { border_exchange(state, false); }

void BM_EmulatedLink(benchmark::State& state) {
  if (!two_ranks(state)) return;
  const auto bytes = static_cast<size_t>(state.range(0));
  std::vector<char> buffer(bytes, 1);
  const int rank = rank_of();
  harness::InstrumentedComm comm(MPI_COMM_WORLD, harness::ClusterMap::blocks(2, 2), {"link"}, true,
                                 g_wide);
  for (auto _ : state) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    if (rank == 0) {
      comm.send(0, buffer.data(), bytes, 1, 0);
      comm.recv(0, buffer.data(), bytes, 1, 0);
    } else {
      comm.recv(0, buffer.data(), bytes, 0, 0);
      comm.send(0, buffer.data(), bytes, 0, 0);
    }
    state.SetIterationTime(slowest(MPI_Wtime() - start) / 2);  // one way
  }
  state.counters["expected_s"] = kLink.transfer_time(static_cast<double>(bytes));
}

void sizes(benchmark::internal::Benchmark* b) {
  for (long n : {1024L, 8192L, 65536L, 524288L}) b->Arg(n);
}

BENCHMARK(BM_PingPong)->Apply(sizes)->UseManualTime()->Iterations(5)->Repetitions(5)
    ->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BorderExchangeRows)->Apply(sizes)->UseManualTime()->Iterations(5)->Repetitions(5)
    ->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BorderExchangeColumns)->Apply(sizes)->UseManualTime()->Iterations(5)->Repetitions(5)
    ->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EmulatedLink)->RangeMultiplier(16)->Range(1, 4 << 20)->UseManualTime()
    ->Iterations(3)->Repetitions(3)->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond);

// Collects the figures the goals are stated in and prints them after the table.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Aggregate || run.aggregate_name != "median") continue;
      const std::string name = run.benchmark_name();
      const std::string family = name.substr(0, name.find('/'));
      const long bytes = std::stol(name.substr(name.find('/') + 1));
      if (auto it = run.counters.find("bytes_per_second"); it != run.counters.end()) {
        rates_[family][bytes] = it->second.value;
      }
      if (auto it = run.counters.find("expected_s"); it != run.counters.end()) {
        emulated_[bytes] = {run.GetAdjustedRealTime() * 1e-6, it->second.value};
      }
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nSummary (medians)\n");
    for (const auto& [bytes, pingpong] : rates_["BM_PingPong"]) {
      const double rows = rates_["BM_BorderExchangeRows"][bytes];
      const double columns = rates_["BM_BorderExchangeColumns"][bytes];
      std::printf("  %7ld B: ping-pong %8.3g GB/s; border exchange rows %8.3g GB/s (%3.0f%%), "
                  "columns %8.3g GB/s (%3.0f%%)\n",
                  bytes, pingpong / 1e9, rows / 1e9, 100 * rows / pingpong, columns / 1e9,
                  100 * columns / pingpong);
    }
    for (const auto& [bytes, times] : emulated_) {
      std::printf("  emulated link %8ld B: one-way %10.1f us, latency + N/B %10.1f us, off by %+.1f%%\n",
                  bytes, times.first * 1e6, times.second * 1e6, 100 * (times.first / times.second - 1));
    }
  }

 private:
  std::map<std::string, std::map<long, double>> rates_;
  std::map<long, std::pair<double, double>> emulated_;
};

class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_wide = harness::WideArea::create(MPI_COMM_WORLD, harness::ClusterMap::blocks(size, size > 1 ? 2 : 1),
                                     harness::LinkTable::uniform(size > 1 ? 2 : 1, kLink), false);
  benchmark::Initialize(&argc, argv);
  if (rank_of() == 0) {
    SummaryReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    Silent quiet;
    benchmark::RunSpecifiedBenchmarks(&quiet);
  }
  benchmark::Shutdown();
  g_wide.reset();
  MPI_Finalize();
  return 0;
}
