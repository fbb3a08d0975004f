// The analysis as ensemble transform: hand-computed Kalman gains on one- and two-variable
// states, agreement with the explicit gain on a random problem, and the stochastic and
// square-root updates of mean and covariance against Kalman's formulas.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "apps/ensflow/enkf.hpp"
#include "apps/ensflow/random.hpp"

namespace mcb::ensflow {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

AnalysisSettings settings(FilterKind kind, double variance, double inflation = 1.0) {
  AnalysisSettings s;
  s.filter = kind;
  s.observation_variance = variance;
  s.inflation = inflation;
  return s;
}

MatrixXd sample_covariance(const MatrixXd& x) {
  const MatrixXd a = x.colwise() - x.rowwise().mean();
  return a * a.transpose() / static_cast<double>(x.cols() - 1);
}

TEST(Enkf, ScalarStateObservedDirectlyGetsTheHandComputedGain) {
  // Members 1..5: sample variance 2.5; R = 1, so K = 2.5 / 3.5 = 5/7.
  MatrixXd x(1, 5);
  x << 1, 2, 3, 4, 5;
  VectorXd y(1);
  y << 4;
  MatrixXd e(1, 5);
  e << 0.5, -0.5, 1, -1, 0;
  const MatrixXd t = ensemble_transform(x, y, e, settings(FilterKind::stochastic, 1.0));
  const MatrixXd xa = x * t;
  const double k = 5.0 / 7.0;
  for (int j = 0; j < 5; ++j) {
    EXPECT_NEAR(xa(0, j), x(0, j) + k * (y[0] + e(0, j) - x(0, j)), 1e-13) << "member " << j;
  }
  EXPECT_NEAR(xa(0, 0), 3.5, 1e-13);
  EXPECT_NEAR(xa(0, 2), 3.0 + 10.0 / 7.0, 1e-13);
}

TEST(Enkf, UnobservedVariableIsCorrectedThroughItsSampleCovariance) {
  // x1 anomalies -2 -1 0 1 2 (P11 = 2.5), x2 anomalies -1 -2 1 0 2 (P21 = 2.0); only x1 is
  // observed, R = 0.5: K = [2.5, 2.0] / 3.0 = [5/6, 2/3].
  MatrixXd x(2, 5);
  x << 1, 2, 3, 4, 5, 2, 1, 4, 3, 5;
  const MatrixXd hx = x.topRows(1);
  VectorXd y(1);
  y << 3.5;
  MatrixXd e(1, 5);
  e << 0.2, -0.1, 0, 0.3, -0.4;
  const MatrixXd xa = x * ensemble_transform(hx, y, e, settings(FilterKind::stochastic, 0.5));
  for (int j = 0; j < 5; ++j) {
    const double innovation = y[0] + e(0, j) - x(0, j);
    EXPECT_NEAR(xa(0, j), x(0, j) + 5.0 / 6.0 * innovation, 1e-13);
    EXPECT_NEAR(xa(1, j), x(1, j) + 2.0 / 3.0 * innovation, 1e-13);
  }
}

TEST(Enkf, SquareRootFormGivesTheKalmanMeanAndCovarianceExactly) {
  MatrixXd x(2, 5);
  x << 1, 2, 3, 4, 5, 2, 1, 4, 3, 5;
  VectorXd y(1);
  y << 3.5;
  const MatrixXd xa =
      x * ensemble_transform(x.topRows(1), y, MatrixXd(), settings(FilterKind::square_root, 0.5));
  // Mean: 3 + K * 0.5 with K = [5/6, 2/3].
  const VectorXd mean = xa.rowwise().mean();
  EXPECT_NEAR(mean[0], 3.0 + 5.0 / 12.0, 1e-13);
  EXPECT_NEAR(mean[1], 3.0 + 1.0 / 3.0, 1e-13);
  // Covariance (I - K H) P with P = [[2.5, 2], [2, 2.5]].
  const MatrixXd pa = sample_covariance(xa);
  EXPECT_NEAR(pa(0, 0), 2.5 / 6.0, 1e-12);
  EXPECT_NEAR(pa(0, 1), 2.0 / 6.0, 1e-12);
  EXPECT_NEAR(pa(1, 0), 2.0 / 6.0, 1e-12);
  EXPECT_NEAR(pa(1, 1), 2.5 - 4.0 / 3.0, 1e-12);
}

TEST(Enkf, TransformEqualsTheExplicitSampleGainOnARandomProblem) {
  const int n = 6, m = 3, members = 8;
  KeyedStream stream(5, StreamPurpose::member_perturbation);
  MatrixXd x(n, members), h = MatrixXd::Zero(m, n), e(m, members);
  for (int c = 0; c < x.size(); ++c) x.data()[c] = stream.normal();
  h(0, 0) = 1;
  h(1, 2) = 0.5;
  h(1, 3) = 0.5;
  h(2, 5) = 2;
  for (int c = 0; c < e.size(); ++c) e.data()[c] = 0.3 * stream.normal();
  VectorXd y(m);
  y << 0.4, -0.2, 1.0;
  const double r = 0.09;
  const MatrixXd k = sample_kalman_gain(x, h, r);
  for (FilterKind kind : {FilterKind::stochastic, FilterKind::square_root}) {
    const MatrixXd xa = x * ensemble_transform(h * x, y, e, settings(kind, r));
    if (kind == FilterKind::stochastic) {
      const MatrixXd expected = x + k * ((e.colwise() + y) - h * x);
      EXPECT_LT((xa - expected).cwiseAbs().maxCoeff(), 1e-12);
    } else {
      const VectorXd mean = x.rowwise().mean();
      const VectorXd expected_mean = mean + k * (y - h * mean);
      EXPECT_LT((xa.rowwise().mean() - expected_mean).cwiseAbs().maxCoeff(), 1e-12);
      const MatrixXd expected_cov = (MatrixXd::Identity(n, n) - k * h) * sample_covariance(x);
      EXPECT_LT((sample_covariance(xa) - expected_cov).cwiseAbs().maxCoeff(), 1e-12);
    }
  }
}

TEST(Enkf, BothFormsMatchTheTrueKalmanUpdateWithinSamplingError) {
  // Prior N(0, P), P = [[1, 0.8], [0.8, 1]]; x1 observed as y = 1 with R = 0.25.
  // Kalman: K = [0.8, 0.64], mean [0.8, 0.64], covariance [[0.2, 0.16], [0.16, 0.488]].
  const int members = 400;
  MatrixXd p(2, 2);
  p << 1, 0.8, 0.8, 1;
  const MatrixXd l = p.llt().matrixL();
  KeyedStream stream(11, StreamPurpose::member_perturbation);
  MatrixXd z(2, members);
  for (int c = 0; c < z.size(); ++c) z.data()[c] = stream.normal();
  const MatrixXd x = l * z;
  MatrixXd e(1, members);
  for (int j = 0; j < members; ++j) e(0, j) = 0.5 * stream.normal();
  VectorXd y(1);
  y << 1.0;
  MatrixXd pa_true(2, 2);
  pa_true << 0.2, 0.16, 0.16, 0.488;
  for (FilterKind kind : {FilterKind::stochastic, FilterKind::square_root}) {
    const MatrixXd xa = x * ensemble_transform(x.topRows(1), y, e, settings(kind, 0.25));
    const VectorXd mean = xa.rowwise().mean();
    // Standard error of a mean of 400 draws with variance <= 0.5 is 0.035: allow 4 of them.
    EXPECT_NEAR(mean[0], 0.8, 0.14) << filter_name(kind);
    EXPECT_NEAR(mean[1], 0.64, 0.14) << filter_name(kind);
    // Sample variances of 400 draws scatter by sqrt(2/400) = 7% relative: allow 30%.
    const MatrixXd pa = sample_covariance(xa);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        EXPECT_NEAR(pa(i, j), pa_true(i, j), 0.3 * pa_true(i, j))
            << filter_name(kind) << " " << i << j;
      }
    }
  }
}

TEST(Enkf, InflationAloneScalesTheAnomaliesAndKeepsTheMean) {
  MatrixXd x(2, 4);
  x << 1, 2, 4, 7, 0, 3, 1, 2;
  VectorXd y(1);
  y << 100;  // far off, but with R = 1e20 it carries no weight
  const MatrixXd e = MatrixXd::Zero(1, 4);
  for (FilterKind kind : {FilterKind::stochastic, FilterKind::square_root}) {
    const MatrixXd xa = x * ensemble_transform(x.topRows(1), y, e, settings(kind, 1e20, 1.1));
    const VectorXd mean = x.rowwise().mean();
    const MatrixXd expected = (1.1 * (x.colwise() - mean)).colwise() + mean;
    EXPECT_LT((xa - expected).cwiseAbs().maxCoeff(), 1e-8) << filter_name(kind);
  }
}

TEST(Enkf, RefusesAnEnsembleOfOneAndMismatchedSizes) {
  MatrixXd one(1, 1);
  one << 1;
  VectorXd y(1);
  y << 0;
  EXPECT_THROW(
      ensemble_transform(one, y, MatrixXd::Zero(1, 1), settings(FilterKind::stochastic, 1)),
      std::invalid_argument);
  MatrixXd two(1, 2);
  two << 1, 2;
  EXPECT_THROW(ensemble_transform(two, VectorXd::Zero(2), MatrixXd::Zero(1, 2),
                                  settings(FilterKind::stochastic, 1)),
               std::invalid_argument);
  EXPECT_THROW(
      ensemble_transform(two, y, MatrixXd::Zero(1, 3), settings(FilterKind::stochastic, 1)),
      std::invalid_argument);
}

}  // namespace
}  // namespace mcb::ensflow
