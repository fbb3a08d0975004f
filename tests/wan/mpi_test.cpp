// The wide area in the harness under MPI, as the applications use it: every point-to-point path
// of InstrumentedComm over emulated links and through the gateway relay. Timing assertions are
// one-sided where the emulation guarantees them (a message never arrives before latency +
// bytes / bandwidth after it was sent, on the host's shared clock) and generous otherwise
// (this host may be busy): the exact figures come from wan_bench and mcb-links.
#include <gtest/gtest.h>
#include <mpi.h>

#include "common/errors.hpp"
#include "harness/comm.hpp"
#include "harness/link_clock.hpp"
#include "harness/wide_area.hpp"
#include "tests/support/command.hpp"
#include "tests/support/mpi_world.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

namespace mcb::harness {
namespace {

using mcb::testing::world_rank;
using mcb::testing::world_size;

// Idle ranks wait asleep so that, with more ranks than cores, the measured ones keep a core.
void quiet_barrier() {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    LinkClock::sleep_for(50'000);
  }
}

std::vector<unsigned char> pattern(std::size_t bytes, int seed) {
  std::vector<unsigned char> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i)
    data[i] = static_cast<unsigned char>(static_cast<std::size_t>(seed) * 37 + i * 11 + (i >> 9));
  return data;
}

std::shared_ptr<WideArea> emulated(const ClusterMap& map, double latency, double bandwidth,
                                   bool relay = false) {
  return WideArea::create(MPI_COMM_WORLD, map,
                          LinkTable::uniform(map.clusters(), {latency, bandwidth}), relay);
}

// The rank in the other half (the other cluster of ClusterMap::blocks(size, 2)).
int partner(int rank, int size) { return (rank + size / 2) % size; }

// One-way times of a ping-pong between a and b, one per round (valid on rank a).
std::vector<double> ping_pong(InstrumentedComm& comm, int a, int b, std::size_t bytes, int rounds,
                              bool& intact) {
  std::vector<double> one_way;
  const auto out = pattern(bytes, a + b);
  std::vector<unsigned char> in(bytes);
  const int rank = comm.rank();
  for (int r = 0; r < rounds; ++r) {
    std::fill(in.begin(), in.end(), 0);
    const double start = MPI_Wtime();
    if (rank == a) {
      comm.send(0, out.data(), bytes, b, 7);
      comm.recv(0, in.data(), bytes, b, 7);
      intact = intact && in == out;
    } else if (rank == b) {
      comm.recv(0, in.data(), bytes, a, 7);
      intact = intact && in == out;
      comm.send(0, in.data(), bytes, a, 7);
    }
    one_way.push_back((MPI_Wtime() - start) / 2);
  }
  return one_way;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(WanEmulation, PingPongAcrossClustersTakesLatencyPlusBytesOverBandwidth) {
  const int size = world_size();
  const auto map = ClusterMap::blocks(size, 2);
  const LinkParameters link{2e-3, 50e6};
  auto wide = emulated(map, link.latency, link.bandwidth);
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"link"}, true, wide);
  const int a = 0;
  const int b = size / 2;
  for (const std::size_t bytes :
       {std::size_t{1}, std::size_t{4096}, std::size_t{262144}, std::size_t{4} << 20}) {
    quiet_barrier();
    bool intact = true;
    const auto times = ping_pong(comm, a, b, bytes, bytes > 1'000'000 ? 2 : 5, intact);
    quiet_barrier();
    EXPECT_TRUE(intact) << bytes << " bytes";
    if (world_rank() != a) continue;
    const double expected = link.transfer_time(static_cast<double>(bytes));
    EXPECT_GE(*std::min_element(times.begin(), times.end()), expected * (1 - 1e-3))
        << bytes << " bytes";
    EXPECT_LE(median(times), expected * 1.3 + 1e-3) << bytes << " bytes";
  }
  // The books count the crossing messages as inter-cluster.
  if (world_rank() == a) {
    EXPECT_GT(comm.stats(0).sent[static_cast<size_t>(PeerClass::inter)].messages, 0u);
    EXPECT_EQ(comm.stats(0).sent[static_cast<size_t>(PeerClass::intra)].messages, 0u);
  }
}

TEST(WanEmulation, IntraClusterTrafficIsNotDelayed) {
  const int size = world_size();
  if (size < 4) GTEST_SKIP() << "needs two ranks in one cluster (4 ranks)";
  const auto map = ClusterMap::blocks(size, 2);  // ranks 0 and 1 share cluster 0
  auto wide = emulated(map, 50e-3, 1e6);
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"link"}, true, wide);
  quiet_barrier();
  bool intact = true;
  const auto times = ping_pong(comm, 0, 1, 1024, 20, intact);
  quiet_barrier();
  EXPECT_TRUE(intact);
  // A 1 KiB message over the emulated link would take 51 ms.
  if (world_rank() == 0) {
    EXPECT_LT(median(times), 10e-3);
  }
}

// Every point-to-point path delays a crossing message: the receiver holds it no earlier than
// send time + latency + bytes / bandwidth on the host's clock.
TEST(WanEmulation, EveryPointToPointPathIsDelayed) {
  const int size = world_size();
  const int rank = world_rank();
  const auto map = ClusterMap::blocks(size, 2);
  const LinkParameters link{3e-3, 1e9};
  auto wide = emulated(map, link.latency, link.bandwidth);
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"sendrecv", "send", "batch"}, true, wide);
  const int peer = partner(rank, size);
  const std::size_t bytes = 100000;
  const auto out = pattern(bytes, rank);
  const auto expected_in = pattern(bytes, peer);
  std::vector<unsigned char> in(bytes);
  const double least = link.transfer_time(static_cast<double>(bytes));

  // Each rank stamps when it sent and when it held the peer's message; the stamps are swapped
  // afterwards over plain MPI.
  auto check = [&](std::int64_t sent, std::int64_t held, const char* path) {
    std::int64_t peer_sent = 0;
    MPI_Sendrecv(&sent, 1, MPI_INT64_T, peer, 99, &peer_sent, 1, MPI_INT64_T, peer, 99,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_GE((held - peer_sent) * 1e-9, least * (1 - 1e-3)) << path;
    EXPECT_EQ(in, expected_in) << path;
    std::fill(in.begin(), in.end(), 0);
  };

  quiet_barrier();
  std::int64_t sent = LinkClock::now();
  comm.sendrecv(0, out.data(), bytes, peer, in.data(), bytes, peer, 1);
  check(sent, LinkClock::now(), "sendrecv");

  // Blocking send and receive: the first cluster sends, then the second.
  quiet_barrier();
  std::int64_t held = 0;
  sent = 0;
  for (int turn = 0; turn < 2; ++turn) {
    if ((map.cluster_of(rank) == 0) == (turn == 0)) {
      sent = LinkClock::now();
      comm.send(1, out.data(), bytes, peer, 2);
    } else {
      comm.recv(1, in.data(), bytes, peer, 2);
      held = LinkClock::now();
    }
  }
  check(sent, held, "send/recv");

  quiet_barrier();
  InstrumentedComm::Batch batch;
  sent = LinkClock::now();
  comm.post_recv(2, batch, in.data(), bytes, peer, 3);
  comm.post_send(2, batch, out.data(), bytes, peer, 3);
  comm.complete(2, batch);
  check(sent, LinkClock::now(), "post_send/post_recv/complete");

  for (int ch = 0; ch < 3; ++ch) {
    EXPECT_GE(comm.stats(ch).time[static_cast<size_t>(PeerClass::inter)], 0.0);
    EXPECT_EQ(comm.stats(ch).received[static_cast<size_t>(PeerClass::inter)].bytes, bytes) << ch;
  }
}

// Throughput of `rounds` windows of `window` messages from pair.first to pair.second, each
// window acknowledged; bytes per second as the sender saw it (0 on other ranks).
double stream(InstrumentedComm& comm, std::pair<int, int> pair, std::size_t bytes, int window,
              int rounds) {
  const int rank = comm.rank();
  if (rank != pair.first && rank != pair.second) return 0;
  std::vector<unsigned char> buffer(bytes * static_cast<size_t>(window));
  char ack = 0;
  const double start = MPI_Wtime();
  for (int r = 0; r < rounds; ++r) {
    InstrumentedComm::Batch batch;
    for (int m = 0; m < window; ++m) {
      if (rank == pair.first) {
        comm.post_send(0, batch, buffer.data(), bytes, pair.second, 5);
      } else {
        comm.post_recv(0, batch, buffer.data() + bytes * static_cast<size_t>(m), bytes, pair.first,
                       5);
      }
    }
    comm.complete(0, batch);
    if (rank == pair.first) {
      comm.recv(0, &ack, 1, pair.second, 6);
    } else {
      comm.send(0, &ack, 1, pair.first, 6);
    }
  }
  return static_cast<double>(bytes) * window * rounds / (MPI_Wtime() - start);
}

TEST(WanEmulation, TwoTransfersOnOneLinkShareItsBandwidth) {
  const int size = world_size();
  if (size != 4) GTEST_SKIP() << "needs two pairs across one link (4 ranks)";
  const auto map = ClusterMap::blocks(4, 2);  // {0,1} -> {2,3}
  const double bandwidth = 25e6;
  auto wide = emulated(map, 0.2e-3, bandwidth);
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"link"}, true, wide);
  const std::size_t bytes = 64 << 10;
  quiet_barrier();
  const double alone = stream(comm, {0, 2}, bytes, 4, 8);
  quiet_barrier();
  const int rank = world_rank();
  const double together =
      stream(comm, rank == 0 || rank == 2 ? std::pair{0, 2} : std::pair{1, 3}, bytes, 4, 8);
  double rates[2] = {0, 0};
  const double mine[2] = {rank == 0 ? together : 0.0, rank == 1 ? together : 0.0};
  MPI_Allreduce(mine, rates, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    EXPECT_GT(alone, 0.7 * bandwidth);
    EXPECT_LE(alone, 1.01 * bandwidth);
    for (double r : rates) {
      EXPECT_GT(r, 0.3 * bandwidth);
      EXPECT_LT(r, 0.7 * bandwidth);
    }
    EXPECT_LE(rates[0] + rates[1], 1.05 * bandwidth);
  }
}

TEST(WanEmulation, PlatformLinksApplyToTheirPairs) {
  const int size = world_size();
  if (size != 4) GTEST_SKIP() << "needs three clusters (4 ranks)";
  const auto map = ClusterMap::from_labels({"a", "a", "b", "c"});
  testing::TempDir dir;
  const std::string path = dir / "platform.txt";
  std::ofstream(path) << "# the three links of the test\n"
                         "a b 1ms 1Gbit/s\n"
                         "c  a   7ms 1Gbit/s  # written the other way round\n"
                         "* * 4ms 1Gbit/s\n";
  const LinkTable table = LinkTable::from_platform_file(path, map, std::nullopt);
  auto wide = WideArea::create(MPI_COMM_WORLD, map, table, false);
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"link"}, true, wide);
  const struct {
    int a, b;
    double latency;
  } pairs[] = {{0, 2, 1e-3}, {0, 3, 7e-3}, {2, 3, 4e-3}, {3, 2, 4e-3}};
  for (const auto& p : pairs) {
    quiet_barrier();
    bool intact = true;
    const auto times = ping_pong(comm, p.a, p.b, 1, 3, intact);
    quiet_barrier();
    EXPECT_TRUE(intact);
    if (world_rank() == p.a) {
      EXPECT_GE(*std::min_element(times.begin(), times.end()), p.latency) << p.a << "-" << p.b;
      EXPECT_LT(median(times), p.latency + 1.5e-3) << p.a << "-" << p.b;
    }
  }
}

TEST(LinkTable, PlatformPairsOverrideTheDefaultInBothDirections) {
  const auto map = ClusterMap::from_labels({"x", "y", "z"});
  testing::TempDir dir;
  const std::string path = dir / "p.txt";
  std::ofstream(path) << "y x 2ms 10MB/s\n* * 5ms 1MB/s\n";
  const LinkTable t = LinkTable::from_platform_file(path, map, LinkParameters{9, 9});
  EXPECT_EQ(t.between(0, 1), (LinkParameters{2e-3, 10e6}));
  EXPECT_EQ(t.between(1, 0), (LinkParameters{2e-3, 10e6}));
  EXPECT_EQ(t.between(0, 2), (LinkParameters{5e-3, 1e6}));
  EXPECT_EQ(t.between(2, 1), (LinkParameters{5e-3, 1e6}));
  EXPECT_FALSE(t.one_link());
  EXPECT_EQ(t.label(), "p");
  // Without '* *' the options' link fills the gaps.
  std::ofstream(path) << "y x 2ms 10MB/s\n";
  const LinkTable u = LinkTable::from_platform_file(path, map, LinkParameters{1e-3, 12.5e6});
  EXPECT_EQ(u.between(2, 0), (LinkParameters{1e-3, 12.5e6}));
  EXPECT_EQ(LinkTable::uniform(2, {1e-3, 12.5e6}).label(), "100Mbit-1ms");
}

TEST(LinkTable, BadPlatformFilesNameTheFileAndLine) {
  const auto map = ClusterMap::from_labels({"x", "y", "z"});
  testing::TempDir dir;
  const std::string path = dir / "bad.txt";
  const std::pair<std::string, std::string> cases[] = {
      {"x y 1ms 1Mbit/s\nx w 1ms 1Mbit/s\n", ":2: unknown cluster 'w'"},
      {"x y 1ms\n", ":1: expected 'CLUSTER CLUSTER LATENCY BANDWIDTH'"},
      {"# c\nx y 1ms 0Mbit/s\n", ":2: bandwidth '0Mbit/s' must be positive"},
      {"x y 1ms -3Mbit/s\n", ":1: bandwidth '-3Mbit/s' must be positive"},
      {"x y -1ms 3Mbit/s\n", ":1: latency '-1ms' must be non-negative"},
      {"x y 1ms 3Mbit/s\ny x 1ms 3Mbit/s\n",
       ":2: clusters 'y' and 'x' already have a link (line 1)"},
      {"x x 1ms 3Mbit/s\n", ":1: cluster 'x' has no wide-area link to itself"},
      {"x * 1ms 3Mbit/s\n", ":1: '*' stands for every pair"},
      {"x y 1ms 3Mbit/s\n", "no link between clusters 'x' and 'z'"},
  };
  for (const auto& [text, expected] : cases) {
    std::ofstream(path) << text;
    try {
      LinkTable::from_platform_file(path, map, std::nullopt);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("--platform: " + path, 0), 0u) << message;
      EXPECT_NE(message.find(expected), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(Relay, MessagesArriveIntactAndInOrderThroughTheGateways) {
  const int size = world_size();
  const int rank = world_rank();
  const auto map = ClusterMap::blocks(size, 2);
  auto wide = WideArea::create(MPI_COMM_WORLD, map, std::nullopt, true);
  ASSERT_TRUE(wide->relays());
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"all"}, true, wide);
  EXPECT_TRUE(comm.relays());
  const int peer = partner(rank, size);
  std::uint64_t crossing = 0;  // inter-cluster messages this rank sent

  for (const std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{100000}}) {
    const auto out = pattern(bytes, rank);
    std::vector<unsigned char> in(bytes, 0);
    comm.sendrecv(0, out.data(), bytes, peer, in.data(), bytes, peer, 11);
    EXPECT_EQ(in, pattern(bytes, peer)) << bytes;
    ++crossing;
  }
  // Blocking calls, the first cluster sending first.
  for (int turn = 0; turn < 2; ++turn) {
    const auto out = pattern(5000, rank + 100);
    std::vector<unsigned char> in(5000, 0);
    if ((map.cluster_of(rank) == 0) == (turn == 0)) {
      comm.send(0, out.data(), out.size(), peer, 12);
      ++crossing;
    } else {
      comm.recv(0, in.data(), in.size(), peer, 12);
      EXPECT_EQ(in, pattern(5000, peer + 100));
    }
  }
  // All-to-all with three messages per pair under one tag: they must keep their order.
  constexpr int kRepeats = 3;
  std::vector<std::vector<unsigned char>> outs;
  std::vector<std::vector<unsigned char>> ins;
  InstrumentedComm::Batch batch;
  outs.reserve(static_cast<size_t>(size) * kRepeats);
  ins.reserve(static_cast<size_t>(size) * kRepeats);
  for (int p = 0; p < size; ++p) {
    for (int k = 0; k < kRepeats; ++k) {
      if (p == rank) continue;
      ins.emplace_back(300, 0);
      comm.post_recv(0, batch, ins.back().data(), 300, p, 13);
      outs.push_back(pattern(300, rank * 1000 + p * 10 + k));
      comm.post_send(0, batch, outs.back().data(), 300, p, 13);
      if (!map.same_cluster(rank, p)) ++crossing;
    }
  }
  comm.complete(0, batch);
  std::size_t i = 0;
  for (int p = 0; p < size; ++p) {
    for (int k = 0; k < kRepeats; ++k) {
      if (p == rank) continue;
      EXPECT_EQ(ins[i++], pattern(300, p * 1000 + rank * 10 + k)) << "from " << p << " #" << k;
    }
  }
  wide->finish();
  // Every crossing message was handed on by at least the receiving cluster's gateway.
  unsigned long long forwarded = wide->relay()->forwarded();
  unsigned long long sent = crossing;
  unsigned long long totals[2] = {0, 0};
  const unsigned long long mine[2] = {forwarded, sent};
  MPI_Allreduce(mine, totals, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GE(totals[0], totals[1]);
  EXPECT_GT(totals[1], 0u);
}

TEST(Relay, RelayedMessagesStillCrossTheEmulatedLink) {
  const int size = world_size();
  const int rank = world_rank();
  const auto map = ClusterMap::blocks(size, 2);
  const LinkParameters link{3e-3, 50e6};
  auto wide = emulated(map, link.latency, link.bandwidth, true);
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"link"}, true, wide);
  const int peer = partner(rank, size);
  const std::size_t bytes = 200000;
  const auto out = pattern(bytes, rank);
  std::vector<unsigned char> in(bytes);
  quiet_barrier();
  const std::int64_t sent = LinkClock::now();
  comm.sendrecv(0, out.data(), bytes, peer, in.data(), bytes, peer, 21);
  const std::int64_t held = LinkClock::now();
  std::int64_t peer_sent = 0;
  MPI_Sendrecv(&sent, 1, MPI_INT64_T, peer, 98, &peer_sent, 1, MPI_INT64_T, peer, 98,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT_GE((held - peer_sent) * 1e-9, link.transfer_time(bytes) * (1 - 1e-3));
  EXPECT_EQ(in, pattern(bytes, peer));
  wide->finish();
}

}  // namespace
}  // namespace mcb::harness

namespace mcb::harness {
namespace {

// The global reduction and barrier cross the emulated links as every other message does, and
// through the gateways when relayed; results are those of MPI's own collectives.
TEST(WanCollectives, AllreduceAndBarrierPayTheLinkAndAgreeWithMpi) {
  const int size = world_size();
  const int rank = world_rank();
  const auto map = ClusterMap::blocks(size, 2);
  const double latency = 0.005;
  for (const bool relay : {false, true}) {
    auto wide = emulated(map, latency, 1e9, relay);
    InstrumentedComm comm(MPI_COMM_WORLD, map, {"all"}, true, wide);
    for (int round = 0; round < 3; ++round) {
      const double mine = std::sin(1.0 + rank * 7.0 + round);
      double expected = 0;
      MPI_Allreduce(&mine, &expected, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      quiet_barrier();
      const double start = MPI_Wtime();
      const double got = comm.allreduce_max(mine);
      const double elapsed = MPI_Wtime() - start;
      EXPECT_EQ(got, expected) << "relay " << relay;
      // Some rank of the second cluster must hear from the first and back: two crossings.
      double slowest = 0;
      MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      EXPECT_GE(slowest, 2 * latency) << "relay " << relay;
    }
    quiet_barrier();
    const double start = MPI_Wtime();
    comm.barrier();
    double slowest = 0;
    const double elapsed = MPI_Wtime() - start;
    MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_GE(slowest, 2 * latency);
    EXPECT_EQ(comm.stats(0).sent[1].messages, 0u) << "collectives are not booked to channels";
    wide->finish();
  }
}

}  // namespace
}  // namespace mcb::harness
