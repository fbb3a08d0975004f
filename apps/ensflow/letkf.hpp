#pragma once
/// @file
/// @brief The local ensemble transform (LETKF, Hunt et al. 2007) both analysis layouts share:
/// a transform per node of a coarse grid (every `stride` points, last row and column included),
/// each from the observations within its localisation support, their inverse error variances
/// tapered by Gaspari-Cohn; bilinearly interpolated to the points in between (weight
/// interpolation, Yang et al. 2009).
///
/// A node's transform depends only on the observations it sees, taken in ascending index
/// order, and every mean is a plain sum over the members: so a process that holds only the
/// observations near its region (the regional layout) computes its nodes' transforms bit for
/// bit as one that holds them all (the gathered layout).

#include "apps/ensflow/enkf.hpp"
#include "apps/ensflow/update.hpp"

#include <Eigen/Dense>

#include <cstddef>
#include <vector>

namespace mcb::ensflow {

class LocalEnsembleTransform {
 public:
  LocalEnsembleTransform(const AnalysisSettings& settings, const AnalysisGeometry& geometry);

  /// @brief Node indices (row-major over the node grid) whose transforms the points of grid
  /// rows [first, end) interpolate from.
  std::vector<std::size_t> nodes_for_grid_rows(std::size_t first, std::size_t end) const;
  /// @brief The observations (ascending) within the support of any of @p nodes.
  std::vector<std::size_t> observations_for(const std::vector<std::size_t>& nodes) const;
  std::size_t node_count() const { return nodes_.size() * nodes_.size(); }

  /// @brief Computes the transforms of @p nodes from the observations @p available (ascending
  /// indices, a superset of observations_for(nodes)), whose observed ensemble is the matching
  /// rows of @p observed (available.size() x M), against the observations @p y (all m).
  void compute(const std::vector<std::size_t>& nodes, const std::vector<std::size_t>& available,
               const Eigen::MatrixXd& observed, const Eigen::VectorXd& y);

  /// @brief One state row's analysis: mean + (lambda anomalies) T(row), for @p values the
  /// row's M forecast values. Needs the transforms of the nodes around the row.
  Eigen::RowVectorXd analyse_row(std::size_t row, const Eigen::RowVectorXd& values) const;

 private:
  Eigen::MatrixXd node_transform(std::size_t row, const std::vector<std::size_t>& available,
                                 const Eigen::MatrixXd& anomalies,
                                 const Eigen::VectorXd& innovation) const;
  Eigen::MatrixXd transform_at(std::size_t row) const;
  double taper(std::size_t row, std::size_t observation) const;

  AnalysisSettings settings_;
  AnalysisGeometry geometry_;
  int stride_ = 1;
  std::vector<int> nodes_;                   // grid indices of the node rows and columns
  std::vector<Eigen::MatrixXd> transforms_;  // per node, row-major; empty when not computed
};

/// @brief The grid indices of the node rows and columns for half-width @p localisation_km:
/// every floor(c / 4 dx) points (the transforms vary on the localisation scale, several grid
/// spacings), the last row and column included. At a node the interpolation is exact.
std::vector<int> letkf_node_positions(double localisation_km, const AnalysisGeometry& geometry);

/// @brief The mean of @p n values as a plain sum in order, so that it does not depend on where
/// the values lie in memory (Eigen's vectorised reductions do).
double plain_mean(const double* values, Eigen::Index n, Eigen::Index stride);

}  // namespace mcb::ensflow
