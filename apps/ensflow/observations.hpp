#pragma once
/// @file
/// @brief The synthetic observing system of the twin experiment: sea-surface height
/// (altimetry, eta = f0 psi / g) at fixed grid points, with Gaussian errors of a given
/// variance; and the smooth random departures the truth and the members start from.

#include "apps/ensflow/model.hpp"
#include "apps/ensflow/random.hpp"
#include "apps/ensflow/sine_transform.hpp"

#include <Eigen/Dense>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mcb::ensflow {

/// @brief Where SSH is observed and how well.
class ObservationNetwork {
 public:
  /// @brief @p count distinct grid points drawn uniformly (stream: truth seed, sites), in
  /// increasing index order. @throws std::invalid_argument when count exceeds the grid.
  ObservationNetwork(const ModelParameters& model, std::size_t count, double variance,
                     std::int64_t truth_seed);

  std::size_t count() const { return sites_.size(); }
  const std::vector<std::size_t>& sites() const { return sites_; }
  double variance() const { return variance_; }

  /// @brief H psi: SSH at the sites, written to out[0..count).
  void observe(const double* psi, double* out) const;

  /// @brief The synthetic observations of analysis @p analysis: H psi_true plus errors drawn
  /// from the stream (truth seed, observation error, analysis).
  Eigen::VectorXd synthetic(const double* true_psi, std::int64_t truth_seed, int analysis) const;

  /// @brief The stochastic filter's perturbations e_j ~ N(0, R), one column per member, each
  /// from the stream (seed, observation perturbation, analysis, member).
  Eigen::MatrixXd perturbations(std::int64_t seed, int analysis, int members) const;

 private:
  std::vector<std::size_t> sites_;
  double variance_;
  double ssh_per_psi_;
};

/// @brief Smooth Gaussian random departures of the streamfunction: sine-series coefficients
/// with amplitude proportional to exp(-kappa^2 l^2 / 4) (a Gaussian covariance of length l),
/// scaled so that the expected basin-mean SSH variance is spread^2. Returned as potential
/// vorticity q' = (Laplace_h - 1/Ld^2) psi' (the model's operator).
class PerturbationField {
 public:
  PerturbationField(const ModelParameters& model, double ssh_spread_m, double length_km);

  /// @brief Draws one field from @p stream into q_out (model.size() values: the same
  /// streamfunction departure in every layer).
  void draw(KeyedStream& stream, const QgModel& model, double* q_out);

 private:
  int grid_;
  std::vector<double> amplitude_;  // per sine coefficient, normalisation included
  SineTransform2D dst_;
  std::vector<double> psi_;
};

}  // namespace mcb::ensflow
