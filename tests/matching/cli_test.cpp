// mcb-match and mcb-match-study as a user runs them: a match, an infeasible match, bad input
// (exit 2, one line, nothing written) and a small study.
#include "tests/support/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace mcb::testing {
namespace {

std::string platform(const TempDir& dir) {
  std::string path = dir / "platform.ini";
  std::ofstream(path) << "[cluster.a]\nnodes = 3\nlink_max = 1\n[cluster.b]\nnodes = 3\n"
                         "link_max = 1\n[cluster.c]\nnodes = 4\npower = 0.5\nlink_max = 100\n";
  return path;
}

TEST(MatchProgram, PrintsTheMatchAndItsPrediction) {
  TempDir dir;
  const auto r =
      run_program("mcb-match", {"--platform", platform(dir), "--tasks", "4", "--pnbw", "1.5",
                                "--communication", "1", "--matcher", "non-saturated"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["match"]["verdict"], "VALID");
  EXPECT_DOUBLE_EQ(j["match"]["time"].get<double>(), 3.0);
  EXPECT_EQ(j["match"]["nodes"], nlohmann::json::parse("[[], [], [0, 1, 2, 3]]"));
  EXPECT_TRUE(j.contains("env"));
}

TEST(MatchProgram, InfeasibleMatchIsReportedInOneLine) {
  TempDir dir;
  const auto r = run_program("mcb-match", {"--platform", platform(dir), "--tasks", "11"});
  EXPECT_EQ(r.exit_code, 3);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("INFEASIBLE: no matching of 11 tasks"), std::string::npos) << r.err;
}

struct Bad {
  std::vector<std::string> args;
  std::string names;
};

TEST(MatchProgram, BadInputExitsTwoWithOneLine) {
  TempDir dir;
  const std::string good = platform(dir);
  const std::string bad = dir / "bad.ini";
  std::ofstream(bad) << "[cluster.a]\nnodes = 2\navailability = 2\n";
  const std::vector<Bad> cases{
      {{"--platform", bad}, "bad.ini:3: availability: '2'"},
      {{"--platform", dir / "missing.ini"}, "missing.ini"},
      {{"--platform", good, "--tasks", "0"}, "--tasks"},
      {{"--platform", good, "--pnbw", "-1"}, "--pnbw"},
      {{"--platform", good, "--matcher", "best"}, "--matcher"},
      {{"--platform", good, "--time-limit", "0"}, "--time-limit"},
      {{"--tasks", "2"}, "--platform"},
  };
  for (const auto& c : cases) {
    const auto r = run_program("mcb-match", c.args);
    EXPECT_EQ(r.exit_code, 2) << c.names << ": " << r.err;
    ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find(c.names), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  for (const auto& extra :
       {std::vector<std::string>{"--replications", "0"}, std::vector<std::string>{"--seed", "-1"},
        std::vector<std::string>{"--time-limit", "nan"}}) {
    std::vector<std::string> args{"--output", dir / "s"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_program("mcb-match-study", args);
    EXPECT_EQ(r.exit_code, 2) << extra[0];
    ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find(extra[0]), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "s"));
  }
}

TEST(MatchStudy, WritesEveryMatchAndSaysValid) {
  TempDir dir;
  const auto r = run_program("mcb-match-study", {"--output", dir / "s", "--replications", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(": VALID"), std::string::npos) << r.out;
  const auto doc = nlohmann::json::parse(slurp(dir / "s/study.json"));
  EXPECT_EQ(doc["verdict"], "VALID");
  EXPECT_EQ(doc["invalid"], 0);
  EXPECT_GT(doc["infeasible"].get<int>(), 0);  // high PNBW leaves no unsaturated matching
  EXPECT_EQ(doc["config"]["seed"], 1);
  std::ifstream csv(dir / "s/matches.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("figure,clusters,nodes_per_cluster,nodes,links,pnbw", 0), 0u);
}

}  // namespace
}  // namespace mcb::testing
