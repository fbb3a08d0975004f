// Statistics of a table row against values worked out by hand.
#include "common/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace mcb::calib {
namespace {

TEST(Statistics, OddSampleByHand) {
  // 14, 10, 12: mean 12, median 12, deviations -2 0 2, sample variance 8 / 2 = 4.
  const Summary s = summarize({14.0, 10.0, 12.0});
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.min, 10.0);
  EXPECT_DOUBLE_EQ(s.avg, 12.0);
  EXPECT_DOUBLE_EQ(s.max, 14.0);
  EXPECT_DOUBLE_EQ(s.median, 12.0);
  ASSERT_TRUE(s.stddev.has_value());
  EXPECT_DOUBLE_EQ(*s.stddev, 2.0);
}

TEST(Statistics, EvenSampleMedianIsMeanOfMiddlePair) {
  // 6 7 8 11: mean 8, median (7 + 8) / 2, squares 4 + 1 + 0 + 9 = 14, variance 14 / 3.
  const Summary s = summarize({11.0, 6.0, 8.0, 7.0});
  EXPECT_DOUBLE_EQ(s.median, 7.5);
  EXPECT_DOUBLE_EQ(s.avg, 8.0);
  EXPECT_DOUBLE_EQ(*s.stddev, std::sqrt(14.0 / 3.0));
}

TEST(Statistics, OneValueHasNoStddev) {
  const Summary s = summarize({9.0});
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.min, 9.0);
  EXPECT_DOUBLE_EQ(s.median, 9.0);
  EXPECT_FALSE(s.stddev.has_value());
}

TEST(Statistics, EmptySampleIsRefused) { EXPECT_THROW(summarize({}), std::invalid_argument); }

}  // namespace
}  // namespace mcb::calib
