// The harness's collective pieces at 1, 2 and 4 ranks: per-class bookkeeping of nonblocking
// batches, gathering records, recording a failed run, the paper's timeline reduction, agreed
// usage errors.
#include <gtest/gtest.h>
#include <mpi.h>

#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/errors.hpp"
#include "common/run_record.hpp"
#include "harness/comm.hpp"
#include "harness/mpi_program.hpp"
#include "harness/record.hpp"
#include "harness/timeline.hpp"
#include "tests/support/records.hpp"

namespace mcb::harness {
namespace {

int rank_of(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
int size_of(MPI_Comm c) {
  int s = 0;
  MPI_Comm_size(c, &s);
  return s;
}

TEST(InstrumentedComm, BatchBooksEveryMessageByPeerClass) {
  const int size = size_of(MPI_COMM_WORLD);
  const int rank = rank_of(MPI_COMM_WORLD);
  // Alternate clusters: rank r is in cluster r % 2.
  std::vector<int> clusters(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) clusters[static_cast<size_t>(r)] = r % 2;
  InstrumentedComm comm(MPI_COMM_WORLD, ClusterMap(clusters), {"all"});
  // Everyone sends 8*(r+1) bytes to everyone else.
  std::vector<std::vector<double>> in(static_cast<size_t>(size));
  std::vector<double> out(static_cast<size_t>(rank + 1), rank);
  InstrumentedComm::Batch batch;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    in[static_cast<size_t>(peer)].resize(static_cast<size_t>(peer) + 1);
    comm.post_recv(0, batch, in[static_cast<size_t>(peer)].data(),
                   8 * in[static_cast<size_t>(peer)].size(), peer, 1);
    comm.post_send(0, batch, out.data(), 8 * out.size(), peer, 1);
  }
  comm.complete(0, batch);
  std::uint64_t expect_recv[2] = {0, 0}, expect_msgs[2] = {0, 0};
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    EXPECT_EQ(in[static_cast<size_t>(peer)][0], peer);
    const int cls = (peer % 2 == rank % 2) ? 0 : 1;
    expect_recv[cls] += 8 * static_cast<std::uint64_t>(peer + 1);
    ++expect_msgs[cls];
  }
  const ChannelStats& s = comm.stats(0);
  for (int cls = 0; cls < 2; ++cls) {
    EXPECT_EQ(s.received[cls].bytes, expect_recv[cls]) << "class " << cls;
    EXPECT_EQ(s.received[cls].messages, expect_msgs[cls]);
    EXPECT_EQ(s.sent[cls].messages, expect_msgs[cls]);
    EXPECT_EQ(s.sent[cls].bytes, expect_msgs[cls] * 8 * static_cast<std::uint64_t>(rank + 1));
  }
  const auto json = comm.stats_json();
  EXPECT_EQ(json["all"]["received"]["inter"]["bytes"].get<std::uint64_t>(), expect_recv[1]);
}

TEST(InstrumentedComm, UninstrumentedKeepsNoBooks) {
  const int size = size_of(MPI_COMM_WORLD);
  const int rank = rank_of(MPI_COMM_WORLD);
  InstrumentedComm comm(MPI_COMM_WORLD, ClusterMap::single(size), {"ring"}, false);
  double mine = rank, got = -1;
  comm.sendrecv(0, &mine, sizeof mine, (rank + 1) % size, &got, sizeof got,
                (rank + size - 1) % size, 3);
  EXPECT_EQ(got, (rank + size - 1) % size);
  EXPECT_EQ(comm.stats(0).sent[0].messages, 0u);
  EXPECT_EQ(comm.total_time(), 0.0);
}

TEST(Records, GatherObjectsCollectsEveryRankInOrder) {
  const int size = size_of(MPI_COMM_WORLD);
  const int rank = rank_of(MPI_COMM_WORLD);
  nlohmann::json mine = {{"rank", rank}, {"text", std::string(static_cast<size_t>(rank * 3), 'x')}};
  const auto all = gather_objects(MPI_COMM_WORLD, mine);
  if (rank == 0) {
    ASSERT_EQ(all.size(), static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) EXPECT_EQ(all[static_cast<size_t>(r)]["rank"], r);
  } else {
    EXPECT_TRUE(all.is_null());
  }
  const auto s = spread(MPI_COMM_WORLD, static_cast<double>(rank));
  EXPECT_EQ(s["min"], 0.0);
  EXPECT_EQ(s["max"], static_cast<double>(size - 1));
  EXPECT_DOUBLE_EQ(s["avg"].get<double>(), (size - 1) / 2.0);
}

TEST(Records, AFailedRunIsRecordedOnceByRankZeroWithItsReason) {
  const int rank = rank_of(MPI_COMM_WORLD);
  std::optional<mcb::testing::TempDir> dir;
  std::string path = "none";
  if (rank == 0) {
    dir.emplace();
    path = *dir / "runs.jsonl";
  }
  const nlohmann::json header = {
      {"schema", mcb::kRunRecordSchema}, {"run_id", "f-1"}, {"app", "test"}};
  EXPECT_EQ(record_failure(MPI_COMM_WORLD, "mcb-test", path, header, "rank 1: out of memory"), 1);
  if (rank == 0) {
    const auto records = mcb::testing::read_records(path);
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0]["status"], "failed");
    EXPECT_EQ(records[0]["reason"], "rank 1: out of memory");
    EXPECT_EQ(records[0]["run_id"], "f-1");
  }
}

TEST(Timeline, PaperTimeIsLastCommunicationEndMinusLastComputationEndSummedOverPhases) {
  const int rank = rank_of(MPI_COMM_WORLD);
  const int size = size_of(MPI_COMM_WORLD);
  // Rank r ends computing phase p at 100p + r (the last rank last) and communicating at
  // 100p + 50 - r (rank 0 last): each phase lasts 50 - (size - 1) seconds.
  CommTimeline timeline;
  for (int p = 0; p < 3; ++p) timeline.add_phase(100.0 * p + rank, 100.0 * p + 50 - rank);
  EXPECT_DOUBLE_EQ(timeline.paper_time(MPI_COMM_WORLD, 0.0), 3.0 * (51 - size));
  // On rank 0's clock, rank r's stamps are r seconds earlier: every computation ends at 100p
  // and the last communication still at 100p + 50.
  EXPECT_DOUBLE_EQ(timeline.paper_time(MPI_COMM_WORLD, -static_cast<double>(rank)), 150.0);
  EXPECT_EQ(estimate_clock_offset(MPI_COMM_WORLD), 0.0) << "one host, one clock";
}

TEST(Timeline, DisabledTimelineStampsNothingAndReportsZero) {
  CommTimeline timeline(false);
  timeline.computation_done();
  timeline.communication_done();
  timeline.add_phase(1.0, 2.0);
  EXPECT_EQ(timeline.phases(), 0u);
  EXPECT_EQ(timeline.paper_time(MPI_COMM_WORLD, 0.0), 0.0);
}

TEST(Timeline, RanksWithDifferentPhaseCountsAreRefusedOnEveryRank) {
  if (size_of(MPI_COMM_WORLD) < 2) GTEST_SKIP() << "needs two ranks to disagree";
  CommTimeline timeline;
  timeline.add_phase(1.0, 2.0);
  if (rank_of(MPI_COMM_WORLD) == 0) timeline.add_phase(3.0, 4.0);
  EXPECT_THROW(timeline.paper_time(MPI_COMM_WORLD, 0.0), std::logic_error);
}

TEST(MpiProgram, UsageErrorOnOneRankStopsEveryRankWithItsMessage) {
  const int size = size_of(MPI_COMM_WORLD);
  const int rank = rank_of(MPI_COMM_WORLD);
  const int culprit = size - 1;
  try {
    collective_check(MPI_COMM_WORLD, [&] {
      if (rank == culprit) throw UsageError("--output: cannot write 'x'");
    });
    FAIL() << "no error raised on rank " << rank;
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--output: cannot write 'x'");
  }
  const std::string failure = collective_try(MPI_COMM_WORLD, [&] {
    if (rank == 0) throw std::runtime_error("out of memory");
  });
  EXPECT_EQ(failure, "out of memory");
  EXPECT_EQ(collective_try(MPI_COMM_WORLD, [] {}), "");
}

}  // namespace
}  // namespace mcb::harness
