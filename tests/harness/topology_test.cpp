// The process grid and cluster maps a user relies on: the paper's column-major numbering and
// vertical-strip split (Figure 1), and the maps for 8x4 and 8x8 on 2 and 4 clusters.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "common/errors.hpp"
#include "harness/cluster_map.hpp"
#include "harness/grid.hpp"
#include "tests/support/command.hpp"

namespace mcb::harness {
namespace {

// Ranks with a neighbour in another cluster.
std::set<int> border_ranks(const ProcessGrid& grid, const ClusterMap& map) {
  std::set<int> out;
  for (int r = 0; r < grid.size(); ++r) {
    for (int d = 0; d < kDirections; ++d) {
      const int n = grid.neighbour(r, static_cast<Direction>(d));
      if (n >= 0 && !map.same_cluster(r, n)) out.insert(r);
    }
  }
  return out;
}

std::set<int> range(int first, int last) {
  std::set<int> s;
  for (int r = first; r <= last; ++r) s.insert(r);
  return s;
}

TEST(ProcessGrid, NumbersRanksInColumnMajorOrderFromTheBottomLeft) {
  const ProcessGrid g(4, 4);
  // Figure 1: rank 0 bottom-left, 3 top-left, 12 bottom-right, 15 top-right.
  EXPECT_EQ(g.rank_at(0, 0), 0);
  EXPECT_EQ(g.rank_at(0, 3), 3);
  EXPECT_EQ(g.rank_at(1, 0), 4);
  EXPECT_EQ(g.rank_at(3, 0), 12);
  EXPECT_EQ(g.rank_at(3, 3), 15);
  EXPECT_EQ(g.column(9), 2);
  EXPECT_EQ(g.row(9), 1);
  EXPECT_EQ(g.neighbour(5, Direction::top), 6);
  EXPECT_EQ(g.neighbour(5, Direction::bottom), 4);
  EXPECT_EQ(g.neighbour(5, Direction::left), 1);
  EXPECT_EQ(g.neighbour(5, Direction::right), 9);
  EXPECT_EQ(g.neighbour(3, Direction::top), -1);
  EXPECT_EQ(g.neighbour(0, Direction::left), -1);
  EXPECT_EQ(g.neighbour(12, Direction::right), -1);
  EXPECT_EQ(g.neighbour(12, Direction::bottom), -1);
}

TEST(ProcessGrid, ParsesHxVAndRejectsTheRest) {
  EXPECT_EQ(ProcessGrid::parse("8x4").h(), 8);
  EXPECT_EQ(ProcessGrid::parse("8x4").v(), 4);
  for (const char* bad : {"8", "x4", "8x", "8x4x2", "0x4", "-2x4", "axb", "8 x4"}) {
    EXPECT_THROW(ProcessGrid::parse(bad), std::invalid_argument) << bad;
  }
}

TEST(ClusterMap, Figure1FourByFourOnTwoClusters) {
  const ProcessGrid g(4, 4);
  const ClusterMap map = ClusterMap::strips(g, 2);
  for (int r = 0; r < 16; ++r) EXPECT_EQ(map.cluster_of(r), r < 8 ? 0 : 1) << r;
  EXPECT_EQ(border_ranks(g, map), range(4, 11));
}

TEST(ClusterMap, EightByFourOnTwoAndFourClusters) {
  const ProcessGrid g(8, 4);
  const ClusterMap two = ClusterMap::strips(g, 2);
  for (int r = 0; r < 32; ++r) EXPECT_EQ(two.cluster_of(r), r / 16) << r;
  EXPECT_EQ(border_ranks(g, two), range(12, 19));
  const ClusterMap four = ClusterMap::strips(g, 4);
  for (int r = 0; r < 32; ++r) EXPECT_EQ(four.cluster_of(r), r / 8) << r;
  std::set<int> expected = range(4, 27);
  EXPECT_EQ(border_ranks(g, four), expected);
}

TEST(ClusterMap, EightByEightOnTwoAndFourClusters) {
  const ProcessGrid g(8, 8);
  const ClusterMap two = ClusterMap::strips(g, 2);
  for (int r = 0; r < 64; ++r) EXPECT_EQ(two.cluster_of(r), r / 32) << r;
  EXPECT_EQ(border_ranks(g, two), range(24, 39));
  const ClusterMap four = ClusterMap::strips(g, 4);
  for (int r = 0; r < 64; ++r) EXPECT_EQ(four.cluster_of(r), r / 16) << r;
  EXPECT_EQ(border_ranks(g, four), range(8, 55));
  EXPECT_EQ(four.clusters(), 4);
}

TEST(ClusterMap, StripsNeedAClusterCountThatDividesTheColumns) {
  EXPECT_THROW(ClusterMap::strips(ProcessGrid(4, 4), 3), std::invalid_argument);
  EXPECT_THROW(ClusterMap::strips(ProcessGrid(2, 8), 4), std::invalid_argument);
  EXPECT_THROW(ClusterMap::strips(ProcessGrid(4, 4), 0), std::invalid_argument);
}

TEST(ClusterMap, BlocksAndLabels) {
  const ClusterMap blocks = ClusterMap::blocks(6, 3);
  EXPECT_EQ(blocks.as_vector(), (std::vector<int>{0, 0, 1, 1, 2, 2}));
  EXPECT_THROW(ClusterMap::blocks(6, 4), std::invalid_argument);
  const ClusterMap labels = ClusterMap::from_labels({"delft", "leiden", "delft", "vu"});
  EXPECT_EQ(labels.as_vector(), (std::vector<int>{0, 1, 0, 2}));
  EXPECT_EQ(labels.names(), (std::vector<std::string>{"delft", "leiden", "vu"}));
}

TEST(ClusterMap, FileGivesOneLabelPerRankAndNamesItselfWhenWrong) {
  mcb::testing::TempDir dir;
  const std::string good = dir / "good.map";
  std::ofstream(good) << "# two sites\nA, A\nB B  # comment\n";
  EXPECT_EQ(ClusterMap::from_file(good, 4).as_vector(), (std::vector<int>{0, 0, 1, 1}));
  try {
    ClusterMap::from_file(good, 3);
    FAIL() << "a map with 4 entries for 3 ranks was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(good), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("4 entries for 3 ranks"), std::string::npos);
  }
  EXPECT_THROW(ClusterMap::from_file(dir / "missing.map", 2), UsageError);
}

}  // namespace
}  // namespace mcb::harness
