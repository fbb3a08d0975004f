#include "apps/ensflow/letkf.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace mcb::ensflow {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

double plain_mean(const double* values, Index n, Index stride) {
  double sum = 0;
  for (Index j = 0; j < n; ++j) sum += values[j * stride];
  return sum / static_cast<double>(n);
}

LocalEnsembleTransform::LocalEnsembleTransform(const AnalysisSettings& s, const AnalysisGeometry& g)
    : settings_(s), geometry_(g), nodes_(letkf_node_positions(s.localisation_km, g)) {
  stride_ = nodes_.size() > 1 ? nodes_[1] - nodes_[0] : 1;
  transforms_.resize(node_count());
}

std::vector<int> letkf_node_positions(double localisation_km, const AnalysisGeometry& g) {
  const int stride =
      std::max(1, static_cast<int>(std::floor(localisation_km * 1e3 / (4 * g.spacing_m))));
  std::vector<int> nodes;
  for (int i = 0; i < g.grid; i += stride) nodes.push_back(i);
  if (nodes.back() != g.grid - 1) nodes.push_back(g.grid - 1);
  return nodes;
}

double LocalEnsembleTransform::taper(std::size_t row, std::size_t observation) const {
  return gaspari_cohn(geometry_.distance(row, geometry_.sites[observation]),
                      settings_.localisation_km * 1e3);
}

std::vector<std::size_t> LocalEnsembleTransform::nodes_for_grid_rows(std::size_t first,
                                                                     std::size_t end) const {
  const std::size_t count = nodes_.size();
  std::set<std::size_t> node_rows;
  for (std::size_t j = first; j < end; ++j) {
    if (count < 2) {
      node_rows.insert(0);
      continue;
    }
    const std::size_t lo = std::min(j / static_cast<std::size_t>(stride_), count - 2);
    node_rows.insert(lo);
    node_rows.insert(lo + 1);
  }
  std::vector<std::size_t> out;
  for (std::size_t b : node_rows) {
    for (std::size_t a = 0; a < count; ++a) out.push_back(b * count + a);
  }
  return out;
}

std::vector<std::size_t> LocalEnsembleTransform::observations_for(
    const std::vector<std::size_t>& nodes) const {
  const std::size_t count = nodes_.size();
  const auto g = static_cast<std::size_t>(geometry_.grid);
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < geometry_.sites.size(); ++k) {
    for (std::size_t node : nodes) {
      const std::size_t row =
          std::size_t(nodes_[node / count]) * g + std::size_t(nodes_[node % count]);
      if (taper(row, k) > 0) {
        out.push_back(k);
        break;
      }
    }
  }
  return out;
}

void LocalEnsembleTransform::compute(const std::vector<std::size_t>& nodes,
                                     const std::vector<std::size_t>& available,
                                     const MatrixXd& observed, const VectorXd& y) {
  const Index n = observed.cols();
  MatrixXd anomalies(observed.rows(), n);
  VectorXd innovation(observed.rows());
  for (Index i = 0; i < observed.rows(); ++i) {
    const double mean = plain_mean(&observed(i, 0), n, observed.outerStride());
    for (Index j = 0; j < n; ++j) anomalies(i, j) = settings_.inflation * (observed(i, j) - mean);
    innovation[i] = y[Index(available[std::size_t(i)])] - mean;
  }
  const std::size_t count = nodes_.size();
  const auto g = static_cast<std::size_t>(geometry_.grid);
  for (std::size_t node : nodes) {
    const std::size_t row =
        std::size_t(nodes_[node / count]) * g + std::size_t(nodes_[node % count]);
    transforms_[node] = node_transform(row, available, anomalies, innovation);
  }
}

// w 1^T + W for the point on state row `row`: mean weights and symmetric square root.
MatrixXd LocalEnsembleTransform::node_transform(std::size_t row,
                                                const std::vector<std::size_t>& available,
                                                const MatrixXd& anomalies,
                                                const VectorXd& innovation) const {
  const Index n = anomalies.cols();
  std::vector<Index> local;
  std::vector<double> precision;  // tapered 1 / R
  for (std::size_t i = 0; i < available.size(); ++i) {
    const double rho = taper(row, available[i]);
    if (rho <= 0) continue;
    local.push_back(Index(i));
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
MatrixXd LocalEnsembleTransform::transform_at(std::size_t row) const {
  const int g = geometry_.grid;
  row %= std::size_t(g) * std::size_t(g);  // a lower layer's column shares the transform
  const int i = int(row % std::size_t(g));
  const int j = int(row / std::size_t(g));
  if (nodes_.size() < 2) return transforms_[0];
  auto bracket = [&](int p, std::size_t& lo, double& frac) {
    lo = std::min(std::size_t(p / stride_), nodes_.size() - 2);
    const int left = nodes_[lo], right = nodes_[lo + 1];
    frac = right > left ? double(p - left) / double(right - left) : 0.0;
  };
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

Eigen::RowVectorXd LocalEnsembleTransform::analyse_row(std::size_t row,
                                                       const Eigen::RowVectorXd& values) const {
  const Index n = values.size();
  const double mean = plain_mean(values.data(), n, 1);
  const Eigen::RowVectorXd anomalies = settings_.inflation * (values.array() - mean).matrix();
  const MatrixXd t = transform_at(row);
  return (anomalies * t).array() + mean;
}

}  // namespace mcb::ensflow
