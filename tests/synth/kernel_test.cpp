// mcb-synth's computation: the triad and the dense block check their own results, whatever the
// amount (whole and partial passes over the arrays, products of any count), and the options turn
// flops and bytes into whole products and triad elements.
#include <gtest/gtest.h>

#include "apps/synth/kernels.hpp"
#include "apps/synth/options.hpp"

namespace mcb::synth {
namespace {

TEST(SynthKernels, TriadResultsAreRightOverWholeAndPartialPasses) {
  for (const long elements : {0L, 1L, 100L, 1000L, 2500L}) {
    Triad triad(1000, elements);
    for (long k = 0; k < 5; ++k) EXPECT_EQ(triad.run(k), 0) << elements << " at " << k;
  }
}

TEST(SynthKernels, DenseBlockProductsAreRight) {
  for (const int n : {1, 5, 16}) {
    DenseBlock dense(n, 3);
    for (long k = 0; k < 40; ++k) EXPECT_EQ(dense.run(k), 0) << n << " at " << k;
  }
}

TEST(SynthOptions, FlopsAndBytesBecomeWholeProductsAndElements) {
  const char* argv[] = {"mcb-synth", "--flops", "1e6",      "--block", "10",
                        "--bytes",   "2400",    "--output", "none"};
  SynthConfig config;
  ASSERT_TRUE(parse_options(9, argv, 4, true, config));
  EXPECT_EQ(config.products, 500);  // 2 * 10^3 flops each
  EXPECT_EQ(config.triad_elements, 100);
  EXPECT_EQ(config.message_bytes, 65536u);
  EXPECT_EQ(config.grid.to_string(), "2x2");
}

TEST(SynthOptions, ClustersSplitTheRanksInConsecutiveBlocks) {
  EXPECT_EQ(default_cluster_map(4, 3).as_vector(), (std::vector<int>{0, 0, 1, 2}));
  EXPECT_EQ(default_cluster_map(4, 4).as_vector(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(default_cluster_map(6, 2).as_vector(), (std::vector<int>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(squarest_grid(6).to_string(), "3x2");
  EXPECT_EQ(squarest_grid(7).to_string(), "7x1");
}

}  // namespace
}  // namespace mcb::synth
