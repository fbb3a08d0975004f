// mcb-poisson with the wide area, as a user runs it: what the records hold, every crossing
// waiting for the emulated link, the relay giving the same results as direct messages, and bad
// input ending with exit code 2 and one line that names the option or file line. (mcb-links, the
// link calibration, is tested with calibration: tests/calibration/links_test.cpp.)
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

namespace mcb::testing {
namespace {

using nlohmann::json;

json run_one(int ranks, const std::string& program, const std::string& args, const TempDir& dir,
             int expected_exit = 0) {
  const std::string out = dir / "runs.jsonl";
  std::remove(out.c_str());
  const auto r = run_command(mpirun(ranks) + bin(program) + " " + args +
                             " --counters '' --output " + quote(out));
  if (expected_exit >= 0) {
    EXPECT_EQ(r.exit_code, expected_exit) << args << "\n" << r.out << r.err;
  }
  const auto records = read_records(out);
  EXPECT_EQ(records.size(), 1u) << args;
  return records.empty() ? json() : records[0];
}

TEST(WanPoisson, RecordsTheEmulatedLinksAndEveryCrossingWaitsForThem) {
  TempDir dir;
  const double latency = 2e-3;
  const json rec =
      run_one(4, "mcb-poisson",
              "--grid 24 --procs 2x2 --clusters 2 --halo exact --tolerance 1e-3 --sync "
              "--wan-latency 2ms --wan-bandwidth 100Mbit/s",
              dir);
  ASSERT_FALSE(rec.is_null());
  EXPECT_EQ(rec["status"], "valid");
  const json& config = rec["config"];
  EXPECT_EQ(config["system"], "emulated-100Mbit-2ms");
  EXPECT_TRUE(config["relay"].is_null());
  EXPECT_DOUBLE_EQ(config["wan"]["latency"].get<double>(), latency);
  EXPECT_DOUBLE_EQ(config["wan"]["bandwidth"].get<double>(), 12.5);  // MB/s
  ASSERT_EQ(config["wan"]["links"].size(), 1u);
  EXPECT_EQ(config["wan"]["links"][0]["clusters"], json({"0", "1"}));
  // Only the left and right steps cross. Within one synchronized exchange, rank 0 sends right
  // only after receiving rank 2's message of step left, so rank 2 holds its halo no earlier than
  // two latencies after the barrier: the paper's communication time of every exchange is at
  // least 2 L, whatever the host's scheduling does.
  double exchanges = 0;
  for (const json& rank : rec["ranks"]) {
    for (const auto& [name, channel] : rank["channels"].items()) {
      const auto messages = channel["received"]["inter"]["messages"].get<double>();
      if (name == "top" || name == "bottom") {
        EXPECT_EQ(messages, 0) << name;
      }
      if (name == "right" && rank["rank"] == 2) exchanges = messages;
    }
  }
  EXPECT_EQ(exchanges,
            2 * rec["result"]["iterations"].get<double>());  // exact mode: 2 per iteration
  EXPECT_GE(rec["result"]["comm_time_paper"].get<double>(), exchanges * 2 * latency * 0.999);
  EXPECT_GE(rec["result"]["wall_time"].get<double>(), exchanges * 2 * latency * 0.999);
  // Without emulation nothing is recorded for it and the system is the local one.
  const json plain = run_one(4, "mcb-poisson",
                             "--grid 24 --procs 2x2 --clusters 2 --halo exact "
                             "--tolerance 1e-3",
                             dir);
  EXPECT_TRUE(plain["config"]["wan"].is_null());
  EXPECT_EQ(plain["config"]["system"], "local");
  // --system names the system whatever the links.
  const json named = run_one(2, "mcb-poisson",
                             "--grid 16 --procs 2x1 --clusters 2 --system das2 "
                             "--wan-latency 100us --wan-bandwidth 1Gbit/s",
                             dir);
  EXPECT_EQ(named["config"]["system"], "das2");
  EXPECT_FALSE(named["config"]["wan"].is_null());
}

TEST(WanPoisson, RelayedRunsReachTheSameSolutionAsDirectOnes) {
  TempDir dir;
  for (const std::string problem :
       {"--grid 24 --halo exact --tolerance 1e-4", "--grid 12 --halo paper --tolerance 1e-3"}) {
    const std::string base = "--procs 2x2 --clusters 2 " + problem;
    const json direct = run_one(4, "mcb-poisson", base, dir);
    const json relayed = run_one(4, "mcb-poisson", base + " --relay", dir);
    const std::string wan = " --wan-latency 200us --wan-bandwidth 1Gbit/s";
    const json direct_wan = run_one(4, "mcb-poisson", base + wan, dir);
    const json relayed_wan = run_one(4, "mcb-poisson", base + wan + " --relay", dir);
    for (const json* rec : {&relayed, &direct_wan, &relayed_wan}) {
      ASSERT_EQ((*rec)["status"], "valid") << problem;
      EXPECT_EQ((*rec)["result"]["iterations"], direct["result"]["iterations"]) << problem;
      EXPECT_EQ((*rec)["result"]["global_error"], direct["result"]["global_error"]) << problem;
      EXPECT_EQ((*rec)["verdict"]["residual"], direct["verdict"]["residual"]) << problem;
      EXPECT_EQ((*rec)["verdict"]["error"], direct["verdict"]["error"]) << problem;
    }
    EXPECT_TRUE(direct["config"]["relay"].is_null());
    EXPECT_EQ(relayed["config"]["relay"]["gateways"], json({0, 2}));
    EXPECT_EQ(relayed["config"]["system"], "local-relay");
    EXPECT_EQ(relayed_wan["config"]["system"], "emulated-1Gbit-200us-relay");
    // The books still class messages by their end points, not the gateways they pass.
    for (std::size_t r = 0; r < 4; ++r) {
      for (const char* dir_name : {"left", "right"}) {
        EXPECT_EQ(relayed["ranks"][r]["channels"][dir_name]["received"]["inter"],
                  direct["ranks"][r]["channels"][dir_name]["received"]["inter"]);
      }
    }
  }
}

// One line on stderr naming the option or file line, exit code 2, no record.
void expect_usage_error(int ranks, const std::string& program, const std::string& args,
                        const std::string& expected) {
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  const auto r = run_command(mpirun(ranks) + bin(program) + " " + args + " --output " + quote(out));
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
  const auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 1u) << args << "\n" << r.err;
  EXPECT_EQ(lines[0].rfind(program + ": ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(expected), std::string::npos) << lines[0];
  EXPECT_FALSE(std::ifstream(out).good()) << "a record was written for: " << args;
}

// relay = true in a --config file turns the relay on as --relay does: MPI starts with the
// thread support the gateways need, and the record says so.
TEST(WanPoisson, RelayFromAConfigFile) {
  TempDir dir;
  std::ofstream(dir / "run.ini") << "# the relay from a file\nrelay = true   # as --relay\n"
                                    "system = \"two clusters\"\n";
  const std::string base = "--grid 12 --procs 2x2 --clusters 2 --halo paper --tolerance 1e-3 ";
  const json rec = run_one(4, "mcb-poisson", base + "--config " + quote(dir / "run.ini"), dir);
  ASSERT_FALSE(rec.is_null());
  EXPECT_EQ(rec["status"], "valid");
  EXPECT_EQ(rec["config"]["relay"]["gateways"], json({0, 2}));
  EXPECT_EQ(rec["config"]["system"], "two clusters");
  std::ofstream(dir / "off.ini") << "relay = false\n";
  const json off = run_one(4, "mcb-poisson", base + "--config " + quote(dir / "off.ini"), dir);
  EXPECT_TRUE(off["config"]["relay"].is_null());
}

TEST(WanBadInput, OptionsNameTheOptionAndValue) {
  const std::string p = "--grid 16 --procs 2x1 --clusters 2 ";
  expect_usage_error(2, "mcb-poisson", p + "--wan-latency 1ms --wan-bandwidth 0Mbit/s",
                     "--wan-bandwidth: '0Mbit/s' must be positive");
  expect_usage_error(2, "mcb-poisson", p + "--wan-latency 1ms --wan-bandwidth -5Mbit/s",
                     "--wan-bandwidth: '-5Mbit/s' must be positive");
  expect_usage_error(2, "mcb-poisson", p + "--wan-latency 1ms --wan-bandwidth 100",
                     "--wan-bandwidth: '100' needs a unit");
  expect_usage_error(2, "mcb-poisson", p + "--wan-latency -1ms --wan-bandwidth 1Mbit/s",
                     "--wan-latency: '-1ms' must be non-negative");
  expect_usage_error(2, "mcb-poisson", p + "--wan-latency 1ms",
                     "--wan-latency: '1ms' given without --wan-bandwidth");
}

TEST(WanBadInput, PlatformFilesNameTheFileAndLine) {
  TempDir dir;
  const std::string path = dir / "platform.txt";
  const std::string p = "--grid 16 --procs 2x1 --clusters 2 --platform " + quote(path);
  const std::pair<std::string, std::string> cases[] = {
      {"# DAS-2 like\n0 1 1ms 100Mbit/s\n0 5 1ms 100Mbit/s\n", path + ":3: unknown cluster '5'"},
      {"0 1 1ms\n", path + ":1: expected 'CLUSTER CLUSTER LATENCY BANDWIDTH', got 3 field(s)"},
      {"0 1 1ms 0Mbit/s\n", path + ":1: bandwidth '0Mbit/s' must be positive"},
      {"0 1 1ms fast\n", path + ":1: bandwidth 'fast' does not start with a number"},
      {"\n", path + ": no link between clusters '0' and '1'"},
  };
  for (const auto& [text, expected] : cases) {
    std::ofstream(path) << text;
    expect_usage_error(2, "mcb-poisson", p, "--platform: " + expected);
  }
  expect_usage_error(2, "mcb-poisson",
                     "--grid 16 --procs 2x1 --clusters 2 --platform /nonexistent/p",
                     "--platform: cannot read '/nonexistent/p'");
  std::ofstream(path) << "0 1 1ms 100Mbit/s\n";
  // The same file accepted: the run goes ahead and records the file.
  const auto r = run_command(mpirun(2) + bin("mcb-poisson") + " " + p + " --counters '' --output " +
                             quote(dir / "ok.jsonl"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto records = read_records(dir / "ok.jsonl");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["config"]["wan"]["platform"], path);
}

}  // namespace
}  // namespace mcb::testing
