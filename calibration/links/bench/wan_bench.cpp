// Speed and accuracy of the harness's communication, measured in one run on 2 ranks:
//  - the Poisson border exchange through InstrumentedComm, instrumented, no emulation, against
//    a plain MPI ping-pong at the same message size N, interleaved in alternating order in
//    every iteration, the ratio taken per iteration and its median reported: rows (sent
//    straight from the field) and columns (staged by the sweep); 2N bytes per round each;
//  - an emulated wide-area link (1 ms, 100 Mbit/s): one-way time against latency + N / B.
// Run: mpirun -np 2 build/bin/wan_bench. The summary at the end prints the ratios.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include "apps/poisson/halo.hpp"
#include "harness/wide_area.hpp"

#include <algorithm>
#include <array>
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

// The median of a non-empty sample (the upper one of an even count).
double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + static_cast<long>(values.size() / 2),
                   values.end());
  return values[values.size() / 2];
}

// One ping-pong round trip of `bytes` between ranks 0 and 1 with plain MPI.
void ping_pong_round(std::vector<char>& buffer, int rank) {
  const int count = static_cast<int>(buffer.size());
  if (rank == 0) {
    MPI_Send(buffer.data(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buffer.data(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buffer.data(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buffer.data(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  }
}

// Ping-pong and border exchange at one message size, in blocks of kRounds rounds, both in
// every iteration and in alternating order, so that the host's drift (other work on a shared
// host) hits both alike. Each moves 2N bytes per round (one border each way). The exchange on
// a 1x2 grid moves rows (straight from the field), on a 2x1 grid columns (staged in contiguous
// buffers by the solver's sweep, as mcb-poisson's paper mode does). The exchange uses persistent
// requests (its default over plain MPI); the "Posted" variants post every message afresh, for
// comparison. Manual time: the exchange's; counters: both bandwidths at their median block
// time and the median over the iterations of their ratio, which one descheduled block cannot
// move as it moves a sum.
void border_exchange_vs_ping_pong(benchmark::State& state, bool rows, bool persistent) {
  if (!two_ranks(state)) return;
  const int rank = rank_of();
  const auto bytes = static_cast<size_t>(state.range(0));
  const int points = static_cast<int>(bytes / 8);
  const harness::ProcessGrid grid = rows ? harness::ProcessGrid(1, 2) : harness::ProcessGrid(2, 1);
  poisson::Subdomain sub;
  sub.n = points;
  sub.nx = rows ? points : 2;
  sub.ny = rows ? 2 : points;
  sub.h = 1.0 / (points + 1);
  poisson::Field u(sub.nx, sub.ny);
  poisson::HaloExchange halo(sub, grid, rank);
  halo.set_persistent(persistent);
  harness::InstrumentedComm comm(MPI_COMM_WORLD, harness::ClusterMap::single(2),
                                 {"top", "bottom", "left", "right"}, true);
  if (!rows) halo.stage_columns(u);
  std::vector<char> buffer(bytes, 1);
  constexpr int kRounds = 50;
  auto time_ping_pong = [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < kRounds; ++i) ping_pong_round(buffer, rank);
    return slowest(MPI_Wtime() - start) / kRounds;
  };
  auto time_exchange = [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < kRounds; ++i) {
      if (rows) {
        halo.exchange_all(comm, u);
      } else {
        halo.exchange_staged(comm, u);
      }
    }
    return slowest(MPI_Wtime() - start) / kRounds;
  };
  std::vector<double> exchanges, ping_pongs, ratios;
  bool exchange_first = false;
  for (auto _ : state) {
    double exchange = 0, ping_pong = 0;
    if (exchange_first) {
      exchange = time_exchange();
      ping_pong = time_ping_pong();
    } else {
      ping_pong = time_ping_pong();
      exchange = time_exchange();
    }
    exchange_first = !exchange_first;
    state.SetIterationTime(exchange);
    exchanges.push_back(exchange);
    ping_pongs.push_back(ping_pong);
    ratios.push_back(ping_pong / exchange);
  }
  const double moved = 2.0 * static_cast<double>(bytes);
  state.counters["ping_pong_Bps"] = moved / median(ping_pongs);
  state.counters["exchange_Bps"] = moved / median(exchanges);
  state.counters["exchange_over_ping_pong"] = median(ratios);
}
void BM_ExchangeRows(benchmark::State& state) { border_exchange_vs_ping_pong(state, true, true); }
void BM_ExchangeColumns(benchmark::State& state) {
  border_exchange_vs_ping_pong(state, false, true);
}
void BM_ExchangeRowsPosted(benchmark::State& state) {
  border_exchange_vs_ping_pong(state, true, false);
}
void BM_ExchangeColumnsPosted(benchmark::State& state) {
  border_exchange_vs_ping_pong(state, false, false);
}

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

// Every border-exchange benchmark: the same sizes, repetitions and manual (slowest-rank) time.
void exchange_settings(benchmark::internal::Benchmark* b) {
  b->Apply(sizes)
      ->UseManualTime()
      ->Iterations(21)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_ExchangeRows)->Apply(exchange_settings);
BENCHMARK(BM_ExchangeColumns)->Apply(exchange_settings);
BENCHMARK(BM_ExchangeRowsPosted)->Apply(exchange_settings);
BENCHMARK(BM_ExchangeColumnsPosted)->Apply(exchange_settings);
BENCHMARK(BM_EmulatedLink)
    ->RangeMultiplier(16)
    ->Range(1, 4 << 20)
    ->UseManualTime()
    ->Iterations(3)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMicrosecond);

// Collects the speed and accuracy figures and prints them after the table.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Aggregate || run.aggregate_name != "median") continue;
      const std::string name = run.benchmark_name();
      const std::string family = name.substr(0, name.find('/'));
      const long bytes = std::stol(name.substr(name.find('/') + 1));
      if (auto it = run.counters.find("exchange_over_ping_pong"); it != run.counters.end()) {
        exchanges_[family][bytes] = {run.counters.at("ping_pong_Bps").value,
                                     run.counters.at("exchange_Bps").value, it->second.value};
      }
      if (auto it = run.counters.find("expected_s"); it != run.counters.end()) {
        emulated_[bytes] = {run.GetAdjustedRealTime() * 1e-6, it->second.value};
      }
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nSummary (medians of the repetitions)\n");
    for (const auto& [family, points] : exchanges_) {
      for (const auto& [bytes, f] : points) {
        std::printf(
            "  %-18s %7ld B: ping-pong %8.3g GB/s, border exchange %8.3g GB/s "
            "(exchange / ping-pong %3.0f%%)\n",
            family.c_str(), bytes, f[0] / 1e9, f[1] / 1e9, 100 * f[2]);
      }
    }
    for (const auto& [bytes, times] : emulated_) {
      std::printf(
          "  emulated link %8ld B: one-way %10.1f us, latency + N/B %10.1f us, "
          "off by %+.1f%%\n",
          bytes, times.first * 1e6, times.second * 1e6, 100 * (times.first / times.second - 1));
    }
  }

 private:
  std::map<std::string, std::map<long, std::array<double, 3>>> exchanges_;
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
  g_wide =
      harness::WideArea::create(MPI_COMM_WORLD, harness::ClusterMap::blocks(size, size > 1 ? 2 : 1),
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
