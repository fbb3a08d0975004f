// The suite's random numbers: fixed by the seed alone (the same values on every platform and
// standard library), and distributed as they claim.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/rng.hpp"

namespace mcb {
namespace {

TEST(Rng, TheSeedAloneFixesTheDraws) {
  // xoshiro256** seeded through SplitMix64: these values are the algorithm's, on any platform.
  // A change here changes every simulation and every ensemble.
  Rng rng(1);
  EXPECT_EQ(rng.next(), 0xb3f2af6d0fc710c5ull);
  EXPECT_EQ(rng.next(), 0x853b559647364ceaull);
  std::uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xe220a8397b1dcdafull);
  EXPECT_EQ(unit_interval(~std::uint64_t{0}), 1.0 - 0x1.0p-53);
  EXPECT_EQ(unit_interval(0), 0.0);
}

TEST(Rng, DerivedStreamsDifferFromEachOtherAndTheirSeed) {
  const std::uint64_t a = derive_seed(5, 0), b = derive_seed(5, 1), c = derive_seed(6, 0);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, 5u);
  EXPECT_EQ(a, derive_seed(5, 0));
}

TEST(Rng, BelowStaysInRangeAndHitsEveryValue) {
  Rng rng(3);
  std::vector<int> seen(7, 0);
  for (int i = 0; i < 7000; ++i) {
    const std::uint64_t x = rng.below(7);
    ASSERT_LT(x, 7u);
    ++seen[x];
  }
  for (int count : seen) EXPECT_NEAR(count, 1000, 150);
}

TEST(Rng, NormalHasMeanZeroAndVarianceOne) {
  Rng rng(11);
  const int n = 200000;
  double sum = 0, squares = 0, beyond2 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal();
    sum += x;
    squares += x * x;
    beyond2 += std::abs(x) > 2;
  }
  // Standard errors: 1/sqrt(n) = 0.0022 for the mean, sqrt(2/n) = 0.0032 for the variance.
  EXPECT_NEAR(sum / n, 0.0, 0.012);
  EXPECT_NEAR(squares / n, 1.0, 0.016);
  EXPECT_NEAR(beyond2 / n, 0.0455, 0.003);
}

TEST(Rng, ExponentialHasItsMean) {
  Rng rng(13);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) sum += rng.exponential(0.5);
  EXPECT_NEAR(sum / 100000, 2.0, 0.03);
}

}  // namespace
}  // namespace mcb
