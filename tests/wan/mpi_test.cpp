// The wide area in the harness under MPI, as the applications use it: every point-to-point path
// of InstrumentedComm over emulated links and through the gateway relay. What the emulation
// decided is checked in its own account, the link clock's bookings (when each message was let
// onto its link and through, LinkBooking); wall-clock times only in the one direction a busy
// host cannot break (a message never arrives before latency + bytes / bandwidth after it was
// sent). How promptly a host delivers at those times is measured, not asserted: wan_bench and
// mcb-links (their records).
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
#include <iterator>
#include <numeric>
#include <string>
#include <tuple>
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

// Nanoseconds as the link clock rounds them.
std::int64_t ns(double seconds) { return std::llround(seconds * 1e9); }

// A booking and the rank that made it.
struct Booked {
  int rank;
  LinkBooking booking;
};

// Every rank's bookings since the last call, on rank 0, in the order the links took them.
std::vector<Booked> gather_bookings(LinkClock& clock) {
  constexpr int kFields = 7;
  std::vector<std::int64_t> mine;
  for (const LinkBooking& b : clock.take_bookings()) {
    mine.insert(mine.end(), {b.from, b.to, static_cast<std::int64_t>(b.bytes), b.sent, b.start,
                             b.done, b.arrival});
  }
  const int size = world_size();
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(static_cast<size_t>(size), 0);
  std::partial_sum(counts.begin(), counts.end() - 1, offsets.begin() + 1);
  std::vector<std::int64_t> all(static_cast<size_t>(offsets.back() + counts.back()));
  MPI_Gatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(), offsets.data(),
              MPI_INT64_T, 0, MPI_COMM_WORLD);
  std::vector<Booked> booked;
  for (int r = 0; r < size && world_rank() == 0; ++r) {
    const auto* f = all.data() + offsets[static_cast<size_t>(r)];
    for (int i = 0; i < counts[static_cast<size_t>(r)]; i += kFields, f += kFields) {
      booked.push_back({r,
                        {static_cast<int>(f[0]), static_cast<int>(f[1]),
                         static_cast<std::size_t>(f[2]), f[3], f[4], f[5], f[6]}});
    }
  }
  std::sort(booked.begin(), booked.end(), [](const Booked& x, const Booked& y) {
    return std::tie(x.booking.from, x.booking.to, x.booking.start) <
           std::tie(y.booking.from, y.booking.to, y.booking.start);
  });
  return booked;
}

// The link's rule on one direction's bookings (in the order taken): each message waits for the
// one before it (first come, first served), then holds the link for bytes / bandwidth alone, and
// arrives a latency later. So the link never carries two messages at once, whoever sent them.
void expect_one_link_rule(const std::vector<Booked>& booked, const LinkParameters& link,
                          std::int64_t free_before) {
  std::int64_t free = free_before;
  for (const auto& [rank, b] : booked) {
    EXPECT_EQ(b.start, std::max(b.sent, free)) << "rank " << rank << ", booked at " << b.sent;
    EXPECT_EQ(b.done - b.start, ns(static_cast<double>(b.bytes) / link.bandwidth)) << rank;
    EXPECT_EQ(b.arrival - b.done, ns(link.latency)) << rank;
    free = b.done;
  }
}

TEST(WanEmulation, PingPongAcrossClustersTakesLatencyPlusBytesOverBandwidth) {
  const int size = world_size();
  const auto map = ClusterMap::blocks(size, 2);
  const LinkParameters link{2e-3, 50e6};
  auto wide = emulated(map, link.latency, link.bandwidth);
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"link"}, true, wide);
  wide->clock()->keep_bookings();
  const int a = 0;
  const int b = size / 2;
  for (const std::size_t bytes :
       {std::size_t{1}, std::size_t{4096}, std::size_t{262144}, std::size_t{4} << 20}) {
    quiet_barrier();
    bool intact = true;
    const int rounds = bytes > 1'000'000 ? 2 : 5;
    const auto times = ping_pong(comm, a, b, bytes, rounds, intact);
    quiet_barrier();
    EXPECT_TRUE(intact) << bytes << " bytes";
    // The emulation's account: one message in flight at a time, so each found its link free and
    // was let through in latency + bytes / bandwidth from its sending, each way.
    const auto booked = gather_bookings(*wide->clock());
    if (world_rank() != a) continue;
    ASSERT_EQ(booked.size(), 2u * static_cast<size_t>(rounds)) << bytes << " bytes";
    for (const auto& [rank, k] : booked) {
      EXPECT_TRUE(rank == a || rank == b) << rank;
      EXPECT_EQ(k.from, rank == a ? 0 : 1);
      EXPECT_EQ(k.to, rank == a ? 1 : 0);
      EXPECT_EQ(k.bytes, bytes);
      EXPECT_EQ(k.start, k.sent) << bytes << " bytes";
      EXPECT_EQ(k.arrival - k.sent,
                ns(static_cast<double>(bytes) / link.bandwidth) + ns(link.latency))
          << bytes << " bytes";
    }
    // And the receivers waited for those times: no one-way time below latency + N / B (a busy
    // host makes them only later).
    const double expected = link.transfer_time(static_cast<double>(bytes));
    EXPECT_GE(*std::min_element(times.begin(), times.end()), expected * (1 - 1e-3))
        << bytes << " bytes";
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
  wide->clock()->keep_bookings();
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"link"}, true, wide);
  quiet_barrier();
  bool intact = true;
  ping_pong(comm, 0, 1, 1024, 20, intact);
  quiet_barrier();
  EXPECT_TRUE(intact);
  // Not one of the 40 messages was put on the emulated link (where 1 KiB would take 51 ms):
  // no rank booked it, and the books class them as intra-cluster.
  const auto booked = gather_bookings(*wide->clock());
  if (world_rank() == 0) {
    EXPECT_TRUE(booked.empty()) << booked.size() << " bookings";
    EXPECT_EQ(comm.stats(0).sent[static_cast<size_t>(PeerClass::intra)].messages, 20u);
    EXPECT_EQ(comm.stats(0).sent[static_cast<size_t>(PeerClass::inter)].messages, 0u);
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

// `rounds` windows of `window` messages from pair.first to pair.second, each window
// acknowledged; true when every message arrived intact (on the receiver; true elsewhere).
bool stream(InstrumentedComm& comm, std::pair<int, int> pair, std::size_t bytes, int window,
            int rounds) {
  const int rank = comm.rank();
  if (rank != pair.first && rank != pair.second) return true;
  const auto out = pattern(bytes, pair.first);
  std::vector<unsigned char> buffer(bytes * static_cast<size_t>(window));
  bool intact = true;
  char ack = 0;
  for (int r = 0; r < rounds; ++r) {
    InstrumentedComm::Batch batch;
    for (int m = 0; m < window; ++m) {
      if (rank == pair.first) {
        comm.post_send(0, batch, out.data(), bytes, pair.second, 5);
      } else {
        comm.post_recv(0, batch, buffer.data() + bytes * static_cast<size_t>(m), bytes, pair.first,
                       5);
      }
    }
    comm.complete(0, batch);
    if (rank == pair.first) {
      comm.recv(0, &ack, 1, pair.second, 6);
    } else {
      for (int m = 0; m < window; ++m) {
        intact = intact &&
                 std::equal(out.begin(), out.end(), buffer.begin() + static_cast<long>(bytes) * m);
      }
      comm.send(0, &ack, 1, pair.first, 6);
    }
  }
  return intact;
}

// The bookings of the link from cluster `from` to cluster `to`.
std::vector<Booked> on_link(const std::vector<Booked>& booked, int from, int to) {
  std::vector<Booked> out;
  std::copy_if(booked.begin(), booked.end(), std::back_inserter(out),
               [&](const Booked& b) { return b.booking.from == from && b.booking.to == to; });
  return out;
}

// Two pairs streaming across one link direction at once share it: in the link clock's account
// the two pairs' messages queue on it one behind the other, each holding it for bytes /
// bandwidth, so together they never get more than its bandwidth. (How evenly two live streams
// split it on this host is measured by mcb-links' shared-link study, in its record.)
TEST(WanEmulation, TwoTransfersOnOneLinkShareItsBandwidth) {
  const int size = world_size();
  if (size != 4) GTEST_SKIP() << "needs two pairs across one link (4 ranks)";
  const auto map = ClusterMap::blocks(4, 2);  // {0,1} -> {2,3}
  const LinkParameters link{0.2e-3, 25e6};
  auto wide = emulated(map, link.latency, link.bandwidth);
  wide->clock()->keep_bookings();
  InstrumentedComm comm(MPI_COMM_WORLD, map, {"link"}, true, wide);
  const std::size_t bytes = 64 << 10;
  const int window = 4;
  const int rounds = 8;
  const int rank = world_rank();
  quiet_barrier();
  EXPECT_TRUE(stream(comm, {0, 2}, bytes, window, rounds)) << "alone";
  quiet_barrier();
  const auto alone = gather_bookings(*wide->clock());
  EXPECT_TRUE(stream(comm, rank == 0 || rank == 2 ? std::pair{0, 2} : std::pair{1, 3}, bytes,
                     window, rounds))
      << "together";
  quiet_barrier();
  const auto together = gather_bookings(*wide->clock());
  if (rank != 0) return;

  const auto first = on_link(alone, 0, 1);
  ASSERT_EQ(first.size(), static_cast<size_t>(window * rounds));
  for (const auto& b : first) EXPECT_EQ(b.rank, 0);
  expect_one_link_rule(first, link, 0);  // paced at the bandwidth, the link free before

  const auto shared = on_link(together, 0, 1);
  ASSERT_EQ(shared.size(), static_cast<size_t>(2 * window * rounds));
  EXPECT_EQ(
      std::count_if(shared.begin(), shared.end(), [](const Booked& b) { return b.rank == 1; }),
      window * rounds);
  expect_one_link_rule(shared, link, first.back().booking.done);
  // So the bytes both pairs sent took at least their time at the link's bandwidth.
  const double span =
      static_cast<double>(shared.back().booking.done - shared.front().booking.start);
  const double total = static_cast<double>(shared.size() * bytes);
  EXPECT_GE(span, total / link.bandwidth * 1e9 - static_cast<double>(shared.size()));
  // The acknowledgements went the other way, on a link of their own.
  EXPECT_EQ(on_link(together, 1, 0).size(), static_cast<size_t>(2 * rounds));
}

// The link state is one for every rank of the host: a message that one rank books while another
// rank's message holds the link waits until that one is through, whichever process sent it.
// The first booking holds the link for an hour, so the second surely finds it busy; the other
// direction stays free.
TEST(LinkClock, RanksQueueOnTheLinkTheyShare) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const LinkParameters link{1e-3, 1e6};
  LinkClock clock(MPI_COMM_WORLD, LinkTable::uniform(2, link));
  clock.keep_bookings();
  const std::size_t hour = 3'600'000'000;  // bytes at 1 MB/s
  if (world_rank() == 0) clock.reserve(0, 1, hour);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 1) {
    clock.reserve(0, 1, 1000);
    clock.reserve(1, 0, 1000);
  }
  const auto booked = gather_bookings(clock);
  if (world_rank() != 0) return;
  const auto forth = on_link(booked, 0, 1);
  ASSERT_EQ(forth.size(), 2u);
  EXPECT_EQ(forth[0].rank, 0);
  EXPECT_EQ(forth[1].rank, 1);
  EXPECT_LT(forth[1].booking.sent, forth[0].booking.done);
  expect_one_link_rule(forth, link, 0);
  EXPECT_EQ(forth[1].booking.start, forth[0].booking.done);
  const auto back = on_link(booked, 1, 0);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].booking.start, back[0].booking.sent);
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
  wide->clock()->keep_bookings();
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
    // Each way, the pair's own link: its latency and 1 byte at 1 Gbit/s after the sending.
    const auto booked = gather_bookings(*wide->clock());
    if (world_rank() == 0) {
      ASSERT_EQ(booked.size(), 6u) << p.a << "-" << p.b;
      for (const auto& [rank, b] : booked) {
        EXPECT_TRUE(rank == p.a || rank == p.b) << rank;
        EXPECT_EQ(b.from, map.cluster_of(rank));
        EXPECT_EQ(b.to, map.cluster_of(rank == p.a ? p.b : p.a));
        EXPECT_EQ(b.start, b.sent);
        EXPECT_EQ(b.arrival - b.sent, ns(p.latency) + ns(1 / 125e6)) << p.a << "-" << p.b;
      }
    }
    if (world_rank() == p.a) {
      EXPECT_GE(*std::min_element(times.begin(), times.end()), p.latency) << p.a << "-" << p.b;
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
