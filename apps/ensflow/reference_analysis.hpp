#pragma once
/// @file
/// @brief The frozen reference analysis every run's first analysis is checked against (in the
/// manner of HPCG's reference kernels): the textbook formulas on one process, dense algebra in
/// state space where the filter works in ensemble or observation space, and no parallel layout.
///  - stochastic EnKF (Burgers et al. 1998; Houtekamer and Mitchell 2001 for the taper): the
///    gain K = (rho_xy o P H^T)(rho_yy o H P H^T + R)^-1 formed explicitly, row by row, from
///    P = lambda^2 A A^T / (M - 1), and x_j^a = x_j^f + K (y + e_j - H x_j^f); rho = 1 without
///    localisation;
///  - square root (ETKF / LETKF, Hunt et al. 2007, eqs. 21-26): at each state row,
///    P~a = [(M - 1) I + Y^T R_loc^-1 Y]^-1 with R_loc^-1 the Gaspari-Cohn-tapered inverse error
///    variances of the observations the row sees (all, untapered, without localisation),
///    w = P~a Y^T R_loc^-1 (y - H xbar), W = [(M - 1) P~a]^1/2 through P~a's own eigenvectors,
///    and x^a = xbar + A (W + w 1^T);
///  - then relaxation to prior spread, row by row, against the uninflated forecast.
/// The operator H is built from the observation sites and the SSH factor, not taken from the
/// run's observed ensemble, and the perturbations are the program's draws for analysis 0, so a
/// defect anywhere between the forecast and the analysed state shows.
///
/// Rows compared: every state row of the stochastic filter and of the global square-root
/// filter (a strided subset, with the site rows, beyond kReferenceRowLimit rows); the node rows
/// of the local square-root filter, where its weight interpolation between nodes (letkf.hpp) is
/// exact. The interpolation itself, the model and the later analyses are not what this checks.

#include "apps/ensflow/enkf.hpp"
#include "apps/ensflow/update.hpp"

#include <nlohmann/json.hpp>

#include <Eigen/Dense>

#include <cstddef>
#include <vector>

namespace mcb::ensflow {

/// Above this many state rows the reference recomputes a strided subset.
inline constexpr std::size_t kReferenceRowLimit = 40000;
/// Round-off allowance: the difference from the reference may be this share of the largest
/// analysis increment plus kReferenceStateTolerance of the largest forecast value. A defect
/// changes the increments by a share of order one.
inline constexpr double kReferenceIncrementTolerance = 1e-9;
inline constexpr double kReferenceStateTolerance = 1e-12;

/// @brief The state rows (ascending) the reference analysis needs: the rows it compares and
/// the observation sites (for H x). @p state_size counts every layer's rows.
std::vector<std::size_t> reference_rows(const AnalysisSettings& settings,
                                        const AnalysisGeometry& geometry, std::size_t state_size);

/// @brief Whether @p row is one the reference compares (reference_rows also holds the sites).
bool reference_compares(const AnalysisSettings& settings, const AnalysisGeometry& geometry,
                        std::size_t state_size, std::size_t row);

/// @brief The first analysis as the run made it, on the rows of reference_rows.
struct ReferenceProblem {
  std::vector<std::size_t> rows;  //!< ascending state rows
  Eigen::MatrixXd forecast;       //!< psi^f on those rows, rows x M (uninflated)
  Eigen::MatrixXd analysed;       //!< the run's psi^a on those rows (after relaxation)
  Eigen::VectorXd observations;   //!< y, m
  Eigen::MatrixXd perturbations;  //!< e, m x M (the stochastic filter's; else empty)
  double ssh_per_psi = 1;         //!< H: SSH = factor * psi at each site
};

/// @brief The textbook analysis of @p p's rows (see the file comment), rows x M.
Eigen::MatrixXd reference_analysis(const ReferenceProblem& p, const AnalysisSettings& settings,
                                   const AnalysisGeometry& geometry);

/// @brief What the comparison found; the same on every rank.
struct ReferenceCheck {
  bool checked = false;        //!< false: no analysis was made
  std::size_t rows = 0;        //!< state rows compared
  double max_difference = 0;   //!< max |run - reference| over those rows and every member
  double increment_scale = 0;  //!< max |reference - forecast|
  double state_scale = 0;      //!< max |forecast|
  double tolerance = 0;        //!< what round-off allows
  bool pass = true;
  double seconds = 0;  //!< rank 0's time to gather and recompute

  nlohmann::json to_json() const;
};

/// @brief Compares @p p.analysed with reference_analysis on the compared rows.
ReferenceCheck compare_with_reference(const ReferenceProblem& p, const AnalysisSettings& settings,
                                      const AnalysisGeometry& geometry, std::size_t state_size);

}  // namespace mcb::ensflow
