// The formulas of seed 002 (eqs. 1-7) against hand computations, and the platform file.
#include "matching/model.hpp"
#include "common/errors.hpp"
#include "matching/platform_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace mcb::matching {
namespace {

TEST(Model, EffectivePowerAndProcessingSlowdownByHand) {
  const Node n{0.8, 0.5};
  EXPECT_DOUBLE_EQ(effective_power(n), 0.4);           // eq. 2: 0.8 x 0.5
  EXPECT_DOUBLE_EQ(node_processing_slowdown(n), 2.5);  // 1 / 0.4
}

TEST(Model, LinkDemandSaturationAndSlowdownByHand) {
  // Eq. 4: 4 of 12 nodes on the cluster, PNBW 0.5: 4 x 0.5 x 8/11 = 16/11.
  EXPECT_DOUBLE_EQ(link_demand(4, 12, 0.5), 16.0 / 11.0);
  EXPECT_DOUBLE_EQ(link_demand(12, 12, 0.5), 0.0);  // the job stays inside the cluster
  EXPECT_DOUBLE_EQ(link_demand(1, 1, 0.5), 0.0);    // one task talks to nobody
  // Eq. 5: BW^max 2 over consumed 1 plus 16/11 = 2 / (27/11) = 22/27 < 1: saturated.
  EXPECT_DOUBLE_EQ(saturation_degree(2.0, 1.0, 16.0 / 11.0), 22.0 / 27.0);
  EXPECT_DOUBLE_EQ(link_slowdown(2.0, 1.0, 16.0 / 11.0), 27.0 / 22.0);  // eq. 6
}

TEST(Model, PredictionTakesTheSlowestNodeAndTheMostSaturatedUsedLink) {
  Platform p;
  p.clusters.push_back({"a", {Node{1, 1}, Node{0.8, 0.5}}, 2.0, 1.0});
  p.clusters.push_back({"b", {Node{1, 1}, Node{1, 1}}, 4.0, 0.0});
  p.clusters.push_back({"c", {Node{1, 0.1}}, 0.001, 5.0});  // unused: must not count
  const Job job{4, 1.0, 10.0, 6.0};
  const Assignment a{{{0, 1}, {0, 1}, {}}};
  const Prediction r = predict(p, job, a);
  EXPECT_DOUBLE_EQ(r.processing_slowdown, 2.5);  // eq. 3: node a1, Gamma 0.4
  // Eq. 4 on both links: 2 x 1 x 2/3 = 4/3. Link a: (1 + 4/3)/2 = 7/6; link b: (4/3)/4 = 1/3.
  EXPECT_DOUBLE_EQ(r.communication_slowdown, 7.0 / 6.0);  // eq. 7: the largest
  EXPECT_TRUE(r.saturated);
  EXPECT_DOUBLE_EQ(r.time, 10.0 * 2.5 + 6.0 * 7.0 / 6.0);  // eq. 1: 32
}

TEST(Model, AnUnsaturatedLinkDoesNotSpeedCommunicationUp) {
  Platform p;
  p.clusters.push_back({"a", {Node{}, Node{}}, 100.0, 0.0});
  p.clusters.push_back({"b", {Node{}, Node{}}, 100.0, 0.0});
  const Prediction r = predict(p, Job{2, 1.0, 1.0, 1.0}, Assignment{{{0}, {0}}});
  EXPECT_DOUBLE_EQ(r.communication_slowdown, 1.0);  // eq. 6 alone would give 1/200
  EXPECT_FALSE(r.saturated);
}

TEST(Model, NodesWithoutPowerOrLinkBandwidthAreNotEligible) {
  const Job job{1, 0.5, 1, 0};
  EXPECT_TRUE(node_eligible(Node{1, 1, 1.0, 0.5}, job));
  EXPECT_FALSE(node_eligible(Node{1, 1, 1.0, 0.6}, job));  // 0.4 free < PNBW 0.5
  EXPECT_FALSE(node_eligible(Node{1, 0.0}, job));          // CPU fully occupied
}

std::string write(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& text) {
  const std::string path = write("bad-platform.ini", text);
  try {
    read_platform(path, "--platform: ");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(PlatformFile, ReadsClustersNodesAndLinks) {
  const std::string path = write("platform.ini",
                                 "# two clusters\n[cluster.fs0]\nnodes = 3\npower = 1 0.5 1\n"
                                 "availability = 0.85\nlink_max = 10\nlink_consumed = 2.5\n"
                                 "node_link_max = 1\n[cluster.fs1]\nnodes = 1\n");
  const Platform p = read_platform(path, "--platform: ");
  ASSERT_EQ(p.clusters.size(), 2u);
  EXPECT_EQ(p.clusters[0].name, "fs0");
  ASSERT_EQ(p.clusters[0].nodes.size(), 3u);
  EXPECT_DOUBLE_EQ(p.clusters[0].nodes[1].power, 0.5);
  EXPECT_DOUBLE_EQ(p.clusters[0].nodes[2].availability, 0.85);
  EXPECT_DOUBLE_EQ(p.clusters[0].nodes[0].link_max, 1.0);
  EXPECT_DOUBLE_EQ(p.clusters[0].link_max, 10.0);
  EXPECT_DOUBLE_EQ(p.clusters[0].link_consumed, 2.5);
  EXPECT_EQ(p.clusters[1].link_max, kUnlimited);
  EXPECT_EQ(p.node_count(), 4);
}

TEST(PlatformFile, BadValuesAreNamedWithFileAndLine) {
  EXPECT_NE(error_of("[cluster.a]\nnodes = 2\npower = 1 1 1\n").find(":3: power: 3 values for 2"),
            std::string::npos);
  EXPECT_NE(error_of("[cluster.a]\nnodes = 2\navailability = 1.5\n")
                .find(":3: availability: '1.5' must be in [0"),
            std::string::npos);
  EXPECT_NE(error_of("[cluster.a]\nnodes = 2\npower = 0\n").find(":3: power: '0' must be in (0"),
            std::string::npos);
  EXPECT_NE(error_of("[cluster.a]\nnodes = x\n").find(":2: nodes: 'x' is not a number"),
            std::string::npos);
  EXPECT_NE(error_of("[cluster.a]\nnodes = 2\nspeed = 1\n").find(":3: 'speed' is not a cluster"),
            std::string::npos);
  EXPECT_NE(error_of("[cluster.a]\nlink_max = 1\n").find(":1: [cluster.a] has no 'nodes'"),
            std::string::npos);
  EXPECT_NE(error_of("[links]\n").find(":1: [links] is not [cluster.NAME]"), std::string::npos);
  EXPECT_NE(error_of("# nothing\n").find(": no [cluster.NAME] section"), std::string::npos);
  EXPECT_NE(error_of("[cluster.a]\nnodes = 1\nlink_max = 1\nlink_max = 2\n")
                .find(":4: link_max: given twice"),
            std::string::npos);
}

// A link that already carries more than its maximum would leave a negative free bandwidth.
TEST(PlatformFile, ALinkCarryingMoreThanItsMaximumIsRefused) {
  EXPECT_NE(error_of("[cluster.a]\nnodes = 2\nlink_max = 10\nlink_consumed = 12\n")
                .find(":4: link_consumed: '12' is above the cluster's link_max 10"),
            std::string::npos);
  EXPECT_NE(error_of("[cluster.a]\nnodes = 2\nnode_link_consumed = 1 3\nnode_link_max = 2\n")
                .find(":3: node_link_consumed: node 1's 3 is above its node_link_max 2"),
            std::string::npos);
  EXPECT_EQ(error_of("[cluster.a]\nnodes = 2\nlink_max = 10\nlink_consumed = 10\n"
                     "node_link_max = 2\nnode_link_consumed = 2 0\n"),
            "(accepted)");
  EXPECT_EQ(error_of("[cluster.a]\nnodes = 1\nlink_consumed = 1e6\n"), "(accepted)")
      << "no maximum: unlimited";
}

}  // namespace
}  // namespace mcb::matching
