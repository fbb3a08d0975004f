// mcb-sim's link-aware placement: the matcher's split, the model's service-time factor, links
// loaded by running jobs, and mcb-sim's refusals of runs it cannot price.
#include "matching/model.hpp"
#include "simulator/placement.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

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

TEST(LinkAwareSim, RefusesRunsItCannotPrice) {
  TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--queue", "easy"}, "--queue"},
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

}  // namespace
}  // namespace mcb::sim
