// mcb-poisson as a user meets it: real runs through mpirun, the record they append, and the
// answer to bad input (exit code 2, one line naming the option and value, no record).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

namespace mcb::testing {
namespace {

using nlohmann::json;

TEST(PoissonProgram, RecordOfARealTwoClusterRunHoldsEveryDesignField) {
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  const auto r = run_command(mpirun(4) + bin("mcb-poisson") +
                             " --grid 40 --procs 2x2 --clusters 2 --sync --seed 9 --run-id t-1-r1"
                             " --campaign t --output " +
                             quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("VALID"), std::string::npos);
  EXPECT_NE(r.out.find("LUP/s"), std::string::npos);
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 1u);
  const json& rec = records[0];
  EXPECT_EQ(rec["schema"], "mcb-run/2");
  EXPECT_EQ(rec["run_id"], "t-1-r1");
  EXPECT_EQ(rec["campaign"], "t");
  EXPECT_EQ(rec["app"], "poisson");
  EXPECT_EQ(rec["status"], "valid");
  for (const char* key : {"residual", "error", "error_bound", "figure_of_merit"}) {
    EXPECT_TRUE(rec["verdict"].contains(key)) << key;
  }
  const json& config = rec["config"];
  EXPECT_EQ(config["grid"], 40);
  EXPECT_EQ(config["procs"], "2x2");
  EXPECT_EQ(config["clusters"], 2);
  EXPECT_EQ(config["cluster_map"], json({0, 0, 1, 1}));
  EXPECT_EQ(config["halo"], "paper");
  EXPECT_EQ(config["sync"], true);
  EXPECT_EQ(config["seed"], 9);
  EXPECT_EQ(config["problem"], "40x40");
  EXPECT_EQ(config["total_size"], 4);
  EXPECT_EQ(config["components"], 2);
  EXPECT_TRUE(config.contains("wan"));
  EXPECT_TRUE(config.contains("system"));
  for (const char* key :
       {"host", "hosts", "mpi", "compiler", "build_type", "revision", "date", "command_line"}) {
    EXPECT_TRUE(rec["env"].contains(key)) << key;
  }
  EXPECT_EQ(rec["env"]["hosts"].size(), 4u);
  const json& result = rec["result"];
  EXPECT_GT(result["iterations"].get<int>(), 0);
  EXPECT_GT(result["wall_time"].get<double>(), 0);
  for (const char* key : {"compute_time", "comm_time"}) {
    for (const char* stat : {"min", "avg", "max"}) EXPECT_TRUE(result[key].contains(stat));
  }
  EXPECT_GE(result["comm_time_paper"].get<double>(), 0);
  EXPECT_TRUE(result.contains("transfer_rate"));
  ASSERT_EQ(rec["ranks"].size(), 4u);
  for (int rank = 0; rank < 4; ++rank) {
    const json& entry = rec["ranks"][static_cast<size_t>(rank)];
    EXPECT_EQ(entry["rank"], rank);
    EXPECT_EQ(entry["cluster"], rank < 2 ? 0 : 1);
    for (const char* dir : {"top", "bottom", "left", "right"}) {
      for (const char* part : {"time", "sent", "received"}) {
        ASSERT_TRUE(entry["channels"][dir].contains(part)) << dir << " " << part;
      }
    }
    // Ranks 0,1 are the left strip: their "right" sends cross to cluster 1.
    const auto& right_sent = entry["channels"]["right"]["sent"];
    EXPECT_EQ(right_sent["inter"]["messages"].get<int>() > 0, rank < 2);
  }
  // Counters are either values or null with a reason.
  if (rec["counters"].is_null()) {
    EXPECT_FALSE(rec["counters_reason"].get<std::string>().empty());
  }
}

TEST(PoissonProgram, RecordsAreAppendedOneLineEach) {
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  for (const char* halo : {"paper", "exact"}) {
    const auto r = run_command(mpirun(2) + bin("mcb-poisson") + " --grid 30 --quiet --halo " +
                               halo + " --output " + quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("VALID", 0), 0u) << r.out;
  }
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["config"]["halo"], "paper");
  EXPECT_EQ(records[1]["config"]["halo"], "exact");
  EXPECT_NE(records[0]["run_id"], records[1]["run_id"]);
}

// --halo overlap over two clusters joined by an emulated wide-area link: VALID, recorded as
// overlap, with exact mode's iterations, error and residual.
TEST(PoissonProgram, OverlapRunsOverTheWideAreaWithExactModesSolution) {
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  for (const char* halo : {"exact", "overlap"}) {
    const auto r = run_command(
        mpirun(4) + bin("mcb-poisson") + " --grid 40 --procs 2x2 --clusters 2 --wan-latency 1ms " +
        "--wan-bandwidth 100Mbit/s --quiet --halo " + halo + " --output " + quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("VALID", 0), 0u) << r.out;
  }
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1]["config"]["halo"], "overlap");
  for (const char* key : {"iterations", "global_error"}) {
    EXPECT_EQ(records[0]["result"][key], records[1]["result"][key]) << key;
  }
  for (const char* key : {"error", "residual"}) {
    EXPECT_EQ(records[0]["verdict"][key], records[1]["verdict"][key]) << key;
  }
}

TEST(PoissonProgram, NonConvergedRunIsInvalidAndRecordedAsSuch) {
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  const auto r = run_command(mpirun(2) + bin("mcb-poisson") +
                             " --grid 30 --max-iterations 3 --output " + quote(out));
  expect_invalid_run(r, out, "converge");
}

class PoissonBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(PoissonBadInput, ExitsWithCodeTwoAndOneLineAndNoRecord) {
  expect_usage_error("mcb-poisson", GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PoissonBadInput,
    ::testing::Values(
        BadInput{"4|--procs 4x4", "--procs: '4x4' has 16 processes but the run has 4 ranks"},
        BadInput{"4|--procs 2x2 --grid 1", "--grid: '1'"},
        BadInput{"4|--procs 4x1 --clusters 3", "--clusters: '3'"},
        BadInput{"2|--grid abc", "'abc'"}, BadInput{"2|--grid -5", "-5"},
        BadInput{"1|--grid 0", "--grid: '0'"}, BadInput{"1|--tolerance -1", "--tolerance: '-1'"},
        BadInput{"1|--max-iterations 0", "--max-iterations: '0'"},
        BadInput{"1|--halo sideways", "--halo: 'sideways'"},
        BadInput{"1|--halo overlap --kernel reference", "--kernel: 'reference'"},
        BadInput{"1|--omega 2.5", "--omega: '2.5'"}, BadInput{"1|--procs 2by2", "--procs: '2by2'"},
        BadInput{"2|--frobnicate 3", "--frobnicate"}, BadInput{"1|--clusters 0", "--clusters: '0'"},
        BadInput{"2|--clusters 2 --cluster-map env:PATH",
                 "--clusters: '2' disagrees with --cluster-map 'env:PATH', which has 1 cluster"},
        BadInput{"2|--output /nonexistent-dir/runs.jsonl",
                 "--output: cannot write '/nonexistent-dir/runs.jsonl'"},
        BadInput{"1|--output /tmp", "--output: cannot write '/tmp'"}));

TEST(PoissonProgram, HelpListsTheSharedOptions) {
  const auto r = run_command(bin("mcb-poisson") + " --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--grid", "--procs", "--clusters", "--cluster-map", "--halo", "--sync",
                             "--output", "--seed", "--config"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
}

TEST(PoissonProgram, ConfigFileSuppliesOptionsAndCommandLineWins) {
  TempDir dir;
  const std::string ini = dir / "run.ini";
  std::ofstream(ini) << "grid = 24\nhalo = exact\nseed = 5\n";
  const std::string out = dir / "runs.jsonl";
  const auto r = run_command(mpirun(1) + bin("mcb-poisson") + " --config " + quote(ini) +
                             " --seed 6 --quiet --output " + quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["config"]["grid"], 24);
  EXPECT_EQ(records[0]["config"]["halo"], "exact");
  EXPECT_EQ(records[0]["config"]["seed"], 6);
}

TEST(PoissonProgram, ClusterMapFileOverridesTheStrips) {
  TempDir dir;
  const std::string map = dir / "map.txt";
  std::ofstream(map) << "# rank -> cluster\nsiteA siteB\nsiteA siteB\n";
  const std::string out = dir / "runs.jsonl";
  const auto r = run_command(mpirun(4) + bin("mcb-poisson") +
                             " --procs 2x2 --grid 20 --quiet"
                             " --cluster-map " +
                             quote(map) + " --output " + quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["config"]["cluster_map"], json({0, 1, 0, 1}));
  EXPECT_EQ(records[0]["config"]["cluster_names"], json({"siteA", "siteB"}));
  // Map 0,1,0,1 puts rows in different clusters: top/bottom cross, left/right do not.
  const auto& ch = records[0]["ranks"][0]["channels"];
  EXPECT_GT(ch["top"]["sent"]["inter"]["messages"].get<int>(), 0);
  EXPECT_EQ(ch["right"]["sent"]["inter"]["messages"].get<int>(), 0);
}

}  // namespace
}  // namespace mcb::testing
