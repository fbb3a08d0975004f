// The three matchers on platforms whose answers are known by hand, and against every matching
// of small random platforms.
#include "matching/matcher.hpp"

#include "common/rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace mcb::matching {
namespace {

const auto kSolver = make_solver("glpk");

MatchResult run(const Platform& p, const Job& j, Matcher m, double limit = 60.0) {
  return match(p, j, m, *kSolver, {limit, false});
}

std::vector<int> counts(const Assignment& a) {
  std::vector<int> n;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) n.push_back(a.on_cluster(i));
  return n;
}

// Clusters a and b: 3 full-power nodes each behind a thin link (BW^max 1); c: 4 half-power
// nodes behind a wide link. A job of 4 tasks with PNBW 1.5 and T^p = T^c = 1:
//  - (3,1,0) or (1,3,0): SP 1, both links carry 3 x 1.5 x 1/3 = 1.5 > 1: SC 1.5, T = 2.5;
//  - (2,2,0): each link 2 x 1.5 x 2/3 = 2: T = 3; anything on c: SP 2, T >= 3;
//  - no split over a or b avoids saturation (n x 1.5 x (4-n)/3 >= 1.5), so the only
//    non-saturated matching is (0,0,4): SP 2, SC 1, T = 3.
Platform three_clusters(int c_nodes) {
  Platform p;
  p.clusters.push_back({"a", std::vector<Node>(3, Node{1, 1}), 1.0, 0.0});
  p.clusters.push_back({"b", std::vector<Node>(3, Node{1, 1}), 1.0, 0.0});
  p.clusters.push_back(
      {"c", std::vector<Node>(static_cast<std::size_t>(c_nodes), Node{0.5, 1}), 100.0, 0.0});
  return p;
}
const Job kJob{4, 1.5, 1.0, 1.0};

TEST(Matcher, OptimalAcceptsASaturatedLinkWhenItPays) {
  const MatchResult r = run(three_clusters(4), kJob, Matcher::kOptimal);
  ASSERT_EQ(r.status, MipStatus::kOptimal);
  EXPECT_TRUE(r.valid) << r.check;
  EXPECT_DOUBLE_EQ(r.prediction.time, 2.5);
  EXPECT_DOUBLE_EQ(r.prediction.communication_slowdown, 1.5);
  EXPECT_TRUE(r.prediction.saturated);
  const auto n = counts(r.assignment);
  EXPECT_TRUE((n == std::vector<int>{3, 1, 0}) || (n == std::vector<int>{1, 3, 0}));
}

TEST(Matcher, NonSaturatedOptimumDiffersFromTheOptimum) {
  const MatchResult r = run(three_clusters(4), kJob, Matcher::kNonSaturated);
  ASSERT_EQ(r.status, MipStatus::kOptimal);
  EXPECT_TRUE(r.valid) << r.check;
  EXPECT_EQ(counts(r.assignment), (std::vector<int>{0, 0, 4}));
  EXPECT_DOUBLE_EQ(r.prediction.time, 3.0);
  EXPECT_DOUBLE_EQ(r.prediction.processing_slowdown, 2.0);
  EXPECT_FALSE(r.prediction.saturated);
}

TEST(Matcher, FirstFeasibleReturnsANonSaturatedMatching) {
  const MatchResult r = run(three_clusters(4), kJob, Matcher::kFirstFeasible);
  ASSERT_TRUE(r.found());
  EXPECT_TRUE(r.valid) << r.check;
  EXPECT_EQ(counts(r.assignment), (std::vector<int>{0, 0, 4}));  // the only one
  EXPECT_FALSE(r.prediction.saturated);
}

TEST(Matcher, FirstFeasibleStopsAtAnyNonSaturatedMatching) {
  // Wide links everywhere: every matching is non-saturated; the first found need not be best.
  Platform p = three_clusters(4);
  for (auto& c : p.clusters) c.link_max = 100.0;
  const MatchResult first = run(p, kJob, Matcher::kFirstFeasible);
  const MatchResult best = run(p, kJob, Matcher::kNonSaturated);
  ASSERT_TRUE(first.found());
  EXPECT_TRUE(first.valid) << first.check;
  EXPECT_EQ(first.assignment.total(), 4);
  EXPECT_GE(first.prediction.time, best.prediction.time - 1e-9);
  EXPECT_DOUBLE_EQ(best.prediction.time, 2.0);  // 3 + 1 over wide links: SP 1, SC 1
}

TEST(Matcher, InfeasibleNonSaturationIsReported) {
  // Cluster c holds only 3 nodes: every matching of 4 tasks saturates a link.
  const MatchResult ns = run(three_clusters(3), kJob, Matcher::kNonSaturated);
  EXPECT_EQ(ns.status, MipStatus::kInfeasible);
  EXPECT_FALSE(ns.found());
  EXPECT_EQ(run(three_clusters(3), kJob, Matcher::kFirstFeasible).status, MipStatus::kInfeasible);
  const MatchResult opt = run(three_clusters(3), kJob, Matcher::kOptimal);
  EXPECT_EQ(opt.status, MipStatus::kOptimal);  // saturating is allowed there
  EXPECT_DOUBLE_EQ(opt.prediction.time, 2.5);
}

TEST(Matcher, MoreTasksThanEligibleNodesIsInfeasible) {
  Platform p = three_clusters(4);
  for (auto& n : p.clusters[2].nodes) n.link_max = 1.0;  // PNBW 1.5 does not fit: not eligible
  const Job big{7, 1.5, 1.0, 1.0};
  EXPECT_EQ(run(p, big, Matcher::kOptimal).status, MipStatus::kInfeasible);
}

TEST(Matcher, PicksTheMostPowerfulNodeForOneTask) {
  Platform p;
  p.clusters.push_back({"a", {Node{1, 0.5}, Node{0.9, 1}, Node{1, 0.85}}, 1.0, 0.0});
  const MatchResult r = run(p, Job{1, 1.0, 2.0, 1.0}, Matcher::kOptimal);
  ASSERT_EQ(r.status, MipStatus::kOptimal);
  EXPECT_EQ(r.assignment.nodes[0], (std::vector<int>{1}));  // Gamma 0.9 beats 0.85 and 0.5
  EXPECT_DOUBLE_EQ(r.prediction.time, 2.0 / 0.9 + 1.0);
}

// Every matching of small random platforms: the solver's optimum equals the best found by
// enumeration, for the optimal and the non-saturated programs.
TEST(Matcher, AgreesWithEnumerationOnSmallPlatforms) {
  mcb::Rng rng(7);
  const auto u = [&rng] { return rng.uniform(); };
  for (int trial = 0; trial < 30; ++trial) {
    Platform p;
    for (int i = 0; i < 3; ++i) {
      Cluster c{"c" + std::to_string(i), {}, 1.0 + 2.0 * u(), u()};
      for (int k = 0; k < 3; ++k) c.nodes.push_back(Node{0.5 + 0.5 * u(), u() < 0.3 ? 0.85 : 1.0});
      p.clusters.push_back(c);
    }
    const Job job{2 + trial % 6, 0.2 + u(), u(), u()};
    double best = 1e300, best_ns = 1e300;
    for (unsigned mask = 0; mask < 512; ++mask) {
      if (__builtin_popcount(mask) != job.tasks) continue;
      Assignment a;
      a.nodes.resize(3);
      for (int b = 0; b < 9; ++b) {
        if (mask >> b & 1) a.nodes[static_cast<std::size_t>(b / 3)].push_back(b % 3);
      }
      const Prediction pr = predict(p, job, a);
      best = std::min(best, pr.time);
      if (!pr.saturated) best_ns = std::min(best_ns, pr.time);
    }
    const MatchResult opt = run(p, job, Matcher::kOptimal);
    ASSERT_EQ(opt.status, MipStatus::kOptimal) << "trial " << trial;
    EXPECT_TRUE(opt.valid) << opt.check;
    EXPECT_NEAR(opt.prediction.time, best, 1e-7) << "trial " << trial;
    const MatchResult ns = run(p, job, Matcher::kNonSaturated);
    if (best_ns > 1e299) {
      EXPECT_EQ(ns.status, MipStatus::kInfeasible) << "trial " << trial;
    } else {
      ASSERT_EQ(ns.status, MipStatus::kOptimal) << "trial " << trial;
      EXPECT_NEAR(ns.prediction.time, best_ns, 1e-7) << "trial " << trial;
    }
  }
}

TEST(Matcher, ATimeLimitBeforeAnySolutionIsReported) {
  Platform p;
  for (int i = 0; i < 64; ++i) {
    p.clusters.push_back({"c", std::vector<Node>(64, Node{1, 0.85}), 2.0, 0.5});
  }
  const MatchResult r = run(p, Job{100, 0.3, 1.0, 1.0}, Matcher::kOptimal, 0.001);
  EXPECT_TRUE(r.hit_time_limit);
  EXPECT_TRUE(r.status == MipStatus::kTimeLimit || r.status == MipStatus::kFeasible);
}

TEST(Matcher, SplitLimitsBoundComponentsAndClusterCounts) {
  // Wide links, equal nodes: without limits any split is optimal; with a minimum component of
  // 3 and exactly one cluster allowed, the job of 3 tasks must sit on one cluster of 3 nodes.
  Platform p = three_clusters(4);
  for (auto& c : p.clusters) c.link_max = 100.0;
  for (auto& n : p.clusters[2].nodes) n.power = 1.0;
  const Job job{3, 1.0, 1.0, 1.0};
  SplitLimits one_cluster;
  one_cluster.min_component = 3;
  one_cluster.allowed_counts = 1u << 1;
  const MatchResult r = match(p, job, Matcher::kOptimal, *kSolver, {60.0, false}, one_cluster);
  ASSERT_EQ(r.status, MipStatus::kOptimal);
  EXPECT_TRUE(r.valid) << r.check;
  const auto n = counts(r.assignment);
  EXPECT_EQ(std::count(n.begin(), n.end(), 3), 1);
  SplitLimits two_clusters;
  two_clusters.max_component = 2;
  two_clusters.allowed_counts = 1u << 2;
  const MatchResult s = match(p, job, Matcher::kOptimal, *kSolver, {60.0, false}, two_clusters);
  ASSERT_EQ(s.status, MipStatus::kOptimal);
  EXPECT_TRUE(s.valid) << s.check;
  const auto m = counts(s.assignment);
  EXPECT_EQ(std::count(m.begin(), m.end(), 0), 1);
  two_clusters.allowed_counts = 1u << 1;  // one cluster of at most 2: impossible for 3 tasks
  EXPECT_EQ(match(p, job, Matcher::kOptimal, *kSolver, {60.0, false}, two_clusters).status,
            MipStatus::kInfeasible);
}

TEST(Matcher, SixtyFiveClustersAreMatched) {
  // One node per cluster: the job must use all 65 clusters, past the 64 bits of a count mask.
  Platform p;
  for (int i = 0; i < 65; ++i) p.clusters.push_back({"c", {Node{}}, 100.0, 0.0});
  const MatchResult r = run(p, Job{65, 0.1, 1.0, 1.0}, Matcher::kOptimal);
  ASSERT_EQ(r.status, MipStatus::kOptimal);
  EXPECT_TRUE(r.valid) << r.check;
  EXPECT_EQ(r.assignment.total(), 65);
}

TEST(Matcher, NamesRoundTrip) {
  for (Matcher m : {Matcher::kOptimal, Matcher::kNonSaturated, Matcher::kFirstFeasible}) {
    EXPECT_EQ(parse_matcher(to_string(m)), m);
  }
  EXPECT_THROW(parse_matcher("best"), std::invalid_argument);
}

}  // namespace
}  // namespace mcb::matching
