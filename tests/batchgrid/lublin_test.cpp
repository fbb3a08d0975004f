// The Lublin-Feitelson generator against the model's formulas: gamma moments, the truncated
// mean of exp(gamma) that tunes the classes, size fractions, runtime means and the arrival rate
// with its daily cycle.
#include "batchgrid/lublin.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <vector>

namespace mcb::batchgrid {
namespace {

struct Moments {
  double mean = 0, se = 0;
};

Moments moments(const std::vector<double>& x) {
  double s = 0, s2 = 0;
  for (double v : x) s += v;
  const double mean = s / x.size();
  for (double v : x) s2 += (v - mean) * (v - mean);
  return {mean, std::sqrt(s2 / (x.size() - 1) / x.size())};
}

TEST(LublinGamma, DrawsHaveTheShapeTimesScaleMeanAndVariance) {
  mcb::Rng rng(7);
  for (const auto& [shape, scale] : std::vector<std::pair<double, double>>{
           {0.5, 2.0}, {4.2, 0.94}, {10.46, 0.4871}, {312, 0.03}}) {
    std::vector<double> x(200000);
    for (double& v : x) v = gamma_draw(rng, shape, scale);
    const Moments m = moments(x);
    EXPECT_NEAR(m.mean, shape * scale, 5 * m.se) << shape;
    double var = 0;
    for (double v : x) var += (v - m.mean) * (v - m.mean);
    var /= x.size() - 1;
    EXPECT_NEAR(var / (shape * scale * scale), 1.0, 0.03) << shape;
  }
}

TEST(LublinGamma, TruncatedMeanOfExpMatchesSampling) {
  // E[e^X | X <= c]: the formula the classes are tuned with, against draws.
  mcb::Rng rng(11);
  const double shape = 4.2, scale = 0.7, cap = std::log(172800.0);
  std::vector<double> x;
  while (x.size() < 400000) {
    const double g = gamma_draw(rng, shape, scale);
    if (g <= cap) x.push_back(std::exp(g));
  }
  const Moments m = moments(x);
  EXPECT_NEAR(m.mean, mean_exp_gamma(shape, scale, cap), 5 * m.se);
  EXPECT_NEAR(mean_exp_gamma(shape, scale_for_mean(shape, cap, 210), cap), 210, 1e-6);
}

std::vector<LublinJob> jobs_of(const LublinSpec& spec, int n) {
  LublinGenerator gen(spec);
  std::vector<LublinJob> jobs(static_cast<size_t>(n));
  for (auto& j : jobs) j = gen.next();
  return jobs;
}

TEST(LublinSizes, SerialShareAndTwoStageUniformSplitAreTheModels) {
  LublinSpec spec;
  spec.max_size = 128;
  const auto jobs = jobs_of(spec, 200000);
  double serial = 0, parallel = 0, low = 0;
  for (const auto& j : jobs) {
    ASSERT_GE(j.size, 1);
    ASSERT_LE(j.size, 128);
    if (j.size == 1) {
      ++serial;
    } else {
      ++parallel;
      // log2 size below UMED = 4.5 (sizes up to 22): the first uniform, probability UPROB.
      low += j.size <= 22;
    }
  }
  const double n = jobs.size();
  const double p = serial / n;
  EXPECT_NEAR(p, 0.244, 5 * std::sqrt(0.244 * 0.756 / n));
  // Non-power-of-two sizes round 2^4.49..2^4.5 to 22 too: under 1e-3 of the share.
  EXPECT_NEAR(low / parallel, 0.86, 0.01);
}

TEST(LublinSizes, NarrowJobsAreBelowTenAndWideJobsAboveTen) {
  LublinSpec spec;
  spec.max_size = 64;
  spec.mix = {0, 0, 0, 1, 1};
  for (const auto& j : jobs_of(spec, 50000)) {
    if (j.cls == JobClass::narrow) EXPECT_LT(j.size, 10);
    if (j.cls == JobClass::wide) {
      EXPECT_GT(j.size, 10);
      EXPECT_LE(j.size, 64);
    }
  }
}

TEST(LublinRuntimes, ShortAndLongMeansAreSeed003s) {
  LublinSpec spec;
  spec.mix = {0, 1, 1, 0, 0};
  std::vector<double> shorts, longs;
  for (const auto& j : jobs_of(spec, 300000)) {
    (j.cls == JobClass::short_runtime ? shorts : longs).push_back(j.runtime);
    EXPECT_LE(j.runtime, spec.max_runtime);
  }
  const Moments s = moments(shorts), l = moments(longs);
  EXPECT_NEAR(s.mean, 210, 5 * s.se);
  EXPECT_NEAR(l.mean, 6 * 3600, 5 * l.se);
}

TEST(LublinRuntimes, HyperGammaMeanFollowsTheSizeCorrelation) {
  // p = pa * size + pb: serial jobs draw the short gamma more often than 64-processor jobs.
  LublinSpec spec;
  LublinGenerator gen(spec);
  const RuntimeModel m = gen.model().runtime[0];
  for (int size : {1, 64}) {
    const double p = std::clamp(m.pa * size + m.pb, 0.0, 1.0);
    std::vector<double> logs;
    for (int i = 0; i < 200000; ++i) logs.push_back(std::log(gen.draw_runtime(m, p)));
    const Moments lm = moments(logs);
    // The cap removes under 1e-3 of the mass, so the mean log is the mixture's.
    EXPECT_NEAR(lm.mean, p * m.a1 * m.b1 + (1 - p) * m.a2 * m.b2, 5 * lm.se) << size;
  }
  EXPECT_GT(mean_runtime(m, m.pa * 64 + m.pb), mean_runtime(m, m.pa * 1 + m.pb));
}

TEST(LublinArrivals, MeanInterarrivalIs3000sAndFollowsTheDailyCycle) {
  LublinSpec spec;
  const int n = 200000;
  const auto jobs = jobs_of(spec, n);
  const double mean = jobs.back().submit / (n - 1);
  // The daily cycle only shifts arrivals within a day: the mean is the tuned one.
  EXPECT_NEAR(mean, 3000, 3000 * 0.03);
  const LublinModel model = make_model(spec);
  std::vector<double> count(48);
  for (const auto& j : jobs) count[static_cast<size_t>(std::fmod(j.submit, 86400) / 1800)] += 1;
  // Arrivals per half hour are in proportion to the bucket weights.
  size_t busiest = 0, quietest = 0;
  for (size_t b = 0; b < 48; ++b) {
    if (model.bucket_weight[b] > model.bucket_weight[busiest]) busiest = b;
    if (model.bucket_weight[b] < model.bucket_weight[quietest]) quietest = b;
  }
  for (size_t b : {busiest, quietest}) {
    const double expected = n * model.bucket_weight[b] / 48;
    EXPECT_NEAR(count[b], expected, 0.1 * expected + 5 * std::sqrt(expected)) << b;
  }
  EXPECT_GT(model.bucket_weight[busiest], 2 * model.bucket_weight[quietest]);
}

TEST(LublinGenerator, TheSeedFixesTheJobs) {
  LublinSpec a;
  a.seed = 5;
  LublinSpec b = a;
  b.seed = 6;
  const auto x = jobs_of(a, 100), y = jobs_of(a, 100), z = jobs_of(b, 100);
  bool differ = false;
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].submit, y[i].submit);
    EXPECT_EQ(x[i].size, y[i].size);
    EXPECT_EQ(x[i].runtime, y[i].runtime);
    differ = differ || x[i].runtime != z[i].runtime;
  }
  EXPECT_TRUE(differ);
}

}  // namespace
}  // namespace mcb::batchgrid
