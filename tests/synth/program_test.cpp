// mcb-synth as a user meets it: real runs through mpirun at 1, 2 and 4 ranks, every pattern's
// checksum against its prediction, a run over three clusters joined by emulated wide-area links,
// the record it appends, and the answer to bad input (exit code 2, one line, no record).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

namespace mcb::testing {
namespace {

using nlohmann::json;

json run_one(int ranks, const std::string& args) {
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  const auto r = run_command(mpirun(ranks) + bin("mcb-synth") + " " + args + " --counters '' " +
                             "--output " + quote(out));
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out << r.err;
  const auto records = read_records(out);
  EXPECT_EQ(records.size(), 1u);
  return records.empty() ? json() : records[0];
}

TEST(SynthProgram, EveryPatternsChecksumIsThePredictedOneAtOneTwoAndFourRanks) {
  for (const char* pattern : {"nearest", "ring", "all-to-all", "master-worker", "allreduce"}) {
    for (const int ranks : {1, 2, 4}) {
      const json rec = run_one(ranks, std::string("--pattern ") + pattern +
                                          " --iterations 4 --message-size 2KiB --flops 1e5 "
                                          "--bytes 1e5 --quiet");
      ASSERT_TRUE(rec.is_object()) << pattern << " " << ranks;
      EXPECT_EQ(rec["status"], "valid") << pattern << " " << ranks;
      EXPECT_EQ(rec["verdict"]["checksum"], rec["verdict"]["expected_checksum"]) << pattern;
      EXPECT_EQ(rec["verdict"]["messages"], rec["verdict"]["expected_messages"]) << pattern;
      EXPECT_EQ(rec["verdict"]["bad_words"], 0);
      EXPECT_EQ(rec["config"]["pattern"], pattern);
      EXPECT_EQ(rec["config"]["total_size"], ranks);
    }
  }
}

TEST(SynthProgram, ThreeClustersOverEmulatedLinksRecordTheirConfigurationAndTraffic) {
  const json rec = run_one(4,
                           "--pattern ring --iterations 5 --message-size 4KiB --flops 2e5 "
                           "--bytes 4.8e5 --clusters 3 --wan-latency 1ms --wan-bandwidth "
                           "100Mbit/s --seed 7 --run-id s-1 --campaign c");
  ASSERT_TRUE(rec.is_object());
  EXPECT_EQ(rec["app"], "synth");
  EXPECT_EQ(rec["run_id"], "s-1");
  EXPECT_EQ(rec["status"], "valid");
  EXPECT_EQ(rec["verdict"]["figure_of_merit"]["unit"], "it/s");
  const json& c = rec["config"];
  EXPECT_EQ(c["clusters"], 3);
  EXPECT_EQ(c["cluster_map"], json({0, 0, 1, 2}));
  EXPECT_EQ(c["message_size"], 4096);
  EXPECT_EQ(c["products"], 1);            // 2e5 flops in products of 2 * 48^3
  EXPECT_EQ(c["triad_elements"], 20000);  // 24 bytes each
  EXPECT_EQ(c["seed"], 7);
  EXPECT_FALSE(c["wan"].is_null());
  EXPECT_EQ(rec["result"]["iterations"], 5);
  for (const char* key : {"compute_time", "comm_time", "check_time"}) {
    EXPECT_TRUE(rec["result"][key].contains("avg")) << key;
  }
  EXPECT_TRUE(rec["env"].contains("load_average"));
  // Ring 0 -> 1 -> 2 -> 3 -> 0 over clusters {0,0,1,2}: ranks 1, 2 and 3 send across, rank 0 not.
  for (int rank = 0; rank < 4; ++rank) {
    const json& sent = rec["ranks"][static_cast<std::size_t>(rank)]["channels"]["ring"]["sent"];
    EXPECT_EQ(sent["inter"]["messages"], rank == 0 ? 0 : 5) << rank;
  }
}

TEST(SynthProgram, CheckAnswersWithTheRunsShape) {
  const auto r = run_command(bin("mcb-synth") + " --check --ranks 4 --clusters 4 --pattern ring");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json answer = json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_EQ(answer["ranks"], 4);
  EXPECT_EQ(answer["clusters"], 4);
}

class SynthBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(SynthBadInput, ExitsWithCodeTwoAndOneLineAndNoRecord) {
  expect_usage_error("mcb-synth", GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SynthBadInput,
    ::testing::Values(BadInput{"1|--pattern star", "--pattern: 'star'"},
                      BadInput{"1|--message-size 12", "--message-size: '12'"},
                      BadInput{"1|--message-size 1GiB", "--message-size: '1GiB'"},
                      BadInput{"1|--message-size lots", "--message-size: 'lots'"},
                      BadInput{"1|--iterations 0", "--iterations: '0'"},
                      BadInput{"1|--flops -1", "--flops: '-1'"},
                      BadInput{"1|--bytes nan", "--bytes"}, BadInput{"1|--block 0", "--block: '0'"},
                      BadInput{"1|--flops 1e14 --block 1", "--flops: '1e+14' needs"},
                      BadInput{"2|--clusters 3", "--clusters: '3' is more than the 2 processes"},
                      BadInput{"2|--frobnicate 3", "--frobnicate"}));

TEST(SynthProgram, HelpListsItsOptions) {
  const auto r = run_command(bin("mcb-synth") + " --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--pattern", "--message-size", "--flops", "--bytes", "--clusters",
                             "--wan-latency", "--output", "--seed"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
}

}  // namespace
}  // namespace mcb::testing
