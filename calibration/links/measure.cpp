#include "calibration/links/measure.hpp"

#include "common/units.hpp"
#include "harness/link_clock.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace mcb::links {
namespace {

constexpr int kChannel = 0;
constexpr int kDataTag = 1;
constexpr int kAckTag = 2;

// A barrier or reduction that sleeps between polls (see measure()).
void quiet_wait(MPI_Request& request) {
  constexpr std::int64_t kPoll = 50'000;  // ns
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    harness::LinkClock::sleep_for(kPoll);
  }
}

void quiet_barrier(MPI_Comm comm) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  quiet_wait(request);
}

void quiet_max(MPI_Comm comm, const std::vector<double>& local, std::vector<double>& out) {
  MPI_Request request;
  MPI_Iallreduce(local.data(), out.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_MAX,
                 comm, &request);
  quiet_wait(request);
}

int seed_of(RankPair pair) { return pair.first * 7919 + pair.second; }

// Messages in flight for one bandwidth iteration at this size.
int window_for(std::size_t bytes, const MeasureSettings& s) {
  const std::size_t fit = bytes == 0 ? static_cast<std::size_t>(s.window) : s.window_bytes / bytes;
  return static_cast<int>(std::clamp<std::size_t>(fit, 1, static_cast<std::size_t>(s.window)));
}

// One bandwidth iteration: the sender streams a window, the receiver acknowledges it.
void stream_window(harness::InstrumentedComm& comm, RankPair pair, std::size_t bytes, int window,
                   const unsigned char* out, unsigned char* in, int slot,
                   std::vector<double>& seconds, bool verify, bool& data_ok) {
  const int rank = comm.rank();
  char ack = 0;
  harness::InstrumentedComm::Batch batch;
  if (rank == pair.first) {
    const double start = MPI_Wtime();
    for (int m = 0; m < window; ++m)
      comm.post_send(kChannel, batch, out, bytes, pair.second, kDataTag);
    comm.complete(kChannel, batch);
    comm.recv(kChannel, &ack, 1, pair.second, kAckTag);
    seconds[static_cast<size_t>(slot)] += MPI_Wtime() - start;
  } else if (rank == pair.second) {
    if (verify) std::memset(in, 0, bytes * static_cast<size_t>(window));
    const double start = MPI_Wtime();
    for (int m = 0; m < window; ++m) {
      comm.post_recv(kChannel, batch, in + bytes * static_cast<size_t>(m), bytes, pair.first,
                     kDataTag);
    }
    comm.complete(kChannel, batch);
    comm.send(kChannel, &ack, 1, pair.first, kAckTag);
    seconds[static_cast<size_t>(slot)] += MPI_Wtime() - start;
    if (verify) {
      for (int m = 0; m < window; ++m) {
        data_ok = data_ok && has_pattern(in + bytes * static_cast<size_t>(m), bytes, seed_of(pair));
      }
    }
  }
}

}  // namespace

Stats Stats::of(const std::vector<double>& values) {
  Stats s;
  if (values.empty()) return s;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  s.avg = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return s;
}

void fill_pattern(unsigned char* data, std::size_t bytes, int seed) {
  for (std::size_t i = 0; i < bytes; ++i) {
    data[i] = static_cast<unsigned char>(
        (std::size_t{static_cast<unsigned>(seed)} * 131u + i * 7u + (i >> 8)) & 0xffu);
  }
}

bool has_pattern(const unsigned char* data, std::size_t bytes, int seed) {
  for (std::size_t i = 0; i < bytes; ++i) {
    if (data[i] !=
        static_cast<unsigned char>(
            (std::size_t{static_cast<unsigned>(seed)} * 131u + i * 7u + (i >> 8)) & 0xffu)) {
      return false;
    }
  }
  return true;
}

std::vector<std::vector<double>> measure(MPI_Comm world, int slots, const MeasureSettings& s,
                                         const Step& step) {
  const auto n = static_cast<size_t>(slots);
  std::vector<std::vector<double>> result(n);
  int warmup = 0;
  int iterations = 0;
  for (int rep = 0; rep < s.repetitions; ++rep) {
    std::vector<double> local(n, 0.0);
    std::vector<double> slowest(n, 0.0);
    quiet_barrier(world);
    if (rep == 0) {
      // One checked iteration tells how long an iteration takes; the counts follow from it,
      // the same on every rank (the slowest slot of the slowest rank decides).
      step(local, true);
      quiet_max(world, local, slowest);
      const double once = std::max(*std::max_element(slowest.begin(), slowest.end()), 1e-9);
      const double fit = std::floor(s.max_time / once);
      iterations = static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(s.iterations)));
      iterations = std::max(iterations, s.min_iterations);
      warmup =
          static_cast<int>(std::clamp(fit, 0.0, static_cast<double>(std::max(0, s.warmup - 1))));
    }
    for (int w = 0; w < warmup; ++w) {
      std::fill(local.begin(), local.end(), 0.0);
      step(local, true);
    }
    std::fill(local.begin(), local.end(), 0.0);
    quiet_barrier(world);
    for (int it = 0; it < iterations; ++it) step(local, false);
    quiet_max(world, local, slowest);
    for (size_t k = 0; k < n; ++k) result[k].push_back(slowest[k] / iterations);
  }
  return result;
}

std::vector<Stats> ping_pong(harness::InstrumentedComm& comm, RankPair pair,
                             const std::vector<std::size_t>& sizes, const MeasureSettings& s,
                             bool& data_ok) {
  const std::size_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  std::vector<unsigned char> out(largest);
  std::vector<unsigned char> in(largest);
  std::vector<Stats> points;
  const int rank = comm.rank();
  for (const std::size_t bytes : sizes) {
    fill_pattern(out.data(), bytes, seed_of(pair));
    const auto times = measure(comm.mpi(), 1, s, [&](std::vector<double>& seconds, bool verify) {
      if (rank == pair.first) {
        if (verify) std::memset(in.data(), 0, bytes);
        const double start = MPI_Wtime();
        comm.send(kChannel, out.data(), bytes, pair.second, kDataTag);
        comm.recv(kChannel, in.data(), bytes, pair.second, kDataTag);
        seconds[0] += MPI_Wtime() - start;
        if (verify) data_ok = data_ok && has_pattern(in.data(), bytes, seed_of(pair));
      } else if (rank == pair.second) {
        if (verify) std::memset(in.data(), 0, bytes);
        const double start = MPI_Wtime();
        comm.recv(kChannel, in.data(), bytes, pair.first, kDataTag);
        comm.send(kChannel, in.data(), bytes, pair.first, kDataTag);
        seconds[0] += MPI_Wtime() - start;
        if (verify) data_ok = data_ok && has_pattern(in.data(), bytes, seed_of(pair));
      }
    });
    std::vector<double> one_way = times[0];
    for (double& t : one_way) t /= 2;
    points.push_back(Stats::of(one_way));
  }
  return points;
}

std::vector<Stats> window_bandwidth(harness::InstrumentedComm& comm, RankPair pair,
                                    const std::vector<std::size_t>& sizes, const MeasureSettings& s,
                                    bool& data_ok) {
  std::vector<Stats> points;
  for (const std::size_t bytes : sizes) {
    const int window = window_for(bytes, s);
    std::vector<unsigned char> out(bytes);
    std::vector<unsigned char> in(bytes * static_cast<size_t>(window));
    fill_pattern(out.data(), bytes, seed_of(pair));
    const auto times = measure(comm.mpi(), 1, s, [&](std::vector<double>& seconds, bool verify) {
      stream_window(comm, pair, bytes, window, out.data(), in.data(), 0, seconds, verify, data_ok);
    });
    std::vector<double> rates;
    for (double t : times[0])
      rates.push_back(t > 0 ? static_cast<double>(bytes) * window / t : 0.0);
    points.push_back(Stats::of(rates));
  }
  return points;
}

SharedLink shared_link(harness::InstrumentedComm& comm, const std::array<RankPair, 2>& pairs,
                       std::size_t bytes, const MeasureSettings& s, bool& data_ok) {
  SharedLink shared;
  shared.pairs = pairs;
  shared.bytes = bytes;
  const int window = window_for(bytes, s);
  std::vector<unsigned char> out(bytes);
  std::vector<unsigned char> in(bytes * static_cast<size_t>(window));
  auto rates = [&](const std::vector<double>& times) {
    std::vector<double> r;
    for (double t : times) r.push_back(t > 0 ? static_cast<double>(bytes) * window / t : 0.0);
    return Stats::of(r);
  };
  const int rank = comm.rank();
  int mine = -1;
  for (int k = 0; k < 2; ++k) {
    if (rank == pairs[static_cast<size_t>(k)].first || rank == pairs[static_cast<size_t>(k)].second)
      mine = k;
  }
  if (mine >= 0) fill_pattern(out.data(), bytes, seed_of(pairs[static_cast<size_t>(mine)]));
  const auto alone = measure(comm.mpi(), 1, s, [&](std::vector<double>& seconds, bool verify) {
    if (mine == 0)
      stream_window(comm, pairs[0], bytes, window, out.data(), in.data(), 0, seconds, verify,
                    data_ok);
  });
  shared.alone = rates(alone[0]);
  const auto both = measure(comm.mpi(), 2, s, [&](std::vector<double>& seconds, bool verify) {
    if (mine >= 0) {
      stream_window(comm, pairs[static_cast<size_t>(mine)], bytes, window, out.data(), in.data(),
                    mine, seconds, verify, data_ok);
    }
  });
  shared.together = {rates(both[0]), rates(both[1])};
  return shared;
}

nlohmann::json Stats::rate_json() const {
  return {{"min", megabytes_per_second(min)},
          {"avg", megabytes_per_second(avg)},
          {"max", megabytes_per_second(max)}};
}

nlohmann::json SharedLink::to_json() const {
  return {{"pairs", {{pairs[0].first, pairs[0].second}, {pairs[1].first, pairs[1].second}}},
          {"bytes", bytes},
          {"alone", alone.rate_json()},
          {"together", {together[0].rate_json(), together[1].rate_json()}},
          {"share",
           {alone.avg > 0 ? together[0].avg / alone.avg : 0.0,
            alone.avg > 0 ? together[1].avg / alone.avg : 0.0}}};
}

}  // namespace mcb::links
