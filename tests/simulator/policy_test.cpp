// Each policy's defining behaviour on small hand-built systems: who starts when, and why.
#include "scenario.hpp"

#include "simulator/policy.hpp"

#include <gtest/gtest.h>

namespace mcb::sim {
namespace {

using test::Scenario;
using test::simulate;
using test::Spec;

TEST(QueueRing, DisabledQueuesComeBackInTheOrderTheyWereDisabled) {
  QueueRing ring(4);
  ring.disable(2);
  ring.disable(0);
  ring.disable(3);
  ASSERT_EQ(ring.enabled_count(), 1);
  EXPECT_EQ(ring.enabled_at(0), 1);
  ring.enable_disabled();
  ASSERT_EQ(ring.enabled_count(), 4);
  EXPECT_EQ(ring.enabled_at(0), 1);
  EXPECT_EQ(ring.enabled_at(1), 2);
  EXPECT_EQ(ring.enabled_at(2), 0);
  EXPECT_EQ(ring.enabled_at(3), 3);
}

TEST(QueueRing, EnableFirstPutsAQueueAtTheFront) {
  QueueRing ring(3);
  ring.withdraw(2);
  ring.disable(0);
  ring.enable_first(2);
  ring.enable_disabled();
  ASSERT_EQ(ring.enabled_count(), 3);
  EXPECT_EQ(ring.enabled_at(0), 2);
  EXPECT_EQ(ring.enabled_at(1), 1);
  EXPECT_EQ(ring.enabled_at(2), 0);
}

TEST(DrawHome, OneClusterIsTheHomeOfEveryJobItHolds) {
  // With one cluster nothing is drawn; the answer is the one any draw would give.
  Rng rng(7);
  for (const std::vector<double>& rates : {std::vector<double>{}, {0.0}, {2.5}}) {
    const MachineSpec one{.sizes = {8}, .speeds = {1}, .home_rates = rates};
    EXPECT_EQ(draw_home(one, 1, rng), 0);
    EXPECT_EQ(draw_home(one, 8, rng), 0);
    EXPECT_EQ(draw_home(one, 9, rng), -1) << "larger than the cluster";
  }
  const MachineSpec two{.sizes = {8, 4}, .speeds = {1, 1}, .home_rates = {}};
  EXPECT_EQ(draw_home(two, 5, rng), 0) << "only cluster 0 holds 5";
  EXPECT_EQ(draw_home(two, 9, rng), -1);
}

TEST(GlobalScheduler, FcfsHeadBlocksJobsBehindIt) {
  // Cluster 0 is full, cluster 1 has 2 idle. Job 3 needs 3+3 and waits; job 4 (2 processors)
  // would fit now but FCFS keeps it behind the head.
  const auto run =
      simulate(Scenario{}, {{1, 0, {4}, 10}, {2, 0, {2}, 10}, {3, 1, {3, 3}, 5}, {4, 1, {2}, 1}});
  EXPECT_EQ(run.jobs.at(3).start, 10);
  EXPECT_EQ(run.jobs.at(4).start, 15) << "after job 3 departs, 1+1 idle cannot hold 2";
}

TEST(GlobalScheduler, SchedulesOnAnyCluster) {
  // Cluster 0 busy; a job whose home is cluster 0 runs on cluster 1 at once.
  const auto run = simulate(Scenario{}, {{1, 0, {4}, 10, 0}, {2, 1, {2}, 1, 0}});
  EXPECT_EQ(run.jobs.at(2).start, 1);
  EXPECT_EQ(run.jobs.at(2).alloc, (std::vector<int>{0, 2}));
}

TEST(LocalSchedulers, SingleComponentJobsRunOnlyOnTheirCluster) {
  const Scenario s{.policy = "ls"};
  const auto run = simulate(s, {{1, 0, {4}, 10, 0}, {2, 1, {2}, 1, 0}});
  EXPECT_EQ(run.jobs.at(2).start, 10) << "cluster 1 is idle, but job 2 belongs to cluster 0";
  EXPECT_EQ(run.jobs.at(2).alloc, (std::vector<int>{2, 0}));
}

TEST(LocalSchedulers, MultiComponentJobsAreCoAllocatedFromAnyQueue) {
  const Scenario s{.policy = "ls"};
  const auto run = simulate(s, {{1, 0, {2, 2}, 10, 1}});
  EXPECT_EQ(run.jobs.at(1).alloc, (std::vector<int>{2, 2}));
  EXPECT_EQ(run.jobs.at(1).held, 4);
  EXPECT_EQ(run.jobs.at(1).queue, 1);
}

TEST(LocalSchedulers, OneJobPerQueuePerRound) {
  // Two clusters of 2, both taken by job 1 until t=10. Queue 0 holds X1, X2; queue 1 holds Y1;
  // each needs 1+1, so two fit at t=10. Round 1 starts X1 (queue 0) and Y1 (queue 1); X2, which
  // arrived before Y1, waits. A single FCFS queue would start X1 and X2.
  const std::vector<Spec> jobs = {
      {1, 0, {2, 2}, 10, 0}, {2, 1, {1, 1}, 5, 0}, {3, 1, {1, 1}, 5, 0}, {4, 1, {1, 1}, 5, 1}};
  const auto ls = simulate({.clusters = "2x2", .policy = "ls"}, jobs);
  EXPECT_EQ(ls.jobs.at(2).start, 10);
  EXPECT_EQ(ls.jobs.at(4).start, 10);
  EXPECT_EQ(ls.jobs.at(3).start, 15);
  const auto gs = simulate({.clusters = "2x2", .policy = "gs"}, jobs);
  EXPECT_EQ(gs.jobs.at(3).start, 10);
  EXPECT_EQ(gs.jobs.at(4).start, 15);
}

TEST(LocalSchedulers, QueueWhoseHeadDoesNotFitIsSkippedUntilADeparture) {
  // At t=10 cluster 0 frees 4 processors. Queue 0's head needs 3+3 (cluster 1 has only 2) and
  // is disabled; queue 1's head (1+1) starts. Later arrivals in queue 0 wait for a departure
  // even when they would fit (FCFS per queue).
  const Scenario s{.policy = "ls"};
  const auto run = simulate(s, {{1, 0, {4}, 10, 0},
                                {2, 0, {2}, 30, 1},
                                {3, 1, {3, 3}, 5, 0},
                                {4, 1, {1, 1}, 5, 1},
                                {5, 11, {2}, 1, 0}});
  EXPECT_EQ(run.jobs.at(4).start, 10);
  EXPECT_EQ(run.jobs.at(3).start, 30) << "needs 3 on cluster 1, free when job 2 departs";
  EXPECT_EQ(run.jobs.at(5).start, 35) << "behind job 3 in queue 0";
}

TEST(LocalSchedulers, ARoundGoesOnPastAQueueItDisables) {
  // Three clusters of 2, all busy until t=10. Queue 0 holds A (2 on cluster 0), then E (2+2);
  // queue 1 holds B (2+2+2); queue 2 holds C (1+1), then D (1+1). Round 1 starts A, disables
  // queue 1 (B does not fit) and still visits queue 2: C starts. Round 2: E does not fit, D does.
  const std::vector<Spec> jobs = {{1, 0, {2, 2, 2}, 10, 0}, {2, 1, {2}, 5, 0},
                                  {3, 2, {2, 2, 2}, 5, 1},  {4, 3, {1, 1}, 5, 2},
                                  {5, 4, {2, 2}, 5, 0},     {6, 5, {1, 1}, 5, 2}};
  const auto run = simulate({.clusters = "3x2", .policy = "ls"}, jobs);
  EXPECT_EQ(run.jobs.at(2).start, 10);
  EXPECT_EQ(run.jobs.at(4).start, 10) << "visited in the round that disabled queue 1";
  EXPECT_EQ(run.jobs.at(6).start, 10);
  EXPECT_EQ(run.jobs.at(3).start, 15) << "queue 1 was disabled first, so comes back first";
  EXPECT_EQ(run.jobs.at(5).start, 20);
}

TEST(LocalPriority, GlobalQueueWaitsWhileNoLocalQueueIsEmpty) {
  // Both clusters busy until 10; at t=1 a global job (1+1) and one local job per cluster arrive.
  // At t=10 no local queue is empty, so the local jobs start; the global job waits for them.
  const std::vector<Spec> jobs = {{1, 0, {2}, 10, 0},
                                  {2, 0, {2}, 10, 1},
                                  {3, 1, {1, 1}, 5, 0},
                                  {4, 1, {2}, 10, 0},
                                  {5, 1, {2}, 10, 1}};
  const auto lp = simulate({.clusters = "2x2", .policy = "lp"}, jobs);
  EXPECT_EQ(lp.jobs.at(4).start, 10);
  EXPECT_EQ(lp.jobs.at(5).start, 10);
  EXPECT_EQ(lp.jobs.at(3).start, 20);
  const auto gs = simulate({.clusters = "2x2", .policy = "gs"}, jobs);
  EXPECT_EQ(gs.jobs.at(3).start, 10) << "one global FCFS queue serves the earlier job first";
}

TEST(LocalPriority, GlobalQueueGoesFirstWhenBothAreEnabled) {
  // At t=10 cluster 0 frees 2; cluster 1 has 1 idle; local queue 1 is empty. The global job
  // (1+1) and local job 3 (2 on cluster 0) compete: the global queue is visited first.
  const Scenario s{.clusters = "2x2", .policy = "lp"};
  const auto run = simulate(
      s, {{1, 0, {2}, 10, 0}, {2, 0, {1}, 20, 1}, {3, 1, {2}, 5, 0}, {4, 2, {1, 1}, 5, 1}});
  EXPECT_EQ(run.jobs.at(4).start, 10);
  EXPECT_EQ(run.jobs.at(3).start, 15);
  EXPECT_EQ(run.jobs.at(4).queue, 2) << "the global queue follows the local ones";
}

TEST(LocalPriority, GlobalQueueEnabledMidRoundIsVisitedWhenTheOptionSays) {
  // Clusters of 2, 3 and 2 processors, all busy until 10. At t=1 local job 5 (1 on cluster 0),
  // local jobs 6 (2) and 7 (1) on cluster 1, local job 8 (2 on cluster 2) and global job 9 (1+1)
  // arrive. At t=10 the round visits local0, local1, local2: job 5 starts and local queue 0
  // gets empty, so the global queue is enabled in the middle of the round.
  const std::vector<Spec> jobs = {{1, 0, {2}, 10, 0}, {2, 0, {3}, 10, 1},    {3, 0, {2}, 10, 2},
                                  {5, 1, {1}, 10, 0}, {6, 1, {2}, 10, 1},    {7, 1, {1}, 10, 1},
                                  {8, 1, {2}, 10, 2}, {9, 1, {1, 1}, 10, -1}};
  Scenario s{.clusters = "2,3,2", .policy = "lp"};
  const auto started_at_10 = [&](GlobalVisit visit) {
    s.global_visit = visit;
    const auto run = simulate(s, jobs);
    std::vector<std::int64_t> ids;
    for (std::int64_t id = 5; id <= 9; ++id) {
      if (run.jobs.at(id).start == 10) ids.push_back(id);
    }
    return ids;
  };
  // Next round: round 1 starts 5, 6, 8; round 2 visits local1 (7 takes cluster 1's last
  // processor) and then the global queue, whose job no longer fits on two clusters.
  EXPECT_EQ(started_at_10(GlobalVisit::kNextRound), (std::vector<std::int64_t>{5, 6, 7, 8}));
  // This round: after 5, 6 and 8, job 9 takes clusters 0 and 1's last processors; 7 waits.
  EXPECT_EQ(started_at_10(GlobalVisit::kThisRound), (std::vector<std::int64_t>{5, 6, 8, 9}));
  // At once: job 9 goes right after 5, by worst fit on clusters 1 (3 idle) and 2 (2 idle); 6
  // still fits on cluster 1, but 8 (2) no longer fits on cluster 2, nor 7 on cluster 1.
  EXPECT_EQ(started_at_10(GlobalVisit::kAtOnce), (std::vector<std::int64_t>{5, 6, 9}));
}

TEST(LocalPriority, GlobalVisitNamesAreParsed) {
  EXPECT_EQ(parse_global_visit("next-round"), GlobalVisit::kNextRound);
  EXPECT_EQ(parse_global_visit("this-round"), GlobalVisit::kThisRound);
  EXPECT_EQ(parse_global_visit("at-once"), GlobalVisit::kAtOnce);
  EXPECT_THROW(parse_global_visit("later"), std::invalid_argument);
}

TEST(IndependentClusters, JobsRunWholeOnTheirHomeClusterOnly) {
  const Scenario s{.policy = "ic"};
  const auto run = simulate(s, {{1, 0, {4}, 10, 0}, {2, 1, {1, 1}, 1, 0}});
  EXPECT_EQ(run.jobs.at(2).start, 10) << "cluster 1 is idle but belongs to other users";
  EXPECT_EQ(run.jobs.at(2).alloc, (std::vector<int>{2, 0})) << "no co-allocation";
}

TEST(LoadSharingGrid, JobsRunWholeOnAnyOneCluster) {
  const Scenario s{.policy = "grid"};
  const auto run = simulate(s, {{1, 0, {4}, 10, 0}, {2, 1, {1, 1}, 20, 0}, {3, 2, {2, 2}, 1, 1}});
  EXPECT_EQ(run.jobs.at(2).start, 1);
  EXPECT_EQ(run.jobs.at(2).alloc, (std::vector<int>{0, 2}));
  EXPECT_EQ(run.jobs.at(3).start, 10) << "4 processors on one cluster, not 2+2";
}

TEST(Policies, SayWhenAJobCanNeverRun) {
  const MachineSpec m = parse_clusters("2x4");
  const auto wf = make_placement("wf");
  Request big;
  big.sizes = {6};
  big.total = 6;
  EXPECT_FALSE(make_policy("gs", 2)->never_runs(big, -1, m, *wf).empty());
  EXPECT_FALSE(make_policy("ic", 2)->never_runs(big, -1, m, *wf).empty());
  Request split;
  split.sizes = {3, 3};
  split.total = 6;
  EXPECT_TRUE(make_policy("gs", 2)->never_runs(split, -1, m, *wf).empty());
  EXPECT_TRUE(make_policy("ls", 2)->never_runs(split, -1, m, *wf).empty());
  EXPECT_FALSE(make_policy("grid", 2)->never_runs(split, -1, m, *wf).empty());
  EXPECT_FALSE(make_policy("ic", 2)->never_runs(split, 1, m, *wf).empty());
}

TEST(Engine, DeparturesAtAnInstantComeBeforeStarts) {
  // Job 2 arrives exactly when job 1 ends and needs its processors: it starts at once.
  Scenario s{.clusters = "1x4"};
  const auto run = simulate(s, {{1, 0, {4}, 10}, {2, 10, {4}, 1}});
  EXPECT_EQ(run.jobs.at(2).start, 10);
  for (const char* q : {"easy", "cons"}) {
    s.queue = q;
    EXPECT_EQ(simulate(s, {{1, 0, {4}, 10}, {2, 10, {4}, 1}}).jobs.at(2).start, 10) << q;
  }
}

TEST(Engine, ArrivalPassOffLeavesAnArrivalWaitingForTheNextDeparture) {
  // One cluster of 4. Job 1 (2 processors) runs 0-10; job 2 (2) arrives at 1 and fits at once.
  // With a pass at arrivals (the default) it starts at 1; without, at job 1's departure.
  const std::vector<Spec> jobs = {{1, 0, {2}, 10}, {2, 1, {2}, 5}};
  EXPECT_EQ(simulate({.clusters = "1x4"}, jobs).jobs.at(2).start, 1);
  const auto off = simulate({.clusters = "1x4", .arrival_pass = false}, jobs);
  EXPECT_EQ(off.jobs.at(1).start, 0);  // an idle system still schedules an arrival
  EXPECT_EQ(off.jobs.at(2).start, 10);
}

TEST(LocalSchedulers, HomeInTurnDealsJobsWithoutAHomeToTheClustersInTurn) {
  // Three clusters of 4 under LS; five single-component jobs without a home, the third too
  // large for cluster 2 (of 2 processors): homes 0, 1, then 0 (2 is skipped), then 1, 2.
  Scenario s{.clusters = "4,4,2", .policy = "ls", .home_in_turn = true};
  const auto run = simulate(
      s, {{1, 0, {1}, 10}, {2, 1, {1}, 10}, {3, 2, {3}, 10}, {4, 3, {1}, 10}, {5, 4, {1}, 10}});
  EXPECT_EQ(run.jobs.at(1).queue, 0);
  EXPECT_EQ(run.jobs.at(2).queue, 1);
  EXPECT_EQ(run.jobs.at(3).queue, 0);
  EXPECT_EQ(run.jobs.at(4).queue, 1);
  EXPECT_EQ(run.jobs.at(5).queue, 2);
}

TEST(Engine, SlowestClusterSetsThePaceOfACoAllocatedJob) {
  const Scenario s{.speeds = {1.0, 0.5}, .coalloc = 1.5};
  const auto run = simulate(s, {{1, 0, {4}, 10, -1, RequestType::kFixed, {1}},
                                {2, 0, {4}, 10, -1, RequestType::kFixed, {0}},
                                {3, 20, {2, 2}, 10}});
  EXPECT_DOUBLE_EQ(run.jobs.at(1).service, 20) << "half speed doubles the time";
  EXPECT_DOUBLE_EQ(run.jobs.at(2).service, 10);
  EXPECT_DOUBLE_EQ(run.jobs.at(3).service, 10 * 1.5 / 0.5) << "co-allocation factor, slowest speed";
  EXPECT_DOUBLE_EQ(run.jobs.at(3).net, 10 / 0.5) << "net removes only the wide-area factor";
}

// 001 IV.A: the wide-area cost grows with the clusters a job spans. On 3x4 with factors 1.1 on
// two clusters and 1.3 on three, a 2+2 job runs 10 x 1.1 and a 2+2+2 job 10 x 1.3; both have
// the one-cluster net time of 10.
TEST(Engine, WideAreaFactorByNumberOfClusters) {
  const Scenario s{.clusters = "3x4", .coalloc_by_count = {1, 1, 1.1, 1.3}};
  const auto run = simulate(s, {{1, 0, {2, 2}, 10}, {2, 100, {2, 2, 2}, 10}, {3, 200, {4}, 10}});
  EXPECT_DOUBLE_EQ(run.jobs.at(1).service, 11);
  EXPECT_DOUBLE_EQ(run.jobs.at(2).service, 13);
  EXPECT_DOUBLE_EQ(run.jobs.at(3).service, 10) << "one cluster: no wide-area cost";
  EXPECT_DOUBLE_EQ(run.jobs.at(2).net, 10);
}

// 001 VI: per-site arrival rates. With rates 1,0 every job's home (its LS local queue) is
// cluster 0, whatever the draw; a job that only the rate-0 cluster can hold falls back to the
// sizes and gets that cluster.
TEST(Engine, SiteRatesDrawEveryHomeFromTheSitesWithArrivals) {
  const Scenario s{.clusters = "4,6", .policy = "ls", .site_rates = {1, 0}};
  std::vector<Spec> jobs;
  for (int i = 1; i <= 20; ++i) jobs.push_back({i, 10.0 * i, {2}, 5});
  jobs.push_back({21, 300, {6}, 5});
  const auto run = simulate(s, jobs);
  for (int i = 1; i <= 20; ++i) EXPECT_EQ(run.jobs.at(i).queue, 0) << "job " << i;
  EXPECT_EQ(run.jobs.at(21).queue, 1) << "only cluster 1 holds 6 processors";
}

}  // namespace
}  // namespace mcb::sim
