// mcb-synth's patterns at whatever rank count the test runs with (1, 2, 4): every rank receives
// exactly what the options predict (messages and checksum, no wrong word), on one cluster and
// split over two, and the traffic between clusters is the pattern's own.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "apps/synth/options.hpp"
#include "apps/synth/patterns.hpp"
#include "tests/support/mpi_world.hpp"

namespace mcb::synth {
namespace {

using mcb::testing::world_rank;
using mcb::testing::world_size;

SynthConfig parse(std::vector<std::string> args) {
  args.insert(args.begin(), "mcb-synth");
  args.emplace_back("--output");
  args.emplace_back("none");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  SynthConfig config;
  EXPECT_TRUE(parse_options(static_cast<int>(argv.size()), argv.data(), world_size(),
                            world_rank() == 0, config));
  return config;
}

const std::vector<std::string> kPatterns{"nearest", "ring", "all-to-all", "master-worker",
                                         "allreduce"};

// Runs the pattern's iterations on the world split into @p clusters blocks.
Receipts run_pattern(const SynthConfig& config, int clusters,
                     std::vector<harness::ChannelStats>* stats = nullptr) {
  harness::InstrumentedComm comm(MPI_COMM_WORLD, default_cluster_map(world_size(), clusters),
                                 channel_names(config.options.pattern));
  PatternRunner runner(config, comm);
  for (long k = 0; k < config.options.iterations; ++k) runner.run(k);
  if (stats) {
    for (std::size_t c = 0; c < comm.channel_names().size(); ++c)
      stats->push_back(comm.stats(static_cast<int>(c)));
  }
  return runner.receipts();
}

TEST(SynthPatterns, EveryRankReceivesWhatTheOptionsPredict) {
  for (const std::string& pattern : kPatterns) {
    for (const int clusters : {1, world_size() > 1 ? 2 : 1}) {
      const SynthConfig config =
          parse({"--pattern", pattern, "--iterations", "3", "--message-size", "1KiB"});
      const Receipts got = run_pattern(config, clusters);
      const Receipts want = expected_receipts(config, world_rank());
      EXPECT_EQ(got.bad_words, 0u) << pattern;
      EXPECT_EQ(got.messages, want.messages) << pattern;
      EXPECT_EQ(got.checksum, want.checksum) << pattern << " on " << clusters << " clusters";
    }
  }
}

TEST(SynthPatterns, PredictionsDependOnTheSeedAndCountThePatternsMessages) {
  const int p = world_size(), me = world_rank();
  for (const std::string& pattern : kPatterns) {
    const SynthConfig a = parse({"--pattern", pattern, "--iterations", "2", "--seed", "1"});
    const SynthConfig b = parse({"--pattern", pattern, "--iterations", "2", "--seed", "2"});
    const Receipts ea = expected_receipts(a, me), eb = expected_receipts(b, me);
    std::uint64_t per_iteration = 0;
    if (pattern == "ring") per_iteration = p > 1 ? 1 : 0;
    if (pattern == "all-to-all") per_iteration = static_cast<std::uint64_t>(p - 1);
    if (pattern == "master-worker") per_iteration = p == 1 ? 0 : me == 0 ? p - 1 : 1;
    if (pattern == "allreduce") per_iteration = 1;
    if (pattern != "nearest") {
      EXPECT_EQ(ea.messages, 2 * per_iteration) << pattern;
    }
    if (ea.messages > 0) {
      EXPECT_NE(ea.checksum, eb.checksum) << pattern;
    }
  }
}

TEST(SynthPatterns, MessageSumIsTheSumOfTheWords) {
  for (const std::uint64_t words : {1ULL, 2ULL, 7ULL, 1000ULL}) {
    const std::uint64_t base = message_base(5, 1, 2, 3);
    std::uint64_t sum = 0;
    for (std::uint64_t j = 0; j < words; ++j) sum += base + j;
    EXPECT_EQ(message_sum(base, words), sum) << words;
  }
}

// A ring over two clusters of consecutive ranks: exactly the last rank of each cluster sends
// across (to the first rank of the next), every other message stays inside.
TEST(SynthPatterns, RingCrossesBetweenClustersAtTheirEdgesOnly) {
  const int p = world_size(), me = world_rank();
  if (p < 2) GTEST_SKIP() << "needs two ranks";
  const SynthConfig config = parse({"--pattern", "ring", "--iterations", "4"});
  std::vector<harness::ChannelStats> stats;
  run_pattern(config, 2, &stats);
  const harness::ClusterMap map = default_cluster_map(p, 2);
  const bool crosses = !map.same_cluster(me, (me + 1) % p);
  EXPECT_EQ(stats[0].sent[1].messages, crosses ? 4u : 0u);
  EXPECT_EQ(stats[0].sent[0].messages, crosses ? 0u : 4u);
}

}  // namespace
}  // namespace mcb::synth
