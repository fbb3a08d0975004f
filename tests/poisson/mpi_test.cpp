// Distributed behaviour of the solver at whatever rank count the test runs with (1, 2, 4):
// decomposition-independent results in exact mode, border traffic equal to the analytic
// border sizes, and inter-cluster traffic exactly across the cluster strips.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "apps/poisson/solver.hpp"
#include "tests/support/mpi_world.hpp"

namespace mcb::poisson {
namespace {

using harness::ClusterMap;
using harness::Direction;
using harness::InstrumentedComm;
using harness::ProcessGrid;
using mcb::testing::world_rank;
using mcb::testing::world_size;

const std::vector<std::string> kChannels{"top", "bottom", "left", "right"};

// Runs the solver on `comm` with the given grid and returns the rank's problem and outcome;
// `stats` receives the rank's channel books.
struct Result {
  LocalProblem problem;
  SolverOutcome outcome;
  std::vector<harness::ChannelStats> stats;
};

Result run(MPI_Comm comm, const ProcessGrid& grid, const ClusterMap& map, int n,
           const SolverSettings& settings) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Result r{LocalProblem::manufactured(Subdomain::of(n, grid, rank)), {}, {}};
  HaloExchange halo(r.problem.sub, grid, rank);
  InstrumentedComm setup(comm, map, kChannels, false);
  halo.exchange_all(setup, r.problem.u);
  InstrumentedComm instrumented(comm, map, kChannels, true);
  r.outcome = solve(r.problem, halo, instrumented, settings);
  for (int d = 0; d < harness::kDirections; ++d) r.stats.push_back(instrumented.stats(d));
  return r;
}

// The global interior solution gathered on rank 0 (row-major N x N), empty elsewhere.
std::vector<double> gather_solution(MPI_Comm comm, const LocalProblem& p) {
  const Subdomain& s = p.sub;
  std::vector<double> mine;
  for (int j = 1; j <= s.ny; ++j) {
    for (int i = 1; i <= s.nx; ++i) mine.push_back(p.u.at(i, j));
  }
  int header[4] = {s.x0, s.y0, s.nx, s.ny};
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> headers(4 * static_cast<size_t>(size));
  MPI_Gather(header, 4, MPI_INT, headers.data(), 4, MPI_INT, 0, comm);
  std::vector<int> counts(static_cast<size_t>(size)), offsets(static_cast<size_t>(size));
  const int count = static_cast<int>(mine.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<double> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[static_cast<size_t>(r)] = total;
      total += counts[static_cast<size_t>(r)];
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
              0, comm);
  if (rank != 0) return {};
  const int n = s.n;
  std::vector<double> global(static_cast<size_t>(n) * n);
  for (int r = 0; r < size; ++r) {
    const int* hd = &headers[4 * static_cast<size_t>(r)];
    int k = offsets[static_cast<size_t>(r)];
    for (int j = 1; j <= hd[3]; ++j) {
      for (int i = 1; i <= hd[2]; ++i) {
        global[static_cast<size_t>(hd[1] + j - 1) * n + (hd[0] + i - 1)] =
            all[static_cast<size_t>(k++)];
      }
    }
  }
  return global;
}

TEST(ExactMode, EveryDecompositionGivesTheSingleProcessResult) {
  const int n = 37;  // odd, so the rectangles are unequal in both directions
  SolverSettings settings;
  settings.halo = HaloMode::exact;
  settings.omega = optimal_omega(1.0 / (n + 1));
  settings.tolerance = 1e-8;

  // The single-process answer, computed by every rank on its own.
  const ProcessGrid single(1, 1);
  Result serial = run(MPI_COMM_SELF, single, ClusterMap::single(1), n, settings);
  ASSERT_TRUE(serial.outcome.converged);
  const std::vector<double> expected = gather_solution(MPI_COMM_SELF, serial.problem);

  const int size = world_size();
  for (int h = 1; h <= size; ++h) {
    if (size % h != 0) continue;
    const ProcessGrid grid(h, size / h);
    Result r = run(MPI_COMM_WORLD, grid, ClusterMap::single(size), n, settings);
    EXPECT_EQ(r.outcome.iterations, serial.outcome.iterations) << "grid " << grid.to_string();
    const std::vector<double> got = gather_solution(MPI_COMM_WORLD, r.problem);
    if (world_rank() == 0) {
      ASSERT_EQ(got.size(), expected.size());
      EXPECT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(double)))
          << "grid " << grid.to_string() << " differs from 1x1";
    }
  }
}

// --halo overlap hides each exchange behind the next colour's interior: the same solution,
// bit for bit, and the same iterations as exact mode on one process, on every decomposition.
TEST(OverlapMode, EveryDecompositionGivesTheExactModeResult) {
  const int n = 37;
  SolverSettings exact;
  exact.halo = HaloMode::exact;
  exact.omega = optimal_omega(1.0 / (n + 1));
  exact.tolerance = 1e-8;
  Result serial = run(MPI_COMM_SELF, ProcessGrid(1, 1), ClusterMap::single(1), n, exact);
  ASSERT_TRUE(serial.outcome.converged);
  const std::vector<double> expected = gather_solution(MPI_COMM_SELF, serial.problem);

  SolverSettings overlap = exact;
  overlap.halo = HaloMode::overlap;
  const int size = world_size();
  for (int h = 1; h <= size; ++h) {
    if (size % h != 0) continue;
    const ProcessGrid grid(h, size / h);
    Result r = run(MPI_COMM_WORLD, grid, ClusterMap::single(size), n, overlap);
    EXPECT_EQ(r.outcome.iterations, serial.outcome.iterations) << "grid " << grid.to_string();
    EXPECT_EQ(r.outcome.global_error, serial.outcome.global_error) << "grid " << grid.to_string();
    const std::vector<double> got = gather_solution(MPI_COMM_WORLD, r.problem);
    if (world_rank() == 0) {
      ASSERT_EQ(got.size(), expected.size());
      EXPECT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(double)))
          << "grid " << grid.to_string() << " differs from exact mode on 1x1";
    }
  }
}

TEST(PaperMode, SingleProcessEqualsExactMode) {
  const int n = 24;
  SolverSettings paper;
  paper.tolerance = 1e-6;
  SolverSettings exact = paper;
  exact.halo = HaloMode::exact;
  Result a = run(MPI_COMM_SELF, ProcessGrid(1, 1), ClusterMap::single(1), n, paper);
  Result b = run(MPI_COMM_SELF, ProcessGrid(1, 1), ClusterMap::single(1), n, exact);
  EXPECT_EQ(a.outcome.iterations, b.outcome.iterations);
  EXPECT_EQ(a.problem.u.values(), b.problem.u.values());
}

TEST(PaperMode, TunedAndReferenceKernelsAgreeOnEveryDecomposition) {
  // The tuned path stages the column borders in buffers; the reference path packs them from
  // the field. Both must give the same iterations and the same solution, bit for bit.
  const int size = world_size();
  const int n = 33;
  for (int h = 1; h <= size; ++h) {
    if (size % h != 0) continue;
    const ProcessGrid grid(h, size / h);
    SolverSettings tuned;
    tuned.tolerance = 1e-5;
    SolverSettings reference = tuned;
    reference.tuned = false;
    Result a = run(MPI_COMM_WORLD, grid, ClusterMap::single(size), n, tuned);
    Result b = run(MPI_COMM_WORLD, grid, ClusterMap::single(size), n, reference);
    ASSERT_TRUE(a.outcome.converged);
    EXPECT_EQ(a.outcome.iterations, b.outcome.iterations) << grid.to_string();
    EXPECT_EQ(a.problem.u.values(), b.problem.u.values()) << grid.to_string();
    for (int d = 0; d < harness::kDirections; ++d) {
      EXPECT_EQ(a.stats[static_cast<size_t>(d)].sent[0].bytes,
                b.stats[static_cast<size_t>(d)].sent[0].bytes);
    }
  }
}

// One process sweeps two iterations per pass where that is exact (the second only when the
// first cannot be the last): the same iterations, last update and solution, bit for bit, as
// the reference's one iteration per pass, whether the run stops at an odd or an even
// iteration, by the tolerance or by the cap.
TEST(PaperMode, TwoIterationsPerPassChangeNothingOnOneProcess) {
  bool stopped_odd = false, stopped_even = false;
  for (int n : {24, 31}) {
    for (double omega : {1.0, 1.6}) {
      for (double tolerance : {1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5}) {
        for (long cap : {100000L, 7L, 8L}) {
          SolverSettings tuned;
          tuned.omega = omega;
          tuned.tolerance = tolerance;
          tuned.max_iterations = cap;
          tuned.fixed_iterations = cap < 100;
          SolverSettings reference = tuned;
          reference.tuned = false;
          Result a = run(MPI_COMM_SELF, ProcessGrid(1, 1), ClusterMap::single(1), n, tuned);
          Result b = run(MPI_COMM_SELF, ProcessGrid(1, 1), ClusterMap::single(1), n, reference);
          const std::string what = "N " + std::to_string(n) + " omega " + std::to_string(omega) +
                                   " tolerance " + std::to_string(tolerance) + " cap " +
                                   std::to_string(cap);
          ASSERT_EQ(a.outcome.iterations, b.outcome.iterations) << what;
          EXPECT_EQ(a.outcome.converged, b.outcome.converged) << what;
          EXPECT_EQ(a.outcome.global_error, b.outcome.global_error) << what;
          EXPECT_EQ(a.problem.u.values(), b.problem.u.values()) << what;
          EXPECT_GT(a.outcome.fused_iterations, 0) << what;
          EXPECT_EQ(b.outcome.fused_iterations, 0) << what;
          (a.outcome.iterations % 2 == 0 ? stopped_even : stopped_odd) = true;
        }
      }
    }
  }
  EXPECT_TRUE(stopped_odd && stopped_even) << "the cases should stop at both parities";
}

// With neighbours the halos change every iteration: one iteration per pass.
TEST(PaperMode, NeighboursKeepOneIterationPerPass) {
  const int size = world_size();
  if (size < 2) GTEST_SKIP() << "needs a neighbour";
  SolverSettings s;
  s.tolerance = 1e-4;
  Result r = run(MPI_COMM_WORLD, ProcessGrid(size, 1), ClusterMap::single(size), 24, s);
  EXPECT_EQ(r.outcome.fused_iterations, 0);
}

// Runs exactly `iterations` iterations (the tolerance can never be met).
SolverSettings fixed_iterations(HaloMode mode, long iterations) {
  SolverSettings s;
  s.halo = mode;
  s.tolerance = 1e-300;
  s.max_iterations = iterations;
  return s;
}

TEST(BorderTraffic, PaperModeBytesEqualWholeBorders) {
  const int size = world_size();
  const int rank = world_rank();
  const ProcessGrid grid = size == 4 ? ProcessGrid(2, 2) : ProcessGrid(size, 1);
  const int n = 29;
  const long iterations = 7;
  Result r = run(MPI_COMM_WORLD, grid, ClusterMap::single(size), n,
                 fixed_iterations(HaloMode::paper, iterations));
  ASSERT_EQ(r.outcome.iterations, iterations);
  const Subdomain& s = r.problem.sub;
  for (int d = 0; d < harness::kDirections; ++d) {
    const auto dir = static_cast<Direction>(d);
    const bool vertical = dir == Direction::top || dir == Direction::bottom;
    const std::uint64_t border = 8ull * static_cast<std::uint64_t>(vertical ? s.nx : s.ny);
    const bool has_dest = grid.neighbour(rank, dir) >= 0;
    const Direction back = d == 0   ? Direction::bottom
                           : d == 1 ? Direction::top
                           : d == 2 ? Direction::right
                                    : Direction::left;
    const bool has_src = grid.neighbour(rank, back) >= 0;
    const auto& st = r.stats[static_cast<size_t>(d)];
    EXPECT_EQ(st.sent[0].bytes, has_dest ? iterations * border : 0) << harness::kDirectionNames[d];
    EXPECT_EQ(st.sent[0].messages, has_dest ? static_cast<std::uint64_t>(iterations) : 0u);
    EXPECT_EQ(st.received[0].bytes, has_src ? iterations * border : 0)
        << harness::kDirectionNames[d];
    EXPECT_EQ(st.received[0].messages, has_src ? static_cast<std::uint64_t>(iterations) : 0u);
    EXPECT_EQ(st.sent[1].bytes + st.received[1].bytes, 0u) << "one cluster has no inter traffic";
  }
}

TEST(BorderTraffic, ExactModeSendsEachColourOnce) {
  const int size = world_size();
  const int rank = world_rank();
  const ProcessGrid grid = size == 4 ? ProcessGrid(2, 2) : ProcessGrid(1, size);
  const int n = 30;
  const long iterations = 5;
  Result r = run(MPI_COMM_WORLD, grid, ClusterMap::single(size), n,
                 fixed_iterations(HaloMode::exact, iterations));
  const Subdomain& s = r.problem.sub;
  for (int d = 0; d < harness::kDirections; ++d) {
    const auto dir = static_cast<Direction>(d);
    const bool vertical = dir == Direction::top || dir == Direction::bottom;
    const std::uint64_t border = 8ull * static_cast<std::uint64_t>(vertical ? s.nx : s.ny);
    const bool has_dest = grid.neighbour(rank, dir) >= 0;
    const auto& st = r.stats[static_cast<size_t>(d)];
    // Two messages per iteration (black, then red) that together carry the whole border.
    EXPECT_EQ(st.sent[0].messages, has_dest ? 2u * iterations : 0u);
    EXPECT_EQ(st.sent[0].bytes, has_dest ? iterations * border : 0u);
  }
}

TEST(BorderTraffic, TwoClustersClassifyExactlyTheCrossStripMessages) {
  const int size = world_size();
  if (size < 2) GTEST_SKIP() << "two clusters need at least two ranks";
  const int rank = world_rank();
  const ProcessGrid grid = size == 4 ? ProcessGrid(2, 2) : ProcessGrid(size, 1);
  const ClusterMap map = ClusterMap::strips(grid, 2);
  Result r = run(MPI_COMM_WORLD, grid, map, 20, fixed_iterations(HaloMode::paper, 3));
  for (int d = 0; d < harness::kDirections; ++d) {
    const auto dir = static_cast<Direction>(d);
    const int dest = grid.neighbour(rank, dir);
    const auto& st = r.stats[static_cast<size_t>(d)];
    if (dest < 0) continue;
    const bool crosses = map.cluster_of(dest) != map.cluster_of(rank);
    EXPECT_EQ(st.sent[1].messages > 0, crosses) << harness::kDirectionNames[d];
    EXPECT_EQ(st.sent[0].messages > 0, !crosses) << harness::kDirectionNames[d];
    if (crosses) {
      EXPECT_GT(st.time[1] + st.time[0], 0.0);
    }
  }
  // Only left/right steps cross vertical strips.
  EXPECT_EQ(r.stats[0].sent[1].messages + r.stats[1].sent[1].messages, 0u);
}

TEST(Timeline, PaperCommunicationTimeIsWithinTheRun) {
  const int size = world_size();
  const ProcessGrid grid(size, 1);
  SolverSettings s = fixed_iterations(HaloMode::paper, 50);
  s.sync = true;
  Result r = run(MPI_COMM_WORLD, grid, ClusterMap::single(size), 40, s);
  const double paper = r.outcome.timeline.paper_time(MPI_COMM_WORLD, 0.0);
  EXPECT_EQ(r.outcome.timeline.phases(), 50u);
  EXPECT_GE(paper, 0.0);
  double wall = 0;
  MPI_Allreduce(&r.outcome.wall_time, &wall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_LE(paper, wall);
}

// Every direction is in flight at once: on the process grid 1x2, rank 1's first direction
// (top) receives from rank 0 and its second (bottom) sends to rank 0. Rank 0 plays its
// neighbour with plain MPI and sends its border only once rank 1's has arrived; an exchange
// that waited for each direction before starting the next would hold rank 1's border back
// until the partner gave up (then the test fails rather than hangs).
TEST(BorderExchange, PostsEveryDirectionBeforeWaitingForAny) {
  if (world_size() < 2) GTEST_SKIP() << "needs a neighbour";
  MPI_Comm pair = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() < 2 ? 0 : MPI_UNDEFINED, world_rank(), &pair);
  if (pair == MPI_COMM_NULL) return;
  const ProcessGrid grid(1, 2);
  const int n = 12;
  const int rank = world_rank();
  const Subdomain sub = Subdomain::of(n, grid, rank);
  for (const int colour : {-1, kBlack, kRed}) {
    const int points = colour < 0 ? sub.nx : (sub.nx + 1) / 2;
    if (rank == 0) {
      // Rank 1's bottom border: tag 100 + bottom.
      std::vector<double> theirs(static_cast<size_t>(sub.nx));
      MPI_Request got;
      MPI_Irecv(theirs.data(), sub.nx, MPI_DOUBLE, 1, 101, pair, &got);
      int arrived = 0;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!arrived && std::chrono::steady_clock::now() < deadline) {
        MPI_Test(&got, &arrived, MPI_STATUS_IGNORE);
        if (!arrived) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      EXPECT_TRUE(arrived) << "colour " << colour
                           << ": rank 1 sent nothing downwards before its upward receive completed";
      const std::vector<double> mine(static_cast<size_t>(sub.nx), 7.0);
      MPI_Send(mine.data(), points, MPI_DOUBLE, 1, 100, pair);
      MPI_Wait(&got, MPI_STATUS_IGNORE);
    } else {
      Field u(sub.nx, sub.ny);
      HaloExchange halo(sub, grid, 1);
      InstrumentedComm comm(pair, ClusterMap::single(2), kChannels, true);
      if (colour < 0) {
        halo.exchange_all(comm, u);
      } else {
        halo.exchange_colour(comm, u, colour);
      }
      int filled = 0;
      for (int i = 1; i <= sub.nx; ++i) filled += u.at(i, 0) == 7.0;
      EXPECT_EQ(filled, points) << "colour " << colour << ": halo row from rank 0";
      EXPECT_EQ(comm.stats(0).received[0].messages, 1u) << "top booked the receive";
      EXPECT_EQ(comm.stats(1).sent[0].messages, 1u) << "bottom booked the send";
    }
  }
  MPI_Comm_free(&pair);
}

// Persistent requests (the default over plain MPI) set up once and started in every exchange
// carry the same borders into the same halos, and book the same messages and bytes per
// direction, as messages posted afresh; also after the field has changed between exchanges
// (the requests point into it), for rows, packed columns and staged columns alike.
TEST(BorderExchange, PersistentRequestsGiveWhatPostedMessagesGive) {
  const int size = world_size();
  const int rank = world_rank();
  const ProcessGrid grid = size == 4 ? ProcessGrid(2, 2) : ProcessGrid(size, 1);
  const Subdomain sub = Subdomain::of(13, grid, rank);
  for (const bool staged : {false, true}) {
    std::vector<Field> fields;
    std::vector<std::vector<harness::ChannelStats>> books;
    for (const bool persistent : {true, false}) {
      Field u(sub.nx, sub.ny);
      HaloExchange halo(sub, grid, rank);
      halo.set_persistent(persistent);
      InstrumentedComm comm(MPI_COMM_WORLD, ClusterMap::single(size), kChannels, true);
      if (staged) halo.stage_columns(u);
      for (int round = 1; round <= 3; ++round) {
        for (int j = 1; j <= sub.ny; ++j) {
          for (int i = 1; i <= sub.nx; ++i)
            u.at(i, j) = 1000.0 * rank + 10.0 * round + i + 0.01 * j;
        }
        if (staged) {
          halo.stage_columns(u);  // as the sweep would have left them
          halo.exchange_staged(comm, u);
        } else {
          halo.exchange_all(comm, u);
        }
      }
      if (staged) halo.unstage_columns(u);
      fields.push_back(u);
      books.emplace_back();
      for (int d = 0; d < harness::kDirections; ++d) books.back().push_back(comm.stats(d));
    }
    EXPECT_EQ(0, std::memcmp(fields[0].values().data(), fields[1].values().data(),
                             fields[0].values().size() * sizeof(double)))
        << (staged ? "staged" : "unstaged") << ": halos differ";
    for (int d = 0; d < harness::kDirections; ++d) {
      const auto& a = books[0][static_cast<size_t>(d)];
      const auto& b = books[1][static_cast<size_t>(d)];
      EXPECT_EQ(a.sent[0].messages, b.sent[0].messages) << harness::kDirectionNames[d];
      EXPECT_EQ(a.sent[0].bytes, b.sent[0].bytes) << harness::kDirectionNames[d];
      EXPECT_EQ(a.received[0].messages, b.received[0].messages) << harness::kDirectionNames[d];
      EXPECT_EQ(a.received[0].bytes, b.received[0].bytes) << harness::kDirectionNames[d];
    }
    // The last round's borders arrived: a neighbour's halo holds its round-3 values.
    if (grid.neighbour(rank, Direction::left) >= 0) {
      const int west = grid.neighbour(rank, Direction::left);
      EXPECT_EQ(fields[0].at(0, 1), 1000.0 * west + 30.0 + Subdomain::of(13, grid, west).nx + 0.01);
    }
  }
}

}  // namespace
}  // namespace mcb::poisson
