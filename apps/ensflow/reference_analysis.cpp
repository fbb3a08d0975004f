#include "apps/ensflow/reference_analysis.hpp"

#include "apps/ensflow/letkf.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mcb::ensflow {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::RowVectorXd;
using Eigen::VectorXd;

namespace {

bool local_square_root(const AnalysisSettings& s) {
  return s.filter == FilterKind::square_root && s.localisation_km > 0;
}

// rho between a state row and an observation site; 1 without localisation.
double taper(const AnalysisSettings& s, const AnalysisGeometry& g, std::size_t row,
             std::size_t site) {
  if (!(s.localisation_km > 0)) return 1;
  return gaspari_cohn(g.distance(row, site), s.localisation_km * 1e3);
}

// The rows the reference compares, ascending.
std::vector<std::size_t> compared_rows(const AnalysisSettings& s, const AnalysisGeometry& g,
                                       std::size_t state_size) {
  std::vector<std::size_t> rows;
  if (local_square_root(s)) {
    const auto grid = static_cast<std::size_t>(g.grid);
    const std::vector<int> nodes = letkf_node_positions(s.localisation_km, g);
    for (std::size_t layer = 0; layer * grid * grid < state_size; ++layer) {
      for (int j : nodes) {
        for (int i : nodes) {
          rows.push_back(layer * grid * grid + static_cast<std::size_t>(j) * grid +
                         static_cast<std::size_t>(i));
        }
      }
    }
    return rows;
  }
  const std::size_t stride = (state_size + kReferenceRowLimit - 1) / kReferenceRowLimit;
  for (std::size_t row = 0; row < state_size; row += std::max<std::size_t>(stride, 1))
    rows.push_back(row);
  return rows;
}

std::size_t position_of(const std::vector<std::size_t>& rows, std::size_t row) {
  const auto it = std::lower_bound(rows.begin(), rows.end(), row);
  if (it == rows.end() || *it != row)
    throw std::logic_error("the reference problem lacks state row " + std::to_string(row));
  return static_cast<std::size_t>(it - rows.begin());
}

// Stochastic EnKF: the tapered gain in state space, one solve for every row.
MatrixXd stochastic(const ReferenceProblem& p, const AnalysisSettings& s, const AnalysisGeometry& g,
                    const MatrixXd& anomalies, const MatrixXd& inflated,
                    const MatrixXd& h_anomalies, const MatrixXd& h_inflated) {
  const Index m = h_anomalies.rows();
  const double members_less_one = static_cast<double>(p.forecast.cols() - 1);
  MatrixXd hpht = h_anomalies * h_anomalies.transpose() / members_less_one;
  for (Index k = 0; k < m; ++k) {
    for (Index l = 0; l < m; ++l) hpht(k, l) *= taper(s, g, g.sites[size_t(k)], g.sites[size_t(l)]);
  }
  hpht.diagonal().array() += s.observation_variance;
  MatrixXd pht = anomalies * h_anomalies.transpose() / members_less_one;  // rows x m
  for (Index r = 0; r < pht.rows(); ++r) {
    for (Index k = 0; k < m; ++k) pht(r, k) *= taper(s, g, p.rows[size_t(r)], g.sites[size_t(k)]);
  }
  // K^T = C^-1 (rho o P H^T)^T, C symmetric; LU, not the run's Cholesky.
  const MatrixXd gain = Eigen::PartialPivLU<MatrixXd>(hpht).solve(pht.transpose()).transpose();
  MatrixXd innovations = p.perturbations - h_inflated;
  innovations.colwise() += p.observations;
  return inflated + gain * innovations;
}

// ETKF / LETKF, Hunt et al. (2007): every row's own transform.
MatrixXd square_root(const ReferenceProblem& p, const AnalysisSettings& s,
                     const AnalysisGeometry& g, const VectorXd& mean, const MatrixXd& anomalies,
                     const MatrixXd& h_anomalies, const VectorXd& h_mean) {
  const Index members = p.forecast.cols();
  const double members_less_one = static_cast<double>(members - 1);
  MatrixXd out(p.forecast.rows(), members);
  for (Index r = 0; r < out.rows(); ++r) {
    std::vector<Index> seen;
    for (Index k = 0; k < h_anomalies.rows(); ++k) {
      if (taper(s, g, p.rows[size_t(r)], g.sites[size_t(k)]) > 0) seen.push_back(k);
    }
    const auto l = static_cast<Index>(seen.size());
    MatrixXd y(l, members);
    VectorXd weighted_d(l);
    MatrixXd r_inv_y(l, members);
    for (Index i = 0; i < l; ++i) {
      const Index k = seen[size_t(i)];
      const double r_inv =
          taper(s, g, p.rows[size_t(r)], g.sites[size_t(k)]) / s.observation_variance;
      y.row(i) = h_anomalies.row(k);
      r_inv_y.row(i) = r_inv * h_anomalies.row(k);
      weighted_d(i) = r_inv * (p.observations(k) - h_mean(k));
    }
    MatrixXd precision = y.transpose() * r_inv_y;
    precision.diagonal().array() += members_less_one;
    MatrixXd pa = precision.ldlt().solve(MatrixXd::Identity(members, members));
    pa = 0.5 * (pa + pa.transpose());
    const VectorXd w = pa * (y.transpose() * weighted_d);
    const Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(members_less_one * pa);
    MatrixXd transform = eigen.eigenvectors() *
                         eigen.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal() *
                         eigen.eigenvectors().transpose();
    transform.colwise() += w;
    out.row(r) = (anomalies.row(r) * transform).array() + mean(r);
  }
  return out;
}

// Relaxation to prior spread (Whitaker and Hamill 2012), against the uninflated forecast.
void relax(const MatrixXd& forecast, MatrixXd& analysed, double alpha) {
  if (alpha == 0) return;
  const double less_one = static_cast<double>(forecast.cols() - 1);
  for (Index r = 0; r < forecast.rows(); ++r) {
    const RowVectorXd f = forecast.row(r).array() - forecast.row(r).mean();
    const double am = analysed.row(r).mean();
    const RowVectorXd a = analysed.row(r).array() - am;
    const double sf = std::sqrt(f.squaredNorm() / less_one);
    const double sa = std::sqrt(a.squaredNorm() / less_one);
    if (sa > 0) analysed.row(r) = ((sa + alpha * (sf - sa)) / sa * a).array() + am;
  }
}

}  // namespace

std::vector<std::size_t> reference_rows(const AnalysisSettings& settings,
                                        const AnalysisGeometry& geometry, std::size_t state_size) {
  std::vector<std::size_t> rows = compared_rows(settings, geometry, state_size);
  rows.insert(rows.end(), geometry.sites.begin(), geometry.sites.end());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

MatrixXd reference_analysis(const ReferenceProblem& p, const AnalysisSettings& s,
                            const AnalysisGeometry& g) {
  const VectorXd mean = p.forecast.rowwise().mean();
  const MatrixXd anomalies = s.inflation * (p.forecast.colwise() - mean);
  const MatrixXd inflated = anomalies.colwise() + mean;
  // H from the sites: SSH = factor * psi on the site's (upper-layer) row.
  const auto m = static_cast<Index>(g.sites.size());
  MatrixXd h_anomalies(m, p.forecast.cols()), h_inflated(m, p.forecast.cols());
  VectorXd h_mean(m);
  for (Index k = 0; k < m; ++k) {
    const auto at = static_cast<Index>(position_of(p.rows, g.sites[size_t(k)]));
    h_anomalies.row(k) = p.ssh_per_psi * anomalies.row(at);
    h_inflated.row(k) = p.ssh_per_psi * inflated.row(at);
    h_mean(k) = p.ssh_per_psi * mean(at);
  }
  MatrixXd analysed = s.filter == FilterKind::stochastic
                          ? stochastic(p, s, g, anomalies, inflated, h_anomalies, h_inflated)
                          : square_root(p, s, g, mean, anomalies, h_anomalies, h_mean);
  relax(p.forecast, analysed, s.relaxation);
  return analysed;
}

ReferenceCheck compare_with_reference(const ReferenceProblem& p, const AnalysisSettings& s,
                                      const AnalysisGeometry& g, std::size_t state_size) {
  const MatrixXd reference = reference_analysis(p, s, g);
  ReferenceCheck c;
  c.checked = true;
  double difference = 0;
  for (std::size_t row : compared_rows(s, g, state_size)) {
    const auto at = static_cast<Index>(position_of(p.rows, row));
    ++c.rows;
    const double d = (p.analysed.row(at) - reference.row(at)).cwiseAbs().maxCoeff();
    // NaN anywhere must fail, and std::max drops a NaN in its second place.
    difference = std::isnan(d) || std::isnan(difference) ? NAN : std::max(difference, d);
    c.increment_scale =
        std::max(c.increment_scale, (reference.row(at) - p.forecast.row(at)).cwiseAbs().maxCoeff());
    c.state_scale = std::max(c.state_scale, p.forecast.row(at).cwiseAbs().maxCoeff());
  }
  c.max_difference = difference;
  c.tolerance =
      kReferenceIncrementTolerance * c.increment_scale + kReferenceStateTolerance * c.state_scale;
  c.pass = difference <= c.tolerance;
  return c;
}

nlohmann::json ReferenceCheck::to_json() const {
  if (!checked) return {{"checked", false}};
  return {{"checked", true},
          {"rows", rows},
          {"max_difference", max_difference},
          {"increment_scale", increment_scale},
          {"state_scale", state_scale},
          {"tolerance", tolerance},
          {"pass", pass}};
}

}  // namespace mcb::ensflow
