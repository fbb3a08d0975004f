#pragma once
/// @file
/// @brief The analysis of the ensemble Kalman filter, written as an ensemble transform: the
/// analysis ensemble is X^a = X^f T for an N x N matrix T that depends only on the observed
/// ensemble HX^f (m x N), the observations y and, for the stochastic filter, the observation
/// perturbations. Computing T needs only the observed ensemble, so the distributed filter
/// gathers HX (small), every process computes the same T, and each process then updates its
/// share of the state rows (X^a rows = X^f rows times T) after a transpose.
///
/// Both forms use the ensemble-space identity (for R = sigma^2 I and S = HA / (sigma sqrt(N-1)),
/// A the anomalies): K d = A (I + S^T S)^-1 S^T d / (sigma sqrt(N-1)), so the cost is
/// O(m N^2 + N^3) whatever the state size. All linear algebra is Eigen's.
///
///  - stochastic (Burgers, van Leeuwen and Evensen 1998): each member j assimilates the
///    perturbed observations y + e_j, e_j ~ N(0, R): x_j^a = x_j^f + K (y + e_j - H x_j^f).
///  - square root (ETKF, Bishop et al. 2001 / Hunt et al. 2007): the mean is updated with K and
///    the anomalies with the symmetric square root (I + S^T S)^-1/2, which keeps the mean and
///    gives exactly the Kalman analysis covariance of the sample forecast covariance.
///
/// Multiplicative inflation lambda scales the forecast anomalies before the analysis.

#include <Eigen/Dense>

#include <string>

namespace mcb::ensflow {

enum class FilterKind { stochastic, square_root };

/// @brief "stochastic" or "sqrt".
std::string filter_name(FilterKind kind);

struct AnalysisSettings {
  FilterKind filter = FilterKind::stochastic;
  double observation_variance = 1;  //!< R = variance * I
  double inflation = 1;             //!< multiplicative, applied to forecast anomalies
  double localisation_km = 150;     //!< Gaspari-Cohn half-width c (0: global, no localisation);
                                    //!< default_localisation_km(filter) is the program's default
  double relaxation = 0;            //!< relaxation to prior spread alpha (0: none)
};

/// @brief The Gaspari-Cohn half-width (km) `--localisation auto` picks for @p filter:
/// - stochastic, 150 km (the taper reaches zero at 300 km): the size of the eddies (rings of
///   100-200 km, about 5 deformation radii) and of the initial errors' correlation, so the
///   gain keeps the covariances within an eddy and cuts the spurious ones between eddies;
/// - square root, 75 km: the local analysis (LETKF) tapers 1/R and has only M - 1 directions
///   per point, so its local region (radius 150 km: about 14 of the 200 observations) must
///   hold no more independent structures than a small ensemble spans; R-localisation needs a
///   shorter scale than covariance localisation for the same effect (Greybush et al. 2011).
/// Measured in apps/ensflow/README.md: spread / RMSE within [0.6, 2] for M = 12, 24 and 60.
double default_localisation_km(FilterKind filter);

/// @brief T such that X^a = X^f T.
/// @param observed HX^f, m x N (column j: member j's observed values)
/// @param observations y, m values
/// @param perturbations e, m x N observation perturbations (stochastic filter; ignored by the
///        square-root filter, may then be empty)
Eigen::MatrixXd ensemble_transform(const Eigen::MatrixXd& observed,
                                   const Eigen::VectorXd& observations,
                                   const Eigen::MatrixXd& perturbations,
                                   const AnalysisSettings& settings);

/// @brief The Kalman gain the filter applies for a sample forecast covariance P = A A^T / (N-1):
/// K = P H^T (H P H^T + R)^-1, formed explicitly (n x m). For checks on small problems only.
Eigen::MatrixXd sample_kalman_gain(const Eigen::MatrixXd& states, const Eigen::MatrixXd& h,
                                   double observation_variance);

}  // namespace mcb::ensflow
