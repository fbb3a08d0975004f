#include "apps/ensflow/update.hpp"

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

// LETKF: a transform per node of a coarse grid (every `stride` points, last row and column
// included), bilinearly interpolated to every point in between (weight interpolation, Yang
// et al. 2009); the transforms vary on the localisation scale, several grid spacings.
class LocalTransform final : public UpdateStep {
 public:
  LocalTransform(const AnalysisSettings& s, const AnalysisGeometry& g)
      : settings_(s), geometry_(g) {
    const double c = s.localisation_km * 1e3;
    stride_ = std::max(1, static_cast<int>(std::floor(c / (4 * g.spacing_m))));
    for (int i = 0; i < g.grid; i += stride_) nodes_.push_back(i);
    if (nodes_.back() != g.grid - 1) nodes_.push_back(g.grid - 1);
  }

  MatrixXd prepare(const MatrixXd& observed, const VectorXd& y, const MatrixXd&) override {
    const Index n = observed.cols();
    const VectorXd mean = observed.rowwise().mean();
    const MatrixXd anomalies = settings_.inflation * (observed.colwise() - mean);
    const VectorXd innovation = y - mean;
    const std::size_t count = nodes_.size();
    transforms_.assign(count * count, MatrixXd());
    for (std::size_t b = 0; b < count; ++b) {
      for (std::size_t a = 0; a < count; ++a) {
        const std::size_t row =
            std::size_t(nodes_[b]) * std::size_t(geometry_.grid) + std::size_t(nodes_[a]);
        transforms_[b * count + a] = node_transform(row, anomalies, innovation, n);
      }
    }
    MatrixXd analysed(observed.rows(), n);
    for (Index k = 0; k < observed.rows(); ++k) {
      const MatrixXd t = transform_at(geometry_.sites[std::size_t(k)]);
      analysed.row(k) = mean[k] + (anomalies.row(k) * t).array();
    }
    return analysed;
  }

  MatrixXd apply(std::size_t first_row, const MatrixXd& forecast) const override {
    const VectorXd mean = forecast.rowwise().mean();
    const MatrixXd anomalies = settings_.inflation * (forecast.colwise() - mean);
    MatrixXd out(forecast.rows(), forecast.cols());
    for (Index r = 0; r < forecast.rows(); ++r) {
      const MatrixXd t = transform_at(first_row + std::size_t(r));
      out.row(r) = mean[r] + (anomalies.row(r) * t).array();
    }
    return out;
  }

 private:
  // w 1^T + W for the point on state row `row`: mean weights and symmetric square root.
  MatrixXd node_transform(std::size_t row, const MatrixXd& anomalies, const VectorXd& innovation,
                          Index n) const {
    const double c = settings_.localisation_km * 1e3;
    std::vector<Index> local;
    std::vector<double> precision;  // tapered 1 / R
    for (std::size_t k = 0; k < geometry_.sites.size(); ++k) {
      const double rho = gaspari_cohn(geometry_.distance(row, geometry_.sites[k]), c);
      if (rho <= 0) continue;
      local.push_back(Index(k));
      precision.push_back(rho / settings_.observation_variance);
    }
    if (local.empty()) return MatrixXd::Identity(n, n);
    MatrixXd y_local(Index(local.size()), n);
    VectorXd d_local(Index(local.size()));
    for (std::size_t k = 0; k < local.size(); ++k) {
      y_local.row(Index(k)) = anomalies.row(local[k]);
      d_local[Index(k)] = innovation[local[k]];
    }
    const Eigen::Map<const VectorXd> r_inv(precision.data(), Index(precision.size()));
    const MatrixXd weighted = r_inv.asDiagonal() * y_local;  // R^-1 Y
    MatrixXd a = y_local.transpose() * weighted;
    a.diagonal().array() += double(n - 1);
    const Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(a);
    const MatrixXd& v = eigen.eigenvectors();
    const VectorXd& mu = eigen.eigenvalues();
    const VectorXd w =
        v * (mu.cwiseInverse().asDiagonal() * (v.transpose() * (weighted.transpose() * d_local)));
    MatrixXd t =
        std::sqrt(double(n - 1)) * v * mu.cwiseSqrt().cwiseInverse().asDiagonal() * v.transpose();
    t.colwise() += w;
    return t;
  }

  // Bilinear interpolation of the node transforms around state row `row`.
  MatrixXd transform_at(std::size_t row) const {
    const int g = geometry_.grid;
    row %= std::size_t(g) * std::size_t(g);  // a lower layer's column shares the transform
    const int i = int(row % std::size_t(g));
    const int j = int(row / std::size_t(g));
    auto bracket = [&](int p, std::size_t& lo, double& frac) {
      lo = std::min(std::size_t(p / stride_), nodes_.size() - 2);
      if (nodes_.size() < 2) lo = 0;
      const int left = nodes_[lo], right = nodes_[std::min(lo + 1, nodes_.size() - 1)];
      frac = right > left ? double(p - left) / double(right - left) : 0.0;
    };
    if (nodes_.size() < 2) return transforms_[0];
    std::size_t ai = 0, bj = 0;
    double fx = 0, fy = 0;
    bracket(i, ai, fx);
    bracket(j, bj, fy);
    const std::size_t count = nodes_.size();
    const auto& t00 = transforms_[bj * count + ai];
    const auto& t10 = transforms_[bj * count + ai + 1];
    const auto& t01 = transforms_[(bj + 1) * count + ai];
    const auto& t11 = transforms_[(bj + 1) * count + ai + 1];
    return (1 - fy) * ((1 - fx) * t00 + fx * t10) + fy * ((1 - fx) * t01 + fx * t11);
  }

  AnalysisSettings settings_;
  AnalysisGeometry geometry_;
  int stride_ = 1;
  std::vector<int> nodes_;
  std::vector<MatrixXd> transforms_;  // per node, row-major over the node grid
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
