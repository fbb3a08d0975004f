#pragma once
/// @file
/// @brief The analysis as the distributed ensemble applies it: one observation-space step that
/// every process computes identically from the gathered observed ensemble, then the same
/// row-local update on every block of state rows. Three forms:
///  - global ensemble transform (enkf.hpp): X^a = X^f T, stochastic or square root, no
///    localisation;
///  - stochastic EnKF with Gaspari-Cohn covariance localisation (Houtekamer and Mitchell 2001):
///    K = (rho_xy o P H^T)(rho_yy o H P H^T + R)^-1 applied to every member's perturbed
///    innovation;
///  - local ensemble transform (LETKF, Hunt et al. 2007) for the square-root filter: every grid
///    point gets its own transform from the observations within the localisation support, their
///    inverse error variances tapered by Gaspari-Cohn.
/// Multiplicative inflation scales the forecast anomalies first; relaxation to prior spread
/// (Whitaker and Hamill 2012) is applied after, by the caller (relax_to_prior_spread).

#include "apps/ensflow/enkf.hpp"

#include <Eigen/Dense>

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace mcb::ensflow {

/// @brief Where the state rows and the observations are: row r is grid point (r % G, r / G) at
/// ((i + 1) dx, (j + 1) dx); observation k sits on state row sites[k].
struct AnalysisGeometry {
  int grid = 0;
  double spacing_m = 0;
  std::vector<std::size_t> sites;
  /// @brief Distance between two state rows, m.
  double distance(std::size_t a, std::size_t b) const;
};

/// @brief Gaspari and Cohn's (1999) fifth-order piecewise rational taper, eq. (4.10): 1 at
/// distance 0, 0 from distance 2c on; @p c is the half-width.
double gaspari_cohn(double distance, double c);

/// @brief The update step. A process calls prepare once per analysis with the whole observed
/// ensemble, then apply on each of its blocks of rows; the results do not depend on which
/// process calls or how many there are.
class UpdateStep {
 public:
  virtual ~UpdateStep() = default;
  /// @brief Observation-space part. @p observed HX^f (m x M), @p observations y, @p
  /// perturbations the stochastic filter's e (m x M; empty for the square-root filter).
  /// Returns HX^a, the analysed ensemble at the observation sites (for the diagnostics).
  virtual Eigen::MatrixXd prepare(const Eigen::MatrixXd& observed,
                                  const Eigen::VectorXd& observations,
                                  const Eigen::MatrixXd& perturbations) = 0;
  /// @brief Rows [first_row, first_row + forecast.rows()) of every member: forecast to analysis.
  virtual Eigen::MatrixXd apply(std::size_t first_row, const Eigen::MatrixXd& forecast) const = 0;
};

/// @brief The update the settings ask for (localisation_km 0: the global transform).
std::unique_ptr<UpdateStep> make_update_step(const AnalysisSettings& settings,
                                             const AnalysisGeometry& geometry);

/// @brief Builds an update step; tests substitute one here to run broken filters through the
/// whole experiment. The program always uses make_update_step.
using UpdateFactory =
    std::function<std::unique_ptr<UpdateStep>(const AnalysisSettings&, const AnalysisGeometry&)>;

/// @brief Relaxation to prior spread, row by row: the analysis anomalies of each row are scaled
/// so that its spread becomes (1 - alpha) sigma_a + alpha sigma_f. alpha 0 leaves them.
void relax_to_prior_spread(const Eigen::MatrixXd& forecast, Eigen::MatrixXd& analysed,
                           double alpha);

}  // namespace mcb::ensflow
