// mcb-batchgrid as a user runs it: the generator's SWF replays in mcb-sim, a run writes its
// event files and says VALID, and bad input ends with exit code 2 and one line.
#include "batchgrid/events.hpp"
#include "common/csv.hpp"
#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace mcb::testing {
namespace {

TEST(BatchgridE2e, GeneratedSwfReplaysInMcbSim) {
  TempDir dir;
  const auto g =
      run_program("mcb-batchgrid", {"generate", "--size", "64", "--jobs", "2000", "--seed", "4",
                                    "--mix", "0/1/1/1/1", "--output", dir / "lf.swf"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const auto s = run_program("mcb-sim", {"--trace", dir / "lf.swf", "--clusters", "1x64", "--queue",
                                         "easy", "--output", dir / "replay"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE((s.out + s.err).find("2000 measured jobs"), std::string::npos) << s.out << s.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "replay/summary.json"));
  EXPECT_FALSE(summary.empty());
  // The same seed writes the same file.
  const auto again =
      run_program("mcb-batchgrid", {"generate", "--size", "64", "--jobs", "2000", "--seed", "4",
                                    "--mix", "0/1/1/1/1", "--output", dir / "again.swf"});
  ASSERT_EQ(again.exit_code, 0);
  EXPECT_EQ(slurp(dir / "lf.swf"), slurp(dir / "again.swf"));
}

TEST(BatchgridE2e, ARunWritesItsEventsAndIsValid) {
  TempDir dir;
  const auto r =
      run_program("mcb-batchgrid",
                  {"run", "--queues", "128:easy:0/1/1/1/1,64:cons,32:fcfs,32:easy", "--request",
                   "32", "--horizon-days", "10", "--limit", "43200", "--output", dir / "out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("VALID"), std::string::npos);
  const auto events = batchgrid::read_events(dir / "out/multi-events.jsonl");
  int kills = 0, resubmits = 0, remaps = 0;
  for (const auto& e : events) {
    kills += e.event == "kill";
    remaps += e.event == "remap";
    resubmits += e.event == "submit" && e.t > 0;
  }
  // 12-hour limits over 10 days: every started submission that ends in time is killed and
  // resubmitted at that instant.
  EXPECT_GT(kills, 0);
  EXPECT_EQ(resubmits, kills);
  EXPECT_GT(remaps, kills / 2);
  const auto summary = nlohmann::json::parse(slurp(dir / "out/summary.json"));
  EXPECT_EQ(summary["verdict"], "VALID");
  EXPECT_EQ(summary["config"]["seed"], 1);
}

TEST(BatchgridE2e, AOneComponentAppRunsWhereItIsPredictedFastest) {
  // mcb-ensemble's setting: one component of 1 + 8/P s per day, a pilot of 4 processors in one
  // empty queue and of 2 in another, 10-minute limits, 30 minutes. Alone on the 4 processors
  // a day takes 3 s; the two kills at the limit cost 2 s each.
  TempDir dir;
  std::ofstream(dir / "empty.swf") << "; MaxProcs: 4\n";
  const std::string trace = "trace=" + dir / "empty.swf";
  const auto r = run_program(
      "mcb-batchgrid",
      {"run", "--queues", "4:fcfs:" + trace + ",2:fcfs:" + trace, "--app", "1:8:1000", "--requests",
       "4,2", "--request", "4", "--restart-overhead", "2", "--limit", "600", "--horizon-days",
       csv::number(1800.0 / 86400), "--bandwidths", "100", "--output", dir / "out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out/summary.json"));
  EXPECT_EQ(summary["verdict"], "VALID");
  EXPECT_EQ(summary["requests"], nlohmann::json({4, 2}));
  EXPECT_EQ(summary["config"]["app"], "1:8:1000");
  const auto& o = summary["outcomes"][0];
  const double days_single = o["single_days_per_day"].get<double>() * 1800 / 86400;
  EXPECT_LE(days_single, 600 + 1e-6);
  EXPECT_GE(days_single, (1800 - 2 * 2 - 1e-6) / 3);
  // Both pilots start at once: the run goes to the 4 processors, never to the 2.
  const double days_multi = o["multi_days_per_day"].get<double>() * 1800 / 86400;
  EXPECT_NEAR(days_multi, days_single, 1.0);
  for (const auto& e : batchgrid::read_events(dir / "out/multi-events.jsonl")) {
    if (e.event == "remap") {
      EXPECT_EQ(e.detail["site"], nlohmann::json({0})) << e.detail.dump();
    }
  }
  // The first queue's own limit of 5 minutes, under --limit's 10: twice the kills there.
  auto kills = [&](const std::string& queues, const std::string& out) {
    const auto k = run_program(
        "mcb-batchgrid", {"run", "--queues", queues, "--app", "1:8:1000", "--requests", "4,2",
                          "--request", "4", "--limit", "600", "--horizon-days",
                          csv::number(1800.0 / 86400), "--bandwidths", "100", "--output", out});
    EXPECT_EQ(k.exit_code, 0) << k.err;
    int n = 0;
    for (const auto& e : batchgrid::read_events(out + "/single-events.jsonl")) {
      n += e.event == "kill";
    }
    return n;
  };
  const int at_600 = kills("4:fcfs:" + trace + ",2:fcfs:" + trace, dir / "k600");
  const int at_300 = kills("4:fcfs:" + trace + ":limit=300,2:fcfs:" + trace, dir / "k300");
  EXPECT_GE(at_600, 2);
  EXPECT_GE(at_300, 2 * at_600);
}

TEST(BatchgridE2e, AStudyIsTheSameOnOneThreadAndOnThree) {
  TempDir dir;
  for (const char* threads : {"1", "3"}) {
    const auto r = run_program("mcb-batchgrid",
                               {"study", "--experiments", "5", "--horizon-days", "6", "--threads",
                                threads, "--output", dir / (std::string("t") + threads)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(slurp(dir / "t1/study.csv"), slurp(dir / "t3/study.csv"));
  const auto summary = nlohmann::json::parse(slurp(dir / "t3/study.json"));
  EXPECT_EQ(summary["threads"], 3);
  EXPECT_EQ(summary["verdict"], "VALID");
}

TEST(BatchgridE2e, BadInputIsOneLineAndExitCode2) {
  for (const BadInput& input : std::vector<BadInput>{
           {"1|generate --size 8", "--size: '8'"},
           {"1|generate --size 64 --mix 1/2", "--mix: mix '1/2'"},
           {"1|generate --size 64 --interarrival -3", "--interarrival"},
           {"1|run --queues 64:lifo", "discipline 'lifo'"},
           {"1|run --queues 64:easy --request 128", "--request: '128'"},
           {"1|run --queues 64:easy --bandwidths 10,x", "--bandwidths: 'x'"},
           {"1|run --queues 64:easy:trace=/nonexistent.swf", "/nonexistent.swf"},
           {"1|run --queues 64:easy --app 1:2", "--app: '1:2'"},
           {"1|run --queues 64:easy:limit=0", "limit '0'"},
           {"1|run --queues 64:easy:limit=x", "--queues: 'x'"},
           {"1|run --queues 64:easy --app 1:x:3", "--app: 'x'"},
           {"1|run --queues 64:easy,32:easy --requests 4", "--requests: '4' has 1 sizes"},
           {"1|run --queues 64:easy --requests 65", "--requests: '65'"},
           {"1|run --queues 64:easy --restart-overhead -1", "--restart-overhead"},
           {"1|study --experiments 0", "--experiments: '0'"},
           {"1|study --threads -1", "--threads: '-1'"},
           {"1|frobnicate", "command: 'frobnicate'"},
       }) {
    expect_usage_error("mcb-batchgrid", input);
  }
}

TEST(BatchgridE2e, ABadTraceLineIsNamedWithItsLine) {
  TempDir dir;
  std::ofstream(dir / "bad.swf")
      << "; MaxProcs: 64\n1 0 -1 10 4 -1 -1 4 -1 -1 1 -1 -1 -1 1 -1 -1 -1\n"
         "2 x -1 10 4 -1 -1 4 -1 -1 1 -1 -1 -1 1 -1 -1 -1\n";
  const auto r =
      run_program("mcb-batchgrid", {"run", "--queues", "64:fcfs:trace=" + dir / "bad.swf",
                                    "--request", "16", "--output", dir / "out"});
  EXPECT_EQ(r.exit_code, 2);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("bad.swf:3"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

}  // namespace
}  // namespace mcb::testing
