// The reference analysis (reference_analysis.hpp) against the program's update steps on a small
// problem: each form the program has (stochastic and square root, global and localised, with
// inflation and relaxation) agrees with it to round-off, and each classic defect of
// broken_update.hpp does not.
#include <gtest/gtest.h>

#include "apps/ensflow/reference_analysis.hpp"
#include "apps/ensflow/update.hpp"
#include "common/rng.hpp"
#include "tests/ensflow/broken_update.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace mcb::ensflow {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr int kGrid = 24;
constexpr std::size_t kLayers = 2;
constexpr int kMembers = 8;
constexpr double kSshPerPsi = 0.5;
constexpr std::size_t kPlane = std::size_t{kGrid} * kGrid;  // points per layer

struct Problem {
  AnalysisGeometry geometry;
  MatrixXd forecast;  // every state row, n x M
  VectorXd y;
  MatrixXd e;
};

// Smooth-ish random fields: a common pattern plus member noise, sites on the upper layer.
Problem make_problem() {
  Problem p;
  p.geometry.grid = kGrid;
  p.geometry.spacing_m = 10e3;
  for (std::size_t k = 3; k < kPlane; k += 7) p.geometry.sites.push_back(k);
  const auto n = static_cast<Eigen::Index>(kLayers * kPlane);
  const auto m = Eigen::Index(p.geometry.sites.size());
  Rng rng(42);
  p.forecast.resize(n, kMembers);
  for (Eigen::Index r = 0; r < n; ++r) {
    const Eigen::Index column = r % kGrid, row = (r / kGrid) % kGrid;
    const double base = std::sin(0.3 * double(column)) + std::cos(0.2 * double(row));
    for (Eigen::Index j = 0; j < kMembers; ++j) p.forecast(r, j) = base + 0.4 * rng.normal();
  }
  p.y.resize(m);
  p.e.resize(m, kMembers);
  for (Eigen::Index k = 0; k < m; ++k) {
    p.y(k) = kSshPerPsi * p.forecast.row(Eigen::Index(p.geometry.sites[std::size_t(k)])).mean() +
             0.3 * rng.normal();
    for (Eigen::Index j = 0; j < kMembers; ++j) p.e(k, j) = 0.5 * rng.normal();
  }
  return p;
}

// The analysis as the program makes it: prepare on the observed ensemble, apply on blocks of
// rows, then relaxation.
MatrixXd program_analysis(const Problem& p, const AnalysisSettings& s,
                          const UpdateFactory& factory) {
  std::unique_ptr<UpdateStep> step = factory(s, p.geometry);
  MatrixXd observed(Eigen::Index(p.geometry.sites.size()), kMembers);
  for (Eigen::Index k = 0; k < observed.rows(); ++k)
    observed.row(k) = kSshPerPsi * p.forecast.row(Eigen::Index(p.geometry.sites[std::size_t(k)]));
  step->prepare(observed, p.y, s.filter == FilterKind::stochastic ? p.e : MatrixXd());
  MatrixXd analysed(p.forecast.rows(), kMembers);
  for (Eigen::Index at = 0; at < p.forecast.rows(); at += 64) {
    const Eigen::Index len = std::min<Eigen::Index>(64, p.forecast.rows() - at);
    const MatrixXd forecast = p.forecast.middleRows(at, len);
    MatrixXd block = step->apply(std::size_t(at), forecast);
    relax_to_prior_spread(forecast, block, s.relaxation);
    analysed.middleRows(at, len) = block;
  }
  return analysed;
}

ReferenceCheck check(const Problem& p, const AnalysisSettings& s, const MatrixXd& analysed) {
  const auto n = std::size_t(p.forecast.rows());
  ReferenceProblem r;
  r.rows = reference_rows(s, p.geometry, n);
  r.forecast.resize(Eigen::Index(r.rows.size()), kMembers);
  r.analysed.resize(r.forecast.rows(), kMembers);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    r.forecast.row(Eigen::Index(i)) = p.forecast.row(Eigen::Index(r.rows[i]));
    r.analysed.row(Eigen::Index(i)) = analysed.row(Eigen::Index(r.rows[i]));
  }
  r.observations = p.y;
  if (s.filter == FilterKind::stochastic) r.perturbations = p.e;
  r.ssh_per_psi = kSshPerPsi;
  return compare_with_reference(r, s, p.geometry, n);
}

struct Form {
  const char* name;
  FilterKind filter;
  double localisation_km;
};

class ReferenceAnalysis : public ::testing::TestWithParam<Form> {
 protected:
  AnalysisSettings settings() const {
    AnalysisSettings s;
    s.filter = GetParam().filter;
    s.localisation_km = GetParam().localisation_km;
    s.observation_variance = 0.3;  // not 1: R read as a standard deviation must change R
    s.inflation = 1.1;
    s.relaxation = 0.3;
    return s;
  }
};

TEST_P(ReferenceAnalysis, TheProgramsUpdateAgreesToRoundOff) {
  const Problem p = make_problem();
  const ReferenceCheck c = check(p, settings(), program_analysis(p, settings(), make_update_step));
  EXPECT_TRUE(c.checked);
  EXPECT_GT(c.rows, 0u);
  EXPECT_GT(c.increment_scale, 0.01);  // the observations move the state
  EXPECT_TRUE(c.pass) << c.to_json().dump();
}

TEST_P(ReferenceAnalysis, EachClassicDefectDisagrees) {
  const Problem p = make_problem();
  using defects::Defect;
  for (Defect d : {Defect::no_perturbed_observations, Defect::mean_only,
                   Defect::r_as_standard_deviation, Defect::half_gain}) {
    // The square-root filter takes no perturbations: that defect leaves it correct.
    if (d == Defect::no_perturbed_observations && GetParam().filter == FilterKind::square_root)
      continue;
    const ReferenceCheck c =
        check(p, settings(), program_analysis(p, settings(), defects::broken(d)));
    EXPECT_FALSE(c.pass) << defects::defect_name(d) << ": " << c.to_json().dump();
    // Far beyond round-off: the defect changes the increments by a share of order one.
    EXPECT_GT(c.max_difference, 1e-3 * c.increment_scale) << defects::defect_name(d);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ensflow, ReferenceAnalysis,
    ::testing::Values(Form{"stochastic_global", FilterKind::stochastic, 0},
                      // 80 km: support 160 km of the 240 km basin; the local analysis's
                      // nodes every floor(80 / (4 * 10)) = 2 points, interpolated between.
                      Form{"stochastic_localised", FilterKind::stochastic, 80},
                      Form{"square_root_global", FilterKind::square_root, 0},
                      Form{"square_root_local", FilterKind::square_root, 80}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ReferenceRows, TheLocalAnalysisIsComparedAtItsNodesOnEveryLayer) {
  AnalysisSettings s;
  s.filter = FilterKind::square_root;
  s.localisation_km = 80;  // nodes 0, 2, ..., 22, 23
  const Problem p = make_problem();
  const std::size_t plane = kPlane, g = kGrid;
  const std::vector<std::size_t> rows = reference_rows(s, p.geometry, kLayers * plane);
  for (std::size_t site : p.geometry.sites)
    EXPECT_TRUE(std::binary_search(rows.begin(), rows.end(), site));
  const auto has = [&](std::size_t row) {
    return std::binary_search(rows.begin(), rows.end(), row);
  };
  EXPECT_TRUE(has(plane + 4 * g + 2));    // node (2, 4), lower layer
  EXPECT_TRUE(has(plane + 23 * g + 23));  // the last row and column are nodes
  EXPECT_FALSE(has(plane + 4 * g + 1));   // between nodes, lower layer: no site there
}

}  // namespace
}  // namespace mcb::ensflow
