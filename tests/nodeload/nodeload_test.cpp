// Background load on the nodes of a run: the spec as every program reads it, mcb-nodeload as a
// user starts it by hand, and --node-load of mcb-poisson at 1, 2 and 4 ranks (the generator
// runs for the measurement, stops with it, and the record carries what it achieved).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "common/node_load.hpp"
#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

namespace mcb::testing {
namespace {

using nlohmann::json;

// A UDP port of its own for each test, so that tests running side by side do not collide.
int some_port() {
  std::random_device seed;
  return std::uniform_int_distribution<int>(20000, 60000)(seed);
}

TEST(NodeLoadSpec, ReadsEveryKindAndWritesItBack) {
  const NodeLoadSpec s = parse_node_load("cpu=25%,memory=1GB/s,network=10MB/s,port=50000");
  EXPECT_DOUBLE_EQ(s.cpu_share, 0.25);
  EXPECT_DOUBLE_EQ(s.memory_rate, 1e9);
  EXPECT_DOUBLE_EQ(s.network_rate, 1e7);
  EXPECT_EQ(s.port, 50000);
  EXPECT_EQ(format_node_load(s), "cpu=25%,memory=8Gbit/s,network=80Mbit/s,port=50000");
  const NodeLoadSpec back = parse_node_load(format_node_load(s));
  EXPECT_DOUBLE_EQ(back.cpu_share, s.cpu_share);
  EXPECT_DOUBLE_EQ(back.memory_rate, s.memory_rate);
  EXPECT_DOUBLE_EQ(back.network_rate, s.network_rate);
  EXPECT_EQ(back.port, s.port);
  EXPECT_FALSE(parse_node_load("none").any());
  EXPECT_EQ(format_node_load(parse_node_load("none")), "none");
  EXPECT_EQ(format_node_load(parse_node_load("cpu=0%")), "none");
}

// Why parse_node_load refuses @p text ("" when it does not).
std::string refusal(const std::string& text) {
  try {
    parse_node_load(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(NodeLoadSpec, RefusesWhatItCannotGenerate) {
  for (const char* bad : {"", "cpu", "cpu=100%", "cpu=-5%", "cpu=x", "memory=-1GB/s",
                          "network=fast", "port=99999", "cpu=5%,cpu=6%", "disk=1MB/s"}) {
    EXPECT_FALSE(refusal(bad).empty()) << bad;
  }
  EXPECT_NE(refusal("cpu=5%,disk=1").find("'disk'"), std::string::npos);
}

TEST(NodeLoadProgram, RunsEveryLoadAndAccountsForIt) {
  TempDir dir;
  const std::string summary = dir / "summary.json";
  const int port = some_port();
  const auto r = run_program("mcb-nodeload", {"--load",
                                              "cpu=30%,memory=200MB/s,network=5MB/s,port=" +
                                                  std::to_string(port),
                                              "--duration", "1s", "--summary", summary});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NodeLoadAchieved a = read_node_load_summary(json::parse(slurp(summary)));
  EXPECT_EQ(a.cpu_threads, static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_GT(a.cpu_seconds, 0);
  EXPECT_GT(a.memory_bytes, 0);
  EXPECT_GT(a.sent_bytes, 0);
  EXPECT_GT(a.received_bytes, 0);  // its own datagrams, over loopback
  EXPECT_EQ(a.peer, "localhost");
  // The generators pace themselves by their own clock: never ahead of their rate by more than
  // one chunk (2 MiB of copy) or one datagram, however busy the machine.
  EXPECT_LE(a.memory_bytes, 200e6 * a.seconds + 2.0 * (1 << 20));
  EXPECT_LE(a.sent_bytes, 5e6 * a.seconds + 8192);
  // A share is at most the share asked for, plus one busy slice of 10 ms per thread.
  EXPECT_LE(a.cpu_share(), 0.30 + 0.01 / a.seconds + 0.01);
}

TEST(NodeLoadProgram, EndsWithTheProcessThatStartedIt) {
  TempDir dir;
  const std::string summary = dir / "summary.json";
  // The shell becomes `sleep 1` and ends; the generator, started with --stop-with-parent and no
  // duration, ends with it and still writes what it did.
  const auto r = run_command("sh -c " + quote(quote(bin("mcb-nodeload")) +
                                              " --load cpu=10% --stop-with-parent --summary " +
                                              quote(summary) + " & exec sleep 1"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int i = 0; i < 6000 && !std::filesystem::exists(summary); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(std::filesystem::exists(summary)) << "no summary after the parent ended";
  EXPECT_GT(read_node_load_summary(json::parse(slurp(summary))).seconds, 0);
}

TEST(NodeLoadRun, PoissonRunsUnderTheLoadAndRecordsItAtOneTwoAndFourRanks) {
  for (const int ranks : {1, 2, 4}) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    TempDir dir;
    const std::string out = dir / "runs.jsonl";
    const std::string procs = ranks == 4 ? "2x2" : std::to_string(ranks) + "x1";
    const std::string load = "cpu=25%,network=2MB/s,port=" + std::to_string(some_port());
    const std::vector<std::string> args = {"--grid", "32", "--procs", procs, "--iterations",
                                           "100", "--output", out};
    std::vector<std::string> loaded = args;
    loaded.insert(loaded.end(), {"--node-load", load});
    ASSERT_EQ(run_program("mcb-poisson", args, mpirun(ranks)).exit_code, 0);
    const auto r = run_program("mcb-poisson", loaded, mpirun(ranks));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto records = read_records(out);
    ASSERT_EQ(records.size(), 2u);
    const json& plain = records[0];
    const json& rec = records[1];
    EXPECT_EQ(rec["status"], "valid");
    EXPECT_EQ(plain["config"]["node_load"], "none");
    EXPECT_FALSE(plain["env"].contains("node_load"));
    EXPECT_EQ(rec["config"]["node_load"], format_node_load(parse_node_load(load)));
    // The load changes the time, never the numbers.
    EXPECT_EQ(rec["result"]["iterations"], plain["result"]["iterations"]);
    EXPECT_EQ(rec["result"]["global_error"], plain["result"]["global_error"]);
    // One generator on the one host of this machine, which ran and was stopped.
    const json& hosts = rec["env"]["node_load"]["hosts"];
    ASSERT_EQ(hosts.size(), 1u);
    const NodeLoadAchieved a = read_node_load_summary(hosts[0]);
    EXPECT_GT(a.cpu_seconds, 0);
    EXPECT_GT(a.sent_bytes, 0);
    // "[m]" keeps the pattern from matching the shell that runs pgrep.
    EXPECT_EQ(run_command("pgrep -f " + quote("[m]cb-nodeload --load " +
                                              format_node_load(parse_node_load(load))))
                  .exit_code,
              1)
        << "a generator outlived its run";
  }
}

}  // namespace
}  // namespace mcb::testing
