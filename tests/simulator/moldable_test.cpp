// Moldable requests and site selection by computing power (seed 001 section V), worked by hand
// on small systems through the real engine, policies, disciplines and placement rules.
#include "scenario.hpp"

#include "simulator/moldable.hpp"
#include "simulator/site_selection.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace mcb::sim {
namespace {

using test::Scenario;
using test::simulate;
using test::Spec;

constexpr RequestType kMoldable = RequestType::kMoldable;

TEST(Speedup, LinearStretchIsRequestedOverGiven) {
  const SpeedupModel linear;
  EXPECT_DOUBLE_EQ(linear.stretch(16, 6), 16.0 / 6.0);
  EXPECT_DOUBLE_EQ(linear.stretch(16, 16), 1.0);
}

TEST(Speedup, DowneyLowVarianceByHand) {
  // A = 32, sigma = 1: S(n) = A n / (A + (n - 1) / 2) for n <= A, so S(32) = 1024 / 47.5 and
  // S(16) = 512 / 39.5; the stretch is 2 x 39.5 / 47.5 = 79 / 47.5.
  const SpeedupModel downey{SpeedupModel::Kind::kDowney, 1.0};
  EXPECT_NEAR(downey.stretch(32, 16), 79.0 / 47.5, 1e-12);
  // sigma = 0 is linear up to A.
  const SpeedupModel ideal{SpeedupModel::Kind::kDowney, 0.0};
  EXPECT_NEAR(ideal.stretch(32, 16), 2.0, 1e-12);
  // High variance (sigma = 2): S(n) = n A (s + 1) / (s (n + A - 1) + A); S(8) with A = 8 is
  // 8 x 8 x 3 / (2 x 15 + 8) = 192 / 38, S(4) = 96 / 30.
  const SpeedupModel wide{SpeedupModel::Kind::kDowney, 2.0};
  EXPECT_NEAR(wide.stretch(8, 4), (192.0 / 38) / (96.0 / 30), 1e-12);
}

TEST(Speedup, SmallestSizeByRuleRoundsUp) {
  EXPECT_EQ(min_size_by_rule(32, 0.5), 16);
  EXPECT_EQ(min_size_by_rule(15, 0.5), 8);
  EXPECT_EQ(min_size_by_rule(3, 0.01), 1);
  EXPECT_EQ(min_size_by_rule(10, 1.0), 10);
}

// 2 x 16: jobs 1 and 2 leave 4 idle on cluster 0 and 6 on cluster 1.
std::vector<Spec> two_busy_clusters(const Spec& moldable) {
  return {{1, 0, {12}, 100, 0}, {2, 0, {10}, 100, 1}, moldable};
}

TEST(Moldable, ShrunkJobRunsLongerByTheSpeedup) {
  // Job 3 asks for 16 (at least 4) for 60 s; no cluster has 16 idle, so it starts at once on
  // the most idle cluster (1, 6 idle) with 6 processors: 60 x 16 / 6 = 160 s.
  const auto run = simulate(Scenario{.clusters = "2x16", .policy = "grid"},
                            two_busy_clusters({3, 1, {16}, 60, 0, kMoldable, {}, -1, 4}));
  const auto& j = run.jobs.at(3);
  EXPECT_EQ(j.start, 1);
  EXPECT_EQ(j.alloc, (std::vector<int>{0, 6}));
  EXPECT_EQ(j.held, 6) << "the processors it got, not the 16 it asked for";
  EXPECT_DOUBLE_EQ(j.service, 160);
  EXPECT_DOUBLE_EQ(j.end, 161);
  EXPECT_DOUBLE_EQ(j.net, 160) << "one cluster: no wide-area cost";
}

TEST(Moldable, DowneyShrinkIsMilderThanLinear) {
  // The same start with Downey's model, A = 16, sigma = 1: S(16) = 256 / 23.5, S(6) = 96 / 18.5.
  Scenario s{.clusters = "2x16", .policy = "grid"};
  s.speedup = {SpeedupModel::Kind::kDowney, 1.0};
  const auto run = simulate(s, two_busy_clusters({3, 1, {16}, 60, 0, kMoldable, {}, -1, 4}));
  EXPECT_NEAR(run.jobs.at(3).service, 60 * (256 / 23.5) / (96 / 18.5), 1e-9);
}

TEST(Moldable, MustWaitWhileItsMinimumDoesNotFit) {
  // Smallest size 8: neither 4 nor 6 idle holds it, so job 3 waits until job 2 (ending at 50)
  // frees cluster 1, then runs whole (16) for its 60 s.
  std::vector<Spec> jobs = {
      {1, 0, {12}, 100, 0}, {2, 0, {10}, 50, 1}, {3, 1, {16}, 60, 0, kMoldable, {}, -1, 8}};
  const auto run = simulate(Scenario{.clusters = "2x16", .policy = "grid"}, jobs);
  const auto& j = run.jobs.at(3);
  EXPECT_EQ(j.start, 50);
  EXPECT_EQ(j.alloc, (std::vector<int>{0, 16}));
  EXPECT_DOUBLE_EQ(j.service, 60);
}

TEST(Moldable, IndependentClustersShrinkOnTheHomeClusterOnly) {
  // Home cluster 0 has 4 idle (cluster 1 has 6): under ic the job takes its home's 4.
  const auto run = simulate(Scenario{.clusters = "2x16", .policy = "ic"},
                            two_busy_clusters({3, 1, {16}, 60, 0, kMoldable, {}, -1, 4}));
  EXPECT_EQ(run.jobs.at(3).alloc, (std::vector<int>{4, 0}));
  EXPECT_DOUBLE_EQ(run.jobs.at(3).service, 240);
}

TEST(SiteSelection, PowerPicksTheFasterSmallSiteForARigidJob) {
  // Grid of a 16-processor cluster at speed 2 and a 32-processor one at speed 0.5; a 16-processor
  // job of 100 s. By idle processors it goes to the large slow site (32 > 16 idle) and runs
  // 100 / 0.5 = 200 s; by free computing power (16 x 2 = 32 against 32 x 0.5 = 16) to the
  // small fast one, 100 / 2 = 50 s.
  Scenario s{.clusters = "16,32", .policy = "grid", .speeds = {2, 0.5}};
  const std::vector<Spec> job = {{1, 0, {16}, 100, 1}};
  const auto by_idle = simulate(s, job);
  EXPECT_EQ(by_idle.jobs.at(1).alloc, (std::vector<int>{0, 16}));
  EXPECT_DOUBLE_EQ(by_idle.jobs.at(1).service, 200);
  s.site = SiteSelection::kPower;
  const auto by_power = simulate(s, job);
  EXPECT_EQ(by_power.jobs.at(1).alloc, (std::vector<int>{16, 0}));
  EXPECT_DOUBLE_EQ(by_power.jobs.at(1).service, 50);
}

TEST(SiteSelection, PowerGivesAMoldableJobItsRequiredPowerOnFewerFastProcessors) {
  // The job asks for 24 (at least 12) from home cluster 1 (speed 0.5): required power
  // 24 x 0.5 = 12. Cluster 0 (16 idle x 2 = 32) and cluster 1 (32 x 0.5 = 16) both give it;
  // cluster 0 has more free power. There 6 processors would give 12, but the job accepts no
  // fewer than 12: it gets 12 at speed 2, 50 x 24 / 12 / 2 = 50 s (at home, 24 processors at
  // speed 0.5, it would take 100 s). By idle processors it takes 24 on cluster 1.
  Scenario s{.clusters = "16,32", .policy = "grid", .speeds = {2, 0.5}};
  s.site = SiteSelection::kPower;
  const auto run = simulate(s, {{1, 0, {24}, 50, 1, kMoldable, {}, -1, 12}});
  EXPECT_EQ(run.jobs.at(1).alloc, (std::vector<int>{12, 0}));
  EXPECT_DOUBLE_EQ(run.jobs.at(1).service, 50);
  s.site = SiteSelection::kIdle;
  const auto by_idle = simulate(s, {{1, 0, {24}, 50, 1, kMoldable, {}, -1, 12}});
  EXPECT_EQ(by_idle.jobs.at(1).alloc, (std::vector<int>{0, 24}));
  EXPECT_DOUBLE_EQ(by_idle.jobs.at(1).service, 100);
}

TEST(SiteSelection, PowerShrinksOnTheSiteWithTheMostFreePower) {
  // Speeds 1 and 0.5, cluster 0 with 4 idle (power 4) and cluster 1 with 6 (power 3): no site
  // gives the required 16, so the job shrinks on cluster 0: 60 x 16 / 4 = 240 s. By idle
  // processors it takes cluster 1's 6 at half speed: 60 x 16 / 6 / 0.5 = 320 s.
  Scenario s{.clusters = "2x16", .policy = "grid", .speeds = {1, 0.5}};
  const Spec job{3, 1, {16}, 60, 0, kMoldable, {}, -1, 4};
  s.site = SiteSelection::kPower;
  const auto by_power = simulate(s, two_busy_clusters(job));
  EXPECT_EQ(by_power.jobs.at(3).alloc, (std::vector<int>{4, 0}));
  EXPECT_DOUBLE_EQ(by_power.jobs.at(3).service, 240);
  s.site = SiteSelection::kIdle;
  const auto by_idle = simulate(s, two_busy_clusters(job));
  EXPECT_EQ(by_idle.jobs.at(3).alloc, (std::vector<int>{0, 6}));
  EXPECT_DOUBLE_EQ(by_idle.jobs.at(3).service, 320);
}

TEST(SiteSelection, CoAllocationRunsAtTheSlowestSpeedWithTheWideAreaFactor) {
  // The same 16 processors co-allocated as 8 + 8 over speeds 1 and 0.5 with factor 1.25:
  // 60 x 1.25 / 0.5 = 150 s (001 IV.B), against 60 s whole on the fast cluster.
  Scenario s{.clusters = "2x8", .speeds = {1, 0.5}, .coalloc = 1.25};
  const auto run = simulate(s, {{1, 0, {8, 8}, 60}});
  EXPECT_DOUBLE_EQ(run.jobs.at(1).service, 150);
}

TEST(Moldable, EasyBackfillingPlansAMoldableJobAtItsSmallestSize) {
  // EASY: the moldable head (smallest size 8) waits with a reservation at 50, when job 2 frees
  // cluster 1. Job 4 (4 processors, 200 s) backfills on cluster 0, which the reservation does
  // not use; the head still starts at 50, whole on cluster 1.
  std::vector<Spec> jobs = {{1, 0, {12}, 100, 0},
                            {2, 0, {10}, 50, 1},
                            {3, 1, {16}, 60, 0, kMoldable, {}, -1, 8},
                            {4, 2, {4}, 200, 0}};
  const auto run = simulate(Scenario{.clusters = "2x16", .policy = "grid", .queue = "easy"}, jobs);
  EXPECT_EQ(run.jobs.at(3).start, 50);
  EXPECT_EQ(run.jobs.at(3).alloc, (std::vector<int>{0, 16}));
  EXPECT_LE(run.jobs.at(3).start, run.jobs.at(3).reserved);
  EXPECT_EQ(run.jobs.at(4).start, 2);
  EXPECT_EQ(run.jobs.at(4).alloc, (std::vector<int>{4, 0}));
}

}  // namespace
}  // namespace mcb::sim
