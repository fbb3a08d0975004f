#include "apps/ensflow/enkf.hpp"

#include <cmath>
#include <stdexcept>

namespace mcb::ensflow {

using Eigen::MatrixXd;
using Eigen::VectorXd;

double default_localisation_km(FilterKind filter) {
  return filter == FilterKind::stochastic ? 150 : 75;
}

std::string filter_name(FilterKind kind) {
  return kind == FilterKind::stochastic ? "stochastic" : "sqrt";
}

MatrixXd ensemble_transform(const MatrixXd& observed, const VectorXd& observations,
                            const MatrixXd& perturbations, const AnalysisSettings& s) {
  const Eigen::Index m = observed.rows();
  const Eigen::Index n = observed.cols();
  if (n < 2) throw std::invalid_argument("the ensemble transform needs at least two members");
  if (observations.size() != m)
    throw std::invalid_argument("observations and observed ensemble differ in size");
  if (s.filter == FilterKind::stochastic &&
      (perturbations.rows() != m || perturbations.cols() != n)) {
    throw std::invalid_argument("observation perturbations must be m x N");
  }
  const double lambda = s.inflation;
  const double sigma = std::sqrt(s.observation_variance);
  const double norm = sigma * std::sqrt(static_cast<double>(n - 1));

  // Inflated observed anomalies and ensemble (H is linear, so H of the inflated ensemble is the
  // inflated observed ensemble).
  const VectorXd mean = observed.rowwise().mean();
  const MatrixXd anomalies = lambda * (observed.colwise() - mean);
  const MatrixXd s_matrix = anomalies / norm;  // S, m x N

  // (I + S^T S) in ensemble space through its eigen-decomposition V diag(mu) V^T: inverse and
  // inverse square root come from the same factorisation.
  MatrixXd gram = MatrixXd::Identity(n, n);
  gram.selfadjointView<Eigen::Lower>().rankUpdate(
      s_matrix.transpose());  // the solver reads the lower half
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(gram);
  const MatrixXd& v = eigen.eigenvectors();
  const VectorXd& mu = eigen.eigenvalues();

  MatrixXd t_prime;
  if (s.filter == FilterKind::stochastic) {
    // Innovations of every member against its perturbed observations.
    const MatrixXd innovations =
        (perturbations - (anomalies.colwise() + mean)).colwise() + observations;
    const MatrixXd projected = v.transpose() * (s_matrix.transpose() * innovations) / norm;
    const MatrixXd w = v * (mu.cwiseInverse().asDiagonal() * projected);  // N x N
    // T' = I + (I - 11^T/N) W: each column of W minus its mean.
    t_prime = w.rowwise() - w.colwise().mean();
    t_prime.diagonal().array() += 1.0;
  } else {
    const VectorXd innovation = observations - mean;
    const VectorXd w_mean =
        v *
        (mu.cwiseInverse().asDiagonal() * (v.transpose() * (s_matrix.transpose() * innovation))) /
        norm;
    const MatrixXd root = v * mu.cwiseSqrt().cwiseInverse().asDiagonal() * v.transpose();
    // T' = 11^T/N + (I - 11^T/N)(w 1^T + T_s).
    MatrixXd inner = root.colwise() + w_mean;
    t_prime = inner.rowwise() - inner.colwise().mean();
    t_prime.array() += 1.0 / static_cast<double>(n);
  }
  // Inflation as a transform applied first: X G with G = lambda I + (1 - lambda)/N 11^T, so
  // T = G T' = lambda T' + (1 - lambda)/N 1 (1^T T').
  if (lambda == 1.0) return t_prime;
  MatrixXd t = lambda * t_prime;
  t.rowwise() += ((1.0 - lambda) / static_cast<double>(n)) * t_prime.colwise().sum();
  return t;
}

MatrixXd sample_kalman_gain(const MatrixXd& states, const MatrixXd& h,
                            double observation_variance) {
  const Eigen::Index n = states.cols();
  const MatrixXd a = states.colwise() - states.rowwise().mean();
  const MatrixXd p = a * a.transpose() / static_cast<double>(n - 1);
  MatrixXd innovation_cov = h * p * h.transpose();
  innovation_cov.diagonal().array() += observation_variance;
  // K = P H^T C^-1, i.e. C K^T = H P (C and P symmetric).
  return innovation_cov.llt().solve(h * p).transpose();
}

}  // namespace mcb::ensflow
