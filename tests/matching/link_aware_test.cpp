// mcb-sim's link-aware placement and the model's pricing of every placement: the matcher's
// split, the model's service-time factor (worked by hand, for WF as for link-aware), links
// loaded by running jobs, the backfilling plan's bound, sweeps, and mcb-sim's refusals of runs
// it cannot price.
#include "matching/model.hpp"
#include "simulator/placement.hpp"
#include "tests/simulator/scenario.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

namespace mcb::sim {
namespace {

// Three clusters of two full-power nodes; links of 1.5 with nothing else on them. A job of 3
// tasks with PNBW 1 needs 1 on every link it crosses (eq. 4: n(3-n)/2 = 1 for n = 1, 2).
PlacementSettings three_pairs(const std::string& matcher) {
  auto p = std::make_shared<matching::Platform>();
  for (const char* name : {"a", "b", "c"}) {
    p->clusters.push_back({name, std::vector<matching::Node>(2), 1.5, 0.0});
  }
  PlacementSettings s;
  s.platform = p;
  s.matcher = matcher;
  s.pnbw = 1.0;
  s.comm_share = 0.5;
  return s;
}

Request flexible(int total) {
  Request r;
  r.type = RequestType::kFlexible;
  r.sizes = {total};
  r.total = total;
  return r;
}

TEST(LinkAware, RunningJobsLoadTheLinksOfTheNextMatch) {
  auto rule = make_placement("link-aware", three_pairs("non-saturated"));
  std::vector<int> avail{2, 2, 2}, a(3), b(3);
  ASSERT_TRUE(rule->place(flexible(3), avail, a));
  EXPECT_EQ(a[0] + a[1] + a[2], 3);
  EXPECT_DOUBLE_EQ(rule->on_start(1, flexible(3), a), 1.0);  // SC = (0 + 1)/1.5 -> 1: T = 1
  for (int c = 0; c < 3; ++c) avail[c] -= a[c];
  // Every cluster left shares a link with the first job: 1 + 1 > 1.5, saturated: no match.
  EXPECT_FALSE(rule->place(flexible(3), avail, b));
  rule->on_depart(1);
  ASSERT_TRUE(rule->place(flexible(3), std::vector<int>{2, 2, 2}, b));
  EXPECT_DOUBLE_EQ(rule->on_start(2, flexible(3), b), 1.0);
}

TEST(LinkAware, OptimalAcceptsTheSaturatedLinkAndStretchesTheJob) {
  auto rule = make_placement("link-aware", three_pairs("optimal"));
  std::vector<int> avail{2, 2, 2}, a(3), b(3);
  ASSERT_TRUE(rule->place(flexible(3), avail, a));
  rule->on_start(1, flexible(3), a);
  for (int c = 0; c < 3; ++c) avail[c] -= a[c];
  ASSERT_TRUE(rule->place(flexible(3), avail, b));
  // SP 1; the most loaded link carries 1 + 1 over 1.5: SC 4/3; T = 0.5 + 0.5 x 4/3 = 7/6.
  EXPECT_DOUBLE_EQ(rule->on_start(2, flexible(3), b), 7.0 / 6.0);
}

TEST(LinkAware, SlowNodesStretchTheProcessingPart) {
  PlacementSettings s = three_pairs("optimal");
  auto p = std::make_shared<matching::Platform>(*s.platform);
  for (auto& n : p->clusters[0].nodes) n.availability = 0.5;  // Gamma 0.5: SP 2
  s.platform = p;
  auto rule = make_placement("link-aware", s);
  std::vector<int> out(3);
  ASSERT_TRUE(rule->place(flexible(2), std::vector<int>{2, 0, 0}, out));
  EXPECT_EQ(out, (std::vector<int>{2, 0, 0}));
  EXPECT_DOUBLE_EQ(rule->on_start(1, flexible(2), out), 0.5 * 2.0 + 0.5);  // T = 1.5
}

TEST(LinkAware, NeedsAPlatform) {
  EXPECT_THROW(make_placement("link-aware"), std::invalid_argument);
}

// Seed 002's model prices Worst Fit's placements too (--platform): worked by hand on three
// clusters of two nodes, links of 1.5, PNBW 1, T^p = T^c. Cluster c's second node is at half
// availability. Job 1 (2+1, runtime 10): WF puts 2 on a, 1 on b; each link carries
// n(3-n)/2 = 1 < 1.5: SC 1, SP 1, service 10 (the trace's co-allocation factor 1.25 is not
// applied). Job 2 (1+1, runtime 6) at t=1: WF puts 1 on c (best node), 1 on b; link b now
// carries 1 + 1 = 2: SC 4/3, T = 0.5 + 0.5 x 4/3 = 7/6, service 7. Job 3 (1, runtime 4) at t=2
// gets c's slow node: SP 2, T = 0.5 x 2 + 0.5 = 1.5, service 6.
TEST(ModelPricing, PricesWorstFitsPlacementsByHand) {
  PlacementSettings s = three_pairs("optimal");
  auto p = std::make_shared<matching::Platform>(*s.platform);
  p->clusters[2].nodes[1].availability = 0.5;
  s.platform = p;
  const std::vector<test::Spec> jobs{{1, 0, {2, 1}, 10}, {2, 1, {1, 1}, 6}, {3, 2, {1}, 4}};
  const auto run = [&](const PlacementSettings& settings) {
    Sim sim(parse_clusters("3x2"), make_policy("gs", 3), make_discipline("fcfs"),
            make_placement("wf", settings), ServiceModel(1.25, 1.0), RunLimits{});
    test::VectorSource source(jobs);
    test::Capture capture;
    sim.run(source, capture);
    return capture;
  };
  const test::Capture priced = run(s);
  EXPECT_EQ(priced.jobs.at(1).alloc, (std::vector<int>{2, 1, 0}));
  EXPECT_DOUBLE_EQ(priced.jobs.at(1).service, 10.0);
  EXPECT_EQ(priced.jobs.at(2).alloc, (std::vector<int>{0, 1, 1}));
  EXPECT_DOUBLE_EQ(priced.jobs.at(2).start, 1.0);
  EXPECT_DOUBLE_EQ(priced.jobs.at(2).service, 7.0);
  EXPECT_DOUBLE_EQ(priced.jobs.at(3).service, 6.0);
  // Without a platform the same placements keep the trace's pricing.
  const test::Capture tables = run(PlacementSettings{});
  EXPECT_EQ(tables.jobs.at(2).alloc, (std::vector<int>{0, 1, 1}));
  EXPECT_DOUBLE_EQ(tables.jobs.at(1).service, 12.5);
  EXPECT_DOUBLE_EQ(tables.jobs.at(2).service, 7.5);
  EXPECT_DOUBLE_EQ(tables.jobs.at(3).service, 4.0);
}

// The plan's bound: SP at most 2 (the half-available node); SC at most (0 + 2 nodes x 1)/1.5.
TEST(ModelPricing, BoundsEveryPriceForBackfillingPlans) {
  PlacementSettings s = three_pairs("optimal");
  auto p = std::make_shared<matching::Platform>(*s.platform);
  p->clusters[2].nodes[1].availability = 0.5;
  s.platform = p;
  EXPECT_DOUBLE_EQ(make_placement("wf", s)->price_bound(), 0.5 * 2 + 0.5 * 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(make_placement("link-aware", s)->price_bound(), 0.5 * 2 + 0.5 * 4.0 / 3.0);
  s.matcher = "non-saturated";  // its matches keep SC at 1
  EXPECT_DOUBLE_EQ(make_placement("link-aware", s)->price_bound(), 0.5 * 2 + 0.5);
  EXPECT_DOUBLE_EQ(make_placement("wf")->price_bound(), 0.0);
}

// EASY with the optimal link-aware rule: the plan made at arrival with the bound is never
// overrun, so no head starts after the reservation it first got, and backfilling happens.
TEST(ModelPricing, EasyBackfillingKeepsItsReservations) {
  PlacementSettings s = three_pairs("optimal");
  auto p = std::make_shared<matching::Platform>(*s.platform);
  p->clusters[1].nodes[1].availability = 0.25;  // SP up to 4: prices well above 1
  for (auto& n : p->clusters[2].nodes) n.availability = 0.5;
  s.platform = p;
  std::vector<test::Spec> jobs;
  for (int i = 0; i < 60; ++i) {
    test::Spec j{i + 1, i * 1.5, {1 + (i * 7) % 5}, 3.0 + (i * 13) % 11};
    j.type = RequestType::kFlexible;
    jobs.push_back(j);
  }
  Sim sim(parse_clusters("3x2"), make_policy("gs", 3), make_discipline("easy"),
          make_placement("link-aware", s), ServiceModel(1.0, 1.0), RunLimits{});
  test::VectorSource source(jobs);
  test::Capture capture;
  sim.run(source, capture);
  ASSERT_EQ(capture.jobs.size(), jobs.size());
  int reserved = 0, overtaken = 0;
  for (const auto& [id, o] : capture.jobs) {
    if (o.reserved != kNever) {
      ++reserved;
      EXPECT_LE(o.start, o.reserved + 1e-9) << "job " << id;
    }
  }
  for (std::size_t i = 1; i < capture.order.size(); ++i) {
    overtaken += capture.order[i] < capture.order[i - 1];
  }
  EXPECT_GT(reserved, 0);
  EXPECT_GT(overtaken, 0);
}

using testing::run_program;
using testing::TempDir;

std::vector<std::string> sim_args(const std::string& out) {
  return {"--workload",    "poisson",
          "--request",     "flexible",
          "--tables",      std::string(MCB_SOURCE_DIR) + "/calibration/das2",
          "--utilization", "0.3",
          "--jobs",        "300",
          "--placement",   "link-aware",
          "--platform",    std::string(MCB_SOURCE_DIR) + "/matching/platforms/four-clusters.ini",
          "--output",      out};
}

TEST(LinkAwareSim, RunsAndRecordsItsSettings) {
  TempDir dir;
  auto args = sim_args(dir / "run");
  args.insert(args.end(), {"--matcher", "non-saturated"});
  const auto r = run_program("mcb-sim", args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(testing::slurp(dir / "run/summary.json"));
  const std::string text = summary.dump();
  EXPECT_NE(text.find("\"link_aware\""), std::string::npos);
  EXPECT_NE(text.find("\"non-saturated\""), std::string::npos);
}

// A sweep over placements and queue disciplines under one pricing: link-aware (optimal), WF
// and FCM with FCFS, EASY and conservative backfilling, every point run to its last job.
TEST(LinkAwareSim, SweepsPlacementsAndQueuesUnderTheModel) {
  TempDir dir;
  auto args = sim_args(dir / "sweep");
  args[7] = "0.3,0.5";  // --utilization
  args[9] = "150";      // --jobs
  args[11] = "link-aware,wf,fcm";
  args.insert(args.end(), {"--queue", "fcfs,easy,cons"});
  const auto r = run_program("mcb-sim", args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto sweep = nlohmann::json::parse(testing::slurp(dir / "sweep/sweep.json"));
  EXPECT_EQ(sweep["config"]["link_aware"]["pricing"], "every placement");
  std::set<std::string> seen;
  for (const auto& point : sweep["points"]) {
    seen.insert(point["placement"].get<std::string>() + "/" + point["queue"].get<std::string>());
    EXPECT_EQ(point["result"]["jobs"]["completed"], 150) << point.dump();
  }
  EXPECT_EQ(sweep["points"].size(), 18u);
  EXPECT_EQ(seen.size(), 9u);
}

TEST(LinkAwareSim, RefusesRunsItCannotPrice) {
  TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--queue", "easy", "--matcher", "non-saturated"}, "--queue"},
      {{"--queue", "fcfs,cons", "--matcher", "first-feasible"}, "--queue"},
      {{"--queue", "easy", "--pnbw", "2"}, "cannot take a task of --pnbw"},
      {{"--speeds", "1"}, "--speeds"},
      {{"--clusters", "4x16"}, "not --clusters 4x16"},
      {{"--matcher", "best"}, "--matcher"},
      {{"--comm-share", "1"}, "--comm-share"},
  };
  for (const auto& [extra, names] : cases) {
    auto args = sim_args(dir / "run");
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_program("mcb-sim", args);
    EXPECT_EQ(r.exit_code, 2) << names << ": " << r.err;
    ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find(names), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "run"));
  }
}

// WF places without reading the platform, so a node of power x availability 0 could get a task
// the model never finishes: refused with the node named, before anything is written.
TEST(LinkAwareSim, RefusesANodeWithoutPowerToRulesBlindToThePlatform) {
  TempDir dir;
  const auto file = dir / "idle-cluster.ini";
  std::ofstream(file) << "[cluster.a]\nnodes = 32\navailability = 0\n"
                      << "[cluster.b]\nnodes = 32\n[cluster.c]\nnodes = 32\n"
                      << "[cluster.d]\nnodes = 32\n";
  auto args = sim_args(dir / "run");
  args[11] = "wf";
  args[13] = file;
  const auto r = run_program("mcb-sim", args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("node 0 of cluster a has power x availability 0"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "run"));
}

}  // namespace
}  // namespace mcb::sim
