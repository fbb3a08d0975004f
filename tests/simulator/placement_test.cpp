// Placement rules against hand-worked examples. Idle processors {10, 20, 15, 5} unless said.
#include "simulator/placement.hpp"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

namespace mcb::sim {
namespace {

std::vector<int> place(const char* rule, const Request& r, std::vector<int> avail,
                       bool* ok = nullptr) {
  std::vector<int> out(avail.size(), -1);
  const bool fits = make_placement(rule)->place(r, avail, out);
  if (ok) *ok = fits;
  if (!fits) return {};
  return out;
}

Request components(const std::vector<int>& sizes, RequestType type = RequestType::kUnordered) {
  Request r;
  r.type = type;
  r.sizes.assign(sizes.begin(), sizes.end());
  for (int s : sizes) r.total += s;
  return r;
}

Request flexible(int total) {
  Request r;
  r.type = RequestType::kFlexible;
  r.sizes = {total};
  r.total = total;
  return r;
}

const std::vector<int> kIdle = {10, 20, 15, 5};

// The placement rules and the machine read sizes and allocations as spans: a span of Counts
// sees every entry, inline or past the four kept inline, and writes through to them.
TEST(Counts, ASpanViewsEveryEntry) {
  for (Counts c : {Counts{3}, Counts{5, 4, 3, 2, 1, 0}}) {
    const Counts& read = c;
    const std::span<const int> s = read;
    EXPECT_EQ(s.data(), c.data());
    EXPECT_EQ(s.size(), c.size());
    const std::span<int> w = c;
    ASSERT_EQ(w.size(), c.size());
    w.back() = 9;
    EXPECT_EQ(c.back(), 9);
  }
}

TEST(Placement, WorstFitPutsEachComponentOnTheClusterWithMostIdle) {
  // 8 goes to cluster 1 (20 idle); 6 to the most idle of the others, cluster 2 (15).
  EXPECT_EQ(place("wf", components({8, 6}), kIdle), (std::vector<int>{0, 8, 6, 0}));
}

TEST(Placement, WorstFitMayCoAllocateAJobThatFitsOneCluster) {
  // Both components would fit cluster 1 together, but unordered requests use distinct clusters.
  EXPECT_EQ(place("wf", components({4, 4}), kIdle), (std::vector<int>{0, 4, 4, 0}));
}

TEST(Placement, UnorderedNeedsDistinctClustersNonFixedMayShare) {
  bool ok = true;
  place("wf", components({5, 5}), {10, 3, 3, 3}, &ok);
  EXPECT_FALSE(ok) << "only one cluster holds 5";
  EXPECT_EQ(place("wf", components({5, 5}, RequestType::kNonFixed), {10, 3, 3, 3}),
            (std::vector<int>{10, 0, 0, 0}));
}

TEST(Placement, UnorderedFailsWhenTheMostIdleClusterCannotHoldTheLargestComponent) {
  bool ok = true;
  place("wf", components({21}), kIdle, &ok);
  EXPECT_FALSE(ok);
  place("wf", components({4, 4, 4, 4, 4}), {8, 8, 8, 8}, &ok);
  EXPECT_FALSE(ok) << "five components, four clusters";
}

TEST(Placement, FirstFitTakesTheLowestNumberedClusterThatHolds) {
  EXPECT_EQ(place("ff", components({8, 6}), kIdle), (std::vector<int>{8, 6, 0, 0}));
  EXPECT_EQ(place("ff", components({12}), kIdle), (std::vector<int>{0, 12, 0, 0}));
}

TEST(Placement, BestFitTakesTheTightestClusterThatHolds) {
  // 8: tightest of {10, 20, 15} is cluster 0; 6: tightest of the others {20, 15} is cluster 2.
  EXPECT_EQ(place("bf", components({8, 6}), kIdle), (std::vector<int>{8, 0, 6, 0}));
  EXPECT_EQ(place("bf", components({5}), kIdle), (std::vector<int>{0, 0, 0, 5}));
}

TEST(Placement, FcmKeepsNonFixedComponentsOnClustersAlreadyUsed) {
  // WF spreads {6, 6} over clusters 1 and 2; FCM puts the second one beside the first.
  EXPECT_EQ(place("wf", components({6, 6}, RequestType::kNonFixed), kIdle),
            (std::vector<int>{0, 6, 6, 0}));
  EXPECT_EQ(place("fcm", components({6, 6}, RequestType::kNonFixed), kIdle),
            (std::vector<int>{0, 12, 0, 0}));
}

TEST(Placement, FixedRequestsGoWhereTheySay) {
  Request r = components({4});
  r.type = RequestType::kFixed;
  r.clusters = {3};
  EXPECT_EQ(place("wf", r, kIdle), (std::vector<int>{0, 0, 0, 4}));
  r.sizes = {4, 4};
  r.clusters = {3, 3};
  r.total = 8;
  bool ok = true;
  place("wf", r, kIdle, &ok);
  EXPECT_FALSE(ok) << "two components of 4 on cluster 3, which has 5 idle";
}

TEST(Placement, FcmFillsClustersInDecreasingIdleOrder) {
  // 001 III.B: clusters by idle 20, 15, 10, 5; take 20 from cluster 1, the rest (10) from 2.
  EXPECT_EQ(place("fcm", flexible(30), kIdle), (std::vector<int>{0, 20, 10, 0}));
  // A job the most idle cluster holds uses one cluster.
  EXPECT_EQ(place("fcm", flexible(18), kIdle), (std::vector<int>{0, 18, 0, 0}));
  // All 50 idle processors: four components.
  EXPECT_EQ(place("fcm", flexible(50), kIdle), (std::vector<int>{10, 20, 15, 5}));
  bool ok = true;
  place("fcm", flexible(51), kIdle, &ok);
  EXPECT_FALSE(ok);
}

TEST(Placement, FcmHonoursComponentLimits) {
  Request r = flexible(30);
  r.max_component = 12;  // 12 + 12 + 6
  EXPECT_EQ(place("fcm", r, kIdle), (std::vector<int>{6, 12, 12, 0}));
  r = flexible(30);
  r.max_components = 1;
  bool ok = true;
  place("fcm", r, kIdle, &ok);
  EXPECT_FALSE(ok);
  r = flexible(24);
  r.min_component = 6;  // 20 + 4 would leave a component of 4: take 18 + 6
  EXPECT_EQ(place("fcm", r, kIdle), (std::vector<int>{0, 18, 6, 0}));
  r = flexible(30);
  r.allowed_counts = std::uint64_t{1} << 3;  // only three components can be priced
  EXPECT_EQ(place("fcm", r, kIdle), (std::vector<int>{1, 20, 9, 0}));
}

TEST(Placement, WorstFitWaterFillsFlexibleRequests) {
  // Taking 12 from clusters 1 and 2 down towards one level: 20-9 = 11 and 15-3 = 12 idle left.
  EXPECT_EQ(place("wf", flexible(12), kIdle), (std::vector<int>{0, 9, 3, 0}));
  Request r = flexible(12);
  r.max_components = 1;
  EXPECT_EQ(place("wf", r, kIdle), (std::vector<int>{0, 12, 0, 0}));
}

TEST(Placement, FirstAndBestFitOnFlexibleRequests) {
  EXPECT_EQ(place("ff", flexible(27), kIdle), (std::vector<int>{10, 17, 0, 0}));
  EXPECT_EQ(place("bf", flexible(12), kIdle), (std::vector<int>{0, 0, 12, 0}));
  // Two components: fill the most idle (20), the last 7 to the tightest that holds it (10).
  EXPECT_EQ(place("bf", flexible(27), kIdle), (std::vector<int>{7, 20, 0, 0}));
}

TEST(Placement, OneComponentOnOneClusterGoesThereExactlyWhenItFits) {
  // The single-cluster case every rule shares (and a backfilling pass tries most often): the
  // same answer as the rule gives on a larger machine whose other clusters are empty.
  for (const char* rule : {"wf", "ff", "bf", "fcm"}) {
    for (RequestType type : {RequestType::kUnordered, RequestType::kNonFixed}) {
      for (int size : {1, 7, 8, 9}) {
        SCOPED_TRACE(std::string(rule) + " size " + std::to_string(size));
        bool ok = false;
        const auto one = place(rule, components({size}, type), {8}, &ok);
        EXPECT_EQ(ok, size <= 8);
        if (ok) EXPECT_EQ(one, (std::vector<int>{size}));
        const auto wider = place(rule, components({size}, type), {8, 0, 0}, &ok);
        EXPECT_EQ(ok, size <= 8);
        if (ok) EXPECT_EQ(wider, (std::vector<int>{size, 0, 0}));
      }
    }
  }
}

TEST(Placement, ClustersTheJobMayNotUseHaveNothing) {
  EXPECT_EQ(place("wf", components({8}), {10, 0, 0, 5}), (std::vector<int>{8, 0, 0, 0}));
}

TEST(Placement, UnknownRuleIsRejected) {
  EXPECT_THROW(make_placement("xf"), std::invalid_argument);
}

}  // namespace
}  // namespace mcb::sim
