#include "apps/ensflow/update.hpp"

#include "apps/ensflow/letkf.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mcb::ensflow {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

double AnalysisGeometry::distance(std::size_t a, std::size_t b) const {
  // Rows of a lower layer lie under the upper layer's: distance is horizontal only.
  const auto g = static_cast<std::size_t>(grid);
  a %= g * g;
  b %= g * g;
  // Column and row on the grid: the division is the integer one on purpose.
  const std::size_t a_row = a / g, b_row = b / g;
  const double dx = static_cast<double>(a % g) - static_cast<double>(b % g);
  const double dy = static_cast<double>(a_row) - static_cast<double>(b_row);
  return spacing_m * std::sqrt(dx * dx + dy * dy);
}

double gaspari_cohn(double distance, double c) {
  const double z = std::fabs(distance) / c;
  if (z >= 2) return 0;
  const double z2 = z * z, z3 = z2 * z, z4 = z3 * z, z5 = z4 * z;
  if (z <= 1) return -0.25 * z5 + 0.5 * z4 + 0.625 * z3 - 5.0 / 3.0 * z2 + 1;
  return z5 / 12 - 0.5 * z4 + 0.625 * z3 + 5.0 / 3.0 * z2 - 5 * z + 4 - 2.0 / (3 * z);
}

namespace {

// X^a = X^f T for the whole state (enkf.hpp).
class GlobalTransform final : public UpdateStep {
 public:
  explicit GlobalTransform(const AnalysisSettings& s) : settings_(s) {}
  MatrixXd prepare(const MatrixXd& observed, const VectorXd& y, const MatrixXd& e) override {
    transform_ = ensemble_transform(observed, y, e, settings_);
    return observed * transform_;
  }
  MatrixXd apply(std::size_t, const MatrixXd& forecast) const override {
    return forecast * transform_;
  }

 private:
  AnalysisSettings settings_;
  MatrixXd transform_;
};

// Stochastic EnKF with a tapered gain: D = (rho_yy o HPH^T + R)^-1 (y + e_j - H x_j) once, then
// each row adds (rho_row o P_row H^T) D.
class LocalisedStochastic final : public UpdateStep {
 public:
  LocalisedStochastic(const AnalysisSettings& s, const AnalysisGeometry& g)
      : settings_(s), geometry_(g) {}

  MatrixXd prepare(const MatrixXd& observed, const VectorXd& y, const MatrixXd& e) override {
    const Index m = observed.rows();
    const Index n = observed.cols();
    if (e.rows() != m || e.cols() != n)
      throw std::invalid_argument("observation perturbations must be m x N");
    const VectorXd mean = observed.rowwise().mean();
    observed_anomalies_ = settings_.inflation * (observed.colwise() - mean);
    MatrixXd cov = observed_anomalies_ * observed_anomalies_.transpose() / double(n - 1);
    const auto& sites = geometry_.sites;
    for (Index k = 0; k < m; ++k) {
      for (Index l = 0; l < m; ++l) {
        cov(k, l) *= gaspari_cohn(geometry_.distance(sites[std::size_t(k)], sites[std::size_t(l)]),
                                  settings_.localisation_km * 1e3);
      }
    }
    const MatrixXd tapered_cov = cov;
    cov.diagonal().array() += settings_.observation_variance;
    const MatrixXd inflated = observed_anomalies_.colwise() + mean;
    const MatrixXd innovations = (e - inflated).colwise() + y;
    weights_ = cov.llt().solve(innovations);  // D, m x N
    return inflated + tapered_cov * weights_;
  }

  MatrixXd apply(std::size_t first_row, const MatrixXd& forecast) const override {
    const Index n = forecast.cols();
    const VectorXd mean = forecast.rowwise().mean();
    const MatrixXd anomalies = settings_.inflation * (forecast.colwise() - mean);
    MatrixXd gain_cov = anomalies * observed_anomalies_.transpose() / double(n - 1);
    const double c = settings_.localisation_km * 1e3;
    for (Index k = 0; k < gain_cov.cols(); ++k) {
      for (Index r = 0; r < gain_cov.rows(); ++r) {
        gain_cov(r, k) *= gaspari_cohn(
            geometry_.distance(first_row + std::size_t(r), geometry_.sites[std::size_t(k)]), c);
      }
    }
    MatrixXd out = anomalies.colwise() + mean;
    out.noalias() += gain_cov * weights_;
    return out;
  }

 private:
  AnalysisSettings settings_;
  AnalysisGeometry geometry_;
  MatrixXd observed_anomalies_;  // lambda H A, m x N
  MatrixXd weights_;             // D, m x N
};

// LETKF over the gathered observed ensemble: every process computes every node's transform
// (letkf.hpp), then updates its rows.
class LocalTransform final : public UpdateStep {
 public:
  LocalTransform(const AnalysisSettings& s, const AnalysisGeometry& g)
      : letkf_(s, g), sites_(g.sites) {
    for (std::size_t k = 0; k < sites_.size(); ++k) all_observations_.push_back(k);
    for (std::size_t node = 0; node < letkf_.node_count(); ++node) all_nodes_.push_back(node);
  }

  MatrixXd prepare(const MatrixXd& observed, const VectorXd& y, const MatrixXd&) override {
    letkf_.compute(all_nodes_, all_observations_, observed, y);
    MatrixXd analysed(observed.rows(), observed.cols());
    for (Index k = 0; k < observed.rows(); ++k)
      analysed.row(k) = letkf_.analyse_row(sites_[std::size_t(k)], observed.row(k));
    return analysed;
  }

  MatrixXd apply(std::size_t first_row, const MatrixXd& forecast) const override {
    MatrixXd out(forecast.rows(), forecast.cols());
    for (Index r = 0; r < forecast.rows(); ++r)
      out.row(r) = letkf_.analyse_row(first_row + std::size_t(r), forecast.row(r));
    return out;
  }

 private:
  LocalEnsembleTransform letkf_;
  std::vector<std::size_t> sites_;
  std::vector<std::size_t> all_observations_;
  std::vector<std::size_t> all_nodes_;
};

}  // namespace

std::unique_ptr<UpdateStep> make_update_step(const AnalysisSettings& s, const AnalysisGeometry& g) {
  if (s.localisation_km <= 0) return std::make_unique<GlobalTransform>(s);
  if (s.filter == FilterKind::stochastic) return std::make_unique<LocalisedStochastic>(s, g);
  return std::make_unique<LocalTransform>(s, g);
}

void relax_to_prior_spread(const MatrixXd& forecast, MatrixXd& analysed, double alpha) {
  if (alpha == 0) return;
  const double n = double(forecast.cols());
  for (Index r = 0; r < forecast.rows(); ++r) {
    const double fm = forecast.row(r).mean();
    const double am = analysed.row(r).mean();
    const double sf = std::sqrt((forecast.row(r).array() - fm).square().sum() / (n - 1));
    const double sa = std::sqrt((analysed.row(r).array() - am).square().sum() / (n - 1));
    if (!(sa > 0)) continue;
    const double factor = 1 + alpha * (sf - sa) / sa;
    analysed.row(r) = (am + factor * (analysed.row(r).array() - am)).matrix();
  }
}

}  // namespace mcb::ensflow
