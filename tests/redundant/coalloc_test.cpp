// Hand-worked schedules of co-allocation over two sites (seed 004 section 2.1): the idle time
// stop-and-wait holds, hibernation and resubmission on a known schedule, the bounds on a job's
// processors, and synthetic runs that verify themselves under each method.
#include "redundant/coalloc.hpp"
#include "redundant/grid.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace mcb::redundant {
namespace {

GridConfig config(bool backfilling, Sync sync) {
  GridConfig c;
  c.sites = {4, 4};
  c.backfilling = backfilling;
  c.ranker = "qlen";
  c.duplicates = 0;
  c.warmup_jobs = 0;
  c.sync = sync;
  return c;
}

ListedJob local(Time submit, int site, int size, double runtime) {
  return {submit, size, runtime, runtime, kLocalJob, site};
}

ListedJob coalloc(Time submit, int upper, double runtime, int lower = 0) {
  return {submit, upper, runtime, runtime, kGlobalJob, -1, lower};
}

/// The copies of job @p job at @p site, in allocation order.
std::vector<CopyRecord> at(const std::vector<CopyRecord>& copies, std::int64_t job, int site) {
  std::vector<CopyRecord> out;
  std::copy_if(copies.begin(), copies.end(), std::back_inserter(out),
               [&](const CopyRecord& r) { return r.job == job && r.site == site; });
  return out;
}

// Site 0 is busy until 10, site 1 until 30. A job of 4 processors (two parts of 2) arrives at
// 1 and a local job of 4 processors of 5 s at site 0 at 2. The part at site 0 is allocated at
// 10 and holds its 2 processors idle until its partner is allocated at 30: exactly 20 s (40
// processor-seconds); both run 100 s from 30. The local job behind it waits for the hold's end.
TEST(StopAndWait, HoldsIdleForExactlyTheWaitOfThePartner) {
  for (const bool backfilling : {false, true}) {
    std::vector<CopyRecord> copies;
    const auto r = run_listed(
        config(backfilling, Sync::stop_and_wait),
        {local(0, 0, 4, 10), local(0, 1, 4, 30), coalloc(1, 4, 100), local(2, 0, 4, 5)}, &copies);
    ASSERT_TRUE(r.valid) << r.verdict;
    const auto hold = at(copies, 2, 0), run = at(copies, 2, 1);
    ASSERT_EQ(hold.size(), 1u);
    ASSERT_EQ(run.size(), 1u);
    EXPECT_EQ(hold[0].role, PartRole::hold);
    EXPECT_EQ(hold[0].start, 10);
    EXPECT_EQ(hold[0].end, 130);
    EXPECT_EQ(hold[0].procs, 2);
    EXPECT_EQ(run[0].role, PartRole::run);
    EXPECT_EQ(run[0].start, 30);
    EXPECT_EQ(run[0].end, 130);
    EXPECT_DOUBLE_EQ(r.global_wait_mean, 29);      // co-allocation time: submit to both parts
    EXPECT_DOUBLE_EQ(r.coalloc_hold_mean, 40);     // 20 s x 2 processors
    EXPECT_EQ(at(copies, 3, 0).at(0).start, 130);  // the local job waits for the held ones
    EXPECT_EQ(r.releases, 0u);
    EXPECT_EQ(r.redundant_allocations, 0u);
  }
}

// The same schedule under hibernation: the part allocated at 10 at site 0 releases its
// processors after the 1 s cost, the local job runs 11-16, and when the partner is allocated
// at 30 the hibernated part is woken and takes site 0's idle processors at once: no hold.
TEST(Hibernation, ReleasesTheFirstPartAndWakesItWithThePartner) {
  for (const bool backfilling : {false, true}) {
    std::vector<CopyRecord> copies;
    const auto r = run_listed(
        config(backfilling, Sync::hibernation),
        {local(0, 0, 4, 10), local(0, 1, 4, 30), coalloc(1, 4, 100), local(2, 0, 4, 5)}, &copies);
    ASSERT_TRUE(r.valid) << r.verdict;
    const auto site0 = at(copies, 2, 0), site1 = at(copies, 2, 1);
    ASSERT_EQ(site0.size(), 2u);
    EXPECT_EQ(site0[0].role, PartRole::release);
    EXPECT_EQ(site0[0].start, 10);
    EXPECT_EQ(site0[0].end, 11);
    EXPECT_EQ(site0[1].role, PartRole::run);  // woken
    EXPECT_EQ(site0[1].start, 30);
    EXPECT_EQ(site0[1].end, 130);
    ASSERT_EQ(site1.size(), 1u);
    EXPECT_EQ(site1[0].role, PartRole::hold);
    EXPECT_EQ(site1[0].start, 30);
    EXPECT_EQ(site1[0].end, 130);
    EXPECT_EQ(at(copies, 3, 0).at(0).start, 11);
    EXPECT_DOUBLE_EQ(r.global_wait_mean, 29);
    EXPECT_DOUBLE_EQ(r.coalloc_hold_mean, 0);
    EXPECT_EQ(r.releases, 1u);
  }
}

// Hibernation with preemption: as above, but site 0 is busy with two local jobs of 2
// processors when the partner is allocated at 30: C1 (submitted at 2, 50 s, started at 10
// beside the part that hibernates 10-11) and C2 (60 s, submitted and started at 12). The
// woken part needs 2 processors and preempts the most recently started local job, C2, with
// 42 s left; both parts compute 30-130. C2 resumes at the head of site 0's queue when C1
// frees 2 processors at 60 and ends at 60 + 42 = 102. Measured local waits (jobs from the
// first global one on): C1 8 s, C2 0 s plus its 30 s suspended.
TEST(Hibernation, WokenPartPreemptsTheLatestLocalJob) {
  for (const bool backfilling : {false, true}) {
    std::vector<CopyRecord> copies;
    const auto r = run_listed(config(backfilling, Sync::hibernation),
                              {local(0, 0, 4, 10), local(0, 1, 4, 30), coalloc(1, 4, 100),
                               local(2, 0, 2, 50), local(12, 0, 2, 60)},
                              &copies);
    ASSERT_TRUE(r.valid) << r.verdict;
    const auto woken = at(copies, 2, 0).at(1), partner = at(copies, 2, 1).at(0);
    EXPECT_EQ(woken.role, PartRole::run);
    EXPECT_EQ(woken.start, 30);
    EXPECT_EQ(woken.end, 130);
    EXPECT_EQ(partner.start, 30);
    EXPECT_EQ(partner.end, 130);
    const auto c1 = at(copies, 3, 0), c2 = at(copies, 4, 0);
    ASSERT_EQ(c1.size(), 1u);
    EXPECT_EQ(c1[0].start, 10);
    EXPECT_EQ(c1[0].end, 60);
    EXPECT_FALSE(c1[0].preempted);
    ASSERT_EQ(c2.size(), 2u);
    EXPECT_EQ(c2[0].start, 12);
    EXPECT_EQ(c2[0].end, 30);
    EXPECT_TRUE(c2[0].preempted);
    EXPECT_EQ(c2[1].start, 60);
    EXPECT_EQ(c2[1].end, 102);
    EXPECT_FALSE(c2[1].preempted);
    EXPECT_EQ(r.preemptions, 1u);
    EXPECT_DOUBLE_EQ(r.coalloc_hold_mean, 0);
    EXPECT_DOUBLE_EQ(r.global_wait_mean, 29);
    EXPECT_DOUBLE_EQ(r.local_wait_mean[0], (8 + 30) / 2.0);
  }
}

// The same schedule under resubmission: the part allocated at 10 is terminated (1 s) and its
// request goes back to site 0's queue at 10. Under FCFS it queues behind the local job (11-16)
// and is allocated at 16, when it holds for its partner until 30; conservative backfilling
// plans the released part for its requested 100 s, so the resubmitted part fits beside it at
// 10 and holds from 10, and the local job is pushed back to the end of the hold.
TEST(Resubmission, SendsTheFirstPartBackToTheQueue) {
  for (const bool backfilling : {false, true}) {
    std::vector<CopyRecord> copies;
    const auto r = run_listed(
        config(backfilling, Sync::resubmission),
        {local(0, 0, 4, 10), local(0, 1, 4, 30), coalloc(1, 4, 100), local(2, 0, 4, 5)}, &copies);
    ASSERT_TRUE(r.valid) << r.verdict;
    const auto site0 = at(copies, 2, 0);
    ASSERT_EQ(site0.size(), 2u);
    EXPECT_EQ(site0[0].role, PartRole::release);
    EXPECT_EQ(site0[0].start, 10);
    EXPECT_EQ(site0[0].end, 11);
    const Time again = backfilling ? 10 : 16;
    EXPECT_EQ(site0[1].role, PartRole::hold);
    EXPECT_EQ(site0[1].start, again);
    EXPECT_EQ(site0[1].end, 130);
    EXPECT_EQ(at(copies, 2, 1).at(0).start, 30);
    EXPECT_EQ(at(copies, 3, 0).at(0).start, backfilling ? 130 : 11);
    EXPECT_DOUBLE_EQ(r.global_wait_mean, 29);
    EXPECT_DOUBLE_EQ(r.coalloc_hold_mean, (30 - again) * 2);
    EXPECT_EQ(r.releases, 1u);
  }
}

// Bounds: a job of at most 8 processors (parts of 4) and at least 2 arrives at 1 when site 0
// has 2 idle processors and site 1 has 4: it takes 2 per part and runs at once, its 100 s
// stretched to 200 s. With both bounds 8 its part at site 1 holds until site 0 frees at 50.
TEST(Bounds, PartsTakeWhatIsIdleWithinTheBounds) {
  for (const bool backfilling : {false, true}) {
    std::vector<CopyRecord> copies;
    auto r = run_listed(config(backfilling, Sync::stop_and_wait),
                        {local(0, 0, 2, 50), coalloc(1, 8, 100, 2)}, &copies);
    ASSERT_TRUE(r.valid) << r.verdict;
    for (int site : {0, 1}) {
      const auto part = at(copies, 1, site).at(0);
      EXPECT_EQ(part.procs, 2);
      EXPECT_EQ(part.start, 1);
      EXPECT_EQ(part.end, 201);
    }
    EXPECT_DOUBLE_EQ(r.part_mean, 2);
    copies.clear();
    r = run_listed(config(backfilling, Sync::stop_and_wait),
                   {local(0, 0, 2, 50), coalloc(1, 8, 100, 8)}, &copies);
    ASSERT_TRUE(r.valid) << r.verdict;
    EXPECT_EQ(at(copies, 1, 1).at(0).role, PartRole::hold);
    EXPECT_EQ(at(copies, 1, 1).at(0).start, 1);
    EXPECT_EQ(at(copies, 1, 0).at(0).start, 50);
    EXPECT_EQ(at(copies, 1, 0).at(0).procs, 4);
    EXPECT_DOUBLE_EQ(r.coalloc_hold_mean, 49 * 4);
  }
}

TEST(Bounds, LowerBoundIsEvenAndWithinTheUpper) {
  EXPECT_EQ(lower_bound(8, 1.0), 8);
  EXPECT_EQ(lower_bound(8, 0.5), 4);
  EXPECT_EQ(lower_bound(8, 0.3), 4);  // 2.4 -> 3 -> 4: equal parts
  EXPECT_EQ(lower_bound(2, 0.1), 2);
  Group g;
  g.lower = 4;
  g.upper = 16;
  EXPECT_EQ(part_size(g, 0, 10), 2);
  EXPECT_EQ(part_size(g, 5, 10), 5);
  EXPECT_EQ(part_size(g, 64, 64), 8);
}

// With one duplicate the job's two parts are the first two allocations; the third copy is
// redundant and released after the cancellation cost.
TEST(StopAndWait, ThirdCopyIsRedundant) {
  GridConfig c = config(false, Sync::stop_and_wait);
  c.sites = {4, 4, 4};
  c.duplicates = 1;
  std::vector<CopyRecord> copies;
  const auto r = run_listed(
      c, {local(0, 0, 4, 10), local(0, 1, 4, 20), local(0, 2, 4, 30), coalloc(1, 4, 100)}, &copies);
  ASSERT_TRUE(r.valid) << r.verdict;
  EXPECT_EQ(at(copies, 3, 0).at(0).role, PartRole::hold);
  EXPECT_EQ(at(copies, 3, 1).at(0).role, PartRole::run);
  EXPECT_EQ(at(copies, 3, 2).at(0).role, PartRole::redundant);
  EXPECT_EQ(at(copies, 3, 2).at(0).end, 31);
  EXPECT_DOUBLE_EQ(r.coalloc_hold_mean, 20);
  EXPECT_EQ(r.redundant_allocations, 1u);
}

// A synthetic run under each method verifies itself (every job co-allocated, counts balance)
// and repeats from its seed.
TEST(CoAllocation, SyntheticRunsAreValidAndRepeatable) {
  for (const Sync sync : {Sync::stop_and_wait, Sync::hibernation, Sync::resubmission}) {
    for (const bool backfilling : {false, true}) {
      GridConfig c;
      c.backfilling = backfilling;
      c.ranker = "qlen";
      c.duplicates = 1;
      c.local_load = 0.5;
      c.global_jobs = 300;
      c.warmup_jobs = 30;
      c.sync = sync;
      c.coalloc_lower = 0.5;
      const auto a = run_grid(c);
      const auto b = run_grid(c);
      ASSERT_TRUE(a.valid) << to_string(sync) << ": " << a.verdict;
      EXPECT_EQ(a.global_wait_mean, b.global_wait_mean);
      EXPECT_EQ(a.global_measured, 270u);
      if (sync == Sync::stop_and_wait) {
        EXPECT_EQ(a.releases, 0u);
      } else {
        EXPECT_GT(a.releases, 0u);
        EXPECT_LE(a.releases, 300u);
      }
    }
  }
}

}  // namespace
}  // namespace mcb::redundant
