// Hand-worked schedules of seed 004's grid: duplicates and their cancellation cost, the first
// allocation winning, and Ideal Min as the benchmark no ranker beats; an overloaded run is
// saturated.
#include "redundant/grid.hpp"
#include "redundant/ranker.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace mcb::redundant {
namespace {

GridConfig config(std::vector<int> sites, bool backfilling, const std::string& ranker, int d) {
  GridConfig c;
  c.sites = std::move(sites);
  c.backfilling = backfilling;
  c.ranker = ranker;
  c.duplicates = d;
  c.warmup_jobs = 0;
  return c;
}

ListedJob local(Time submit, int site, int size, double runtime, double requested = -1) {
  return {submit, size, runtime, requested < 0 ? runtime : requested, kLocalJob, site};
}

ListedJob global(Time submit, int size, double runtime, double requested = -1) {
  return {submit, size, runtime, requested < 0 ? runtime : requested, kGlobalJob, -1};
}

const CopyRecord& copy_of(const std::vector<CopyRecord>& copies, std::int64_t job, int site) {
  const auto it = std::find_if(copies.begin(), copies.end(),
                               [&](const CopyRecord& r) { return r.job == job && r.site == site; });
  EXPECT_NE(it, copies.end()) << "job " << job << " at site " << site;
  return *it;
}

// Two sites of 4: site 0 frees at 10, site 1 at 20. The global job (job 2) arrives at 1 with
// one duplicate: its copy at site 0 wins at 10; the copy at site 1 is allocated at 20 and
// released after the cost. The local job queued behind it at site 1 starts when it is
// released: at 21 with a cost of 1 s, at 25 with 5 s.
TEST(Duplicates, RedundantAllocationIsReleasedAfterTheCancellationCost) {
  for (const bool backfilling : {false, true}) {
    for (const double cost : {1.0, 5.0}) {
      GridConfig c = config({4, 4}, backfilling, "qlen", 1);
      c.cancel_cost = cost;
      std::vector<CopyRecord> copies;
      const auto r = run_listed(
          c, {local(0, 0, 4, 10), local(0, 1, 4, 20), global(1, 4, 100), local(2, 1, 4, 5)},
          &copies);
      ASSERT_TRUE(r.valid) << r.verdict;
      EXPECT_EQ(r.redundant_allocations, 1u);
      const auto& winner = copy_of(copies, 2, 0);
      EXPECT_FALSE(winner.redundant);
      EXPECT_EQ(winner.start, 10);
      EXPECT_EQ(winner.end, 110);
      const auto& spare = copy_of(copies, 2, 1);
      EXPECT_TRUE(spare.redundant);
      EXPECT_EQ(spare.start, 20);
      EXPECT_EQ(spare.end, 20 + cost);
      EXPECT_EQ(copy_of(copies, 3, 1).start, 20 + cost);
      EXPECT_DOUBLE_EQ(r.global_wait_mean, 9);
    }
  }
}

// Flooding three sites that free at 30, 10 and 20: the copy allocated first (site 1, at 10)
// runs the job whatever the ranking; the two later allocations are redundant.
TEST(Duplicates, EarliestAllocationWins) {
  for (const auto& ranker : ranker_names()) {
    std::vector<CopyRecord> copies;
    const auto r = run_listed(
        config({4, 4, 4}, false, ranker, 2),
        {local(0, 0, 4, 30), local(0, 1, 4, 10), local(0, 2, 4, 20), global(1, 2, 50)}, &copies);
    ASSERT_TRUE(r.valid) << r.verdict;
    EXPECT_FALSE(copy_of(copies, 3, 1).redundant) << ranker;
    EXPECT_EQ(copy_of(copies, 3, 1).start, 10);
    EXPECT_TRUE(copy_of(copies, 3, 0).redundant);
    EXPECT_TRUE(copy_of(copies, 3, 2).redundant);
    EXPECT_EQ(r.redundant_allocations, 2u);
    EXPECT_DOUBLE_EQ(r.global_wait_mean, 9);
  }
}

// Without duplicates each global job goes to one site. Site 0 is busy until 40, site 1 ends
// its job at 10 though it asked for 100 and has a 5 s job queued, site 2 is busy until 30.
// Requested times send the job to site 2 (wait 29); actual runtimes to site 1 (10 + 5 - 1 =
// 14). Repeated every 1000 s; no ranker beats Ideal Min on any seed.
TEST(Rankers, IdealMinIsNeverBeaten) {
  std::vector<ListedJob> jobs;
  for (int k = 0; k < 5; ++k) {
    const Time t = 1000.0 * k;
    jobs.push_back(local(t, 0, 4, 40));
    jobs.push_back(local(t, 1, 4, 10, 100));
    jobs.push_back(local(t, 1, 4, 5));
    jobs.push_back(local(t, 2, 4, 30));
    jobs.push_back(global(t + 1, 4, 1));
  }
  for (const bool backfilling : {false, true}) {
    GridConfig c = config({4, 4, 4}, backfilling, "ideal-min", 0);
    const auto ideal = run_listed(c, jobs);
    ASSERT_TRUE(ideal.valid) << ideal.verdict;
    EXPECT_DOUBLE_EQ(ideal.global_wait_mean, 14);
    c.ranker = "est-qt";
    EXPECT_DOUBLE_EQ(run_listed(c, jobs).global_wait_mean, 29);
    for (const auto& ranker : ranker_names()) {
      for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        c.ranker = ranker;
        c.seed = seed;
        const auto r = run_listed(c, jobs);
        ASSERT_TRUE(r.valid) << r.verdict;
        EXPECT_GE(r.global_wait_mean, ideal.global_wait_mean) << ranker << " seed " << seed;
      }
    }
  }
}

// The forecast replays each site's discipline. Site 0 runs a 2-processor job until 50 with a
// 4-processor job queued; site 1 is full until 20. A 2-processor job of 5 s arriving at 1
// could backfill at site 0 at once under conservative backfilling (wait 0) but would queue
// until 60 under FCFS, where site 1 (wait 19) is better.
TEST(Rankers, ForecastReplaysTheSiteDiscipline) {
  for (const bool backfilling : {false, true}) {
    std::vector<CopyRecord> copies;
    const auto r = run_listed(
        config({4, 4}, backfilling, "ideal-min", 0),
        {local(0, 0, 2, 50), local(0, 0, 4, 10), local(0, 1, 4, 20), global(1, 2, 5)}, &copies);
    ASSERT_TRUE(r.valid) << r.verdict;
    EXPECT_EQ(copies.size(), 4u);
    const int site = backfilling ? 0 : 1;
    EXPECT_EQ(copy_of(copies, 3, site).start, backfilling ? 1 : 20);
    EXPECT_DOUBLE_EQ(r.global_wait_mean, backfilling ? 0 : 19);
  }
}

// A conservative site reserves a job for its requested time, so a hole too short for the job
// is no start. Site 0 (4 processors) runs a 2-processor job until 20 and has a 4-processor job
// reserved at [20, 30); site 1 is full until 10. A 2-processor job of 50 s arriving at 1
// would fit site 0's 2 free processors for a moment only: it is reserved there at 30 (wait
// 29), so Ideal Min and Est. QT send it to site 1 (wait 9). Under FCFS it would wait for the
// 4-processor job at site 0 as well.
TEST(Rankers, AConservativeForecastNeedsAHoleAsLongAsTheJob) {
  for (const bool backfilling : {false, true}) {
    for (const std::string ranker : {"ideal-min", "est-qt"}) {
      std::vector<CopyRecord> copies;
      const auto r = run_listed(
          config({4, 4}, backfilling, ranker, 0),
          {local(0, 0, 2, 20), local(0, 0, 4, 10), local(0, 1, 4, 10), global(1, 2, 50)}, &copies);
      ASSERT_TRUE(r.valid) << r.verdict;
      EXPECT_EQ(copy_of(copies, 3, 1).start, 10) << ranker << " backfilling " << backfilling;
      EXPECT_DOUBLE_EQ(r.global_wait_mean, 9) << ranker << " backfilling " << backfilling;
    }
  }
}

// Ideal Min under conservative backfilling is the start the job really gets, not the plan a
// site would make had it known the actual runtimes. Site 0 (4 processors) runs a 2-processor
// job that ends at 10 though it asked for 100, with a 4-processor job of 10 s queued; site 1
// is full until 10. A 2-processor job of 20 s arriving at 1:
// - at site 0 the site reserves the 4-processor job at [100, 110) (the running job's request),
//   so the new job fits beside the running one at once: it starts at 1 (wait 0); when the
//   running job ends at 10 the queued one moves to 21;
// - a plan with the actual runtimes would put the queued job at [10, 20) and the new one after
//   it, at 20 (wait 19), and send it to site 1 (wait 9).
TEST(Rankers, IdealMinPlaysConservativeBackfillingForward) {
  std::vector<CopyRecord> copies;
  const auto r = run_listed(
      config({4, 4}, true, "ideal-min", 0),
      {local(0, 0, 2, 10, 100), local(0, 0, 4, 10), local(0, 1, 4, 10), global(1, 2, 20)}, &copies);
  ASSERT_TRUE(r.valid) << r.verdict;
  EXPECT_EQ(copy_of(copies, 3, 0).start, 1);
  EXPECT_EQ(copy_of(copies, 1, 0).start, 21);
  EXPECT_DOUBLE_EQ(r.global_wait_mean, 0);
}

// A synthetic run verifies itself and repeats bit for bit from its seed.
TEST(Grid, SyntheticRunIsValidAndRepeatable) {
  GridConfig c = config(std::vector<int>(8, 64), true, "qlen", 2);
  c.global_jobs = 400;
  c.warmup_jobs = 40;
  c.local_load = 0.7;
  const auto a = run_grid(c);
  const auto b = run_grid(c);
  ASSERT_TRUE(a.valid) << a.verdict;
  EXPECT_EQ(a.global_wait_mean, b.global_wait_mean);
  EXPECT_EQ(a.local_wait_mean, b.local_wait_mean);
  EXPECT_EQ(a.redundant_allocations, 400u * 2);
  EXPECT_EQ(a.global_measured, 360u);
}

// Co-allocated under FCFS on 8 x 48 at local load 0.6 the grid is overloaded: global jobs
// averaging 1800 s waited 103,440 s on average over 1200 jobs, far from the limit on jobs in
// the system, and the run was called VALID. The waiting jobs grow over the window by
// thousands, past max(50, 1% of the jobs that arrived): saturated, as mcb-sim says it.
TEST(Grid, OverloadedRunIsSaturated) {
  GridConfig c = config(std::vector<int>(8, 48), false, "random", 0);
  c.local_load = 0.6;
  c.sync = Sync::stop_and_wait;
  c.seed = 41;
  c.global_jobs = 1200;
  const auto r = run_grid(c);
  EXPECT_TRUE(r.saturated);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.verdict.rfind("saturated: the waiting jobs grew by", 0), 0u) << r.verdict;
  EXPECT_GT(r.backlog_growth, r.backlog_limit);
  EXPECT_GE(r.backlog_limit, 50);
  EXPECT_GT(r.global_wait_mean, 50 * c.work.runtime_mean);
  // Under conservative backfilling a shorter run of the grid holds.
  c.backfilling = true;
  c.global_jobs = 345;
  const auto held = run_grid(c);
  EXPECT_TRUE(held.valid) << held.verdict;
  EXPECT_FALSE(held.saturated);
  EXPECT_LE(held.backlog_growth, held.backlog_limit);
}

// On 64,64,32,32 sites a global job larger than 32 gets copies only where it fits.
TEST(Grid, CopiesOnlyWhereTheJobFits) {
  std::vector<CopyRecord> copies;
  const auto r =
      run_listed(config({64, 64, 32, 32}, false, "random", 3), {global(0, 48, 10)}, &copies);
  ASSERT_TRUE(r.valid) << r.verdict;
  EXPECT_EQ(copies.size(), 2u);
  for (const auto& c : copies) EXPECT_LT(c.site, 2);
}

}  // namespace
}  // namespace mcb::redundant
