// Statistics in bounded memory: quantiles, batch means, intervals.
#include "simulator/metrics.hpp"
#include "common/rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mcb::sim {
namespace {

TEST(Quantiles, ExactWhileSmall) {
  Quantiles q;
  for (double v : {5.0, 1.0, 4.0, 2.0, 3.0}) q.add(v);
  EXPECT_TRUE(q.exact());
  EXPECT_DOUBLE_EQ(q.quantile(0.5), 3.0);
  EXPECT_DOUBLE_EQ(q.quantile(0.0), 1.0);
  EXPECT_DOUBLE_EQ(q.quantile(1.0), 5.0);
  EXPECT_DOUBLE_EQ(q.quantile(0.95), 4.8) << "linear between order statistics";
}

TEST(Quantiles, AnyOrderOfQuestionsGivesTheSortedAnswers) {
  // quantile() orders only the side of its last selection that it needs: asked in any order,
  // with values added between questions, it answers as a sort would.
  Rng rng(5);
  Quantiles q;
  std::vector<double> all;
  const auto sorted_quantile = [&all](double p) {
    std::vector<double> s = all;
    std::sort(s.begin(), s.end());
    const double pos = p * static_cast<double>(s.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const double high = lo + 1 < s.size() ? s[lo + 1] : s[lo];
    return s[lo] + (pos - static_cast<double>(lo)) * (high - s[lo]);
  };
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 1 + round * 37; ++i) {
      const double v = std::floor(rng.exponential(0.1));  // with ties
      q.add(v);
      all.push_back(v);
    }
    for (double p : {0.5, 0.95, 0.05, 0.95, 0.5, 1.0, 0.0, 0.75, 0.25}) {
      EXPECT_EQ(q.quantile(p), sorted_quantile(p)) << round << " " << p;
    }
  }
}

TEST(Quantiles, WithinATenthOfAPercentPastTheLimit) {
  Quantiles q(1000);
  std::vector<double> all;
  Rng rng(3);
  for (int i = 0; i < 50000; ++i) {
    const double v = rng.exponential(0.01);
    q.add(v);
    all.push_back(v);
  }
  EXPECT_FALSE(q.exact());
  std::sort(all.begin(), all.end());
  for (double p : {0.5, 0.95, 0.99}) {
    const double exact = all[static_cast<size_t>(std::ceil(p * all.size())) - 1];
    EXPECT_NEAR(q.quantile(p) / exact, 1.0, 1.5e-3) << p;
  }
}

TEST(BatchMeans, IntervalCoversTheMeanOfIndependentData) {
  Rng rng(11);
  int covered = 0;
  for (int run = 0; run < 200; ++run) {
    BatchMeans b(20);
    for (int i = 0; i < 4000; ++i) b.add(rng.exponential(1.0));
    const Interval ci = b.interval();
    EXPECT_GE(ci.samples, 20);
    EXPECT_LT(ci.samples, 40);
    covered += std::abs(ci.mean - 1.0) <= ci.half_width;
  }
  EXPECT_GT(covered, 180) << "about 95% of 200 intervals cover the true mean";
  EXPECT_LT(covered, 199);
}

TEST(BatchMeans, TooLittleDataHasNoInterval) {
  BatchMeans b(20);
  b.add(1.0);
  EXPECT_TRUE(std::isnan(b.interval().half_width));
}

TEST(Interval, StudentT) {
  const Interval i = interval_of({1.0, 2.0, 3.0});
  EXPECT_DOUBLE_EQ(i.mean, 2.0);
  EXPECT_NEAR(i.half_width, 4.303 * 1.0 / std::sqrt(3.0), 5e-4);  // t(0.975, 2) = 4.3027
  EXPECT_NEAR(t_quantile_975(1000), 1.962, 5e-4);
}

}  // namespace
}  // namespace mcb::sim
