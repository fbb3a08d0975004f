#pragma once
/// @file
/// @brief Observation-space statistics of one analysis, which every process computes from the
/// same gathered observed ensemble (so they are identical for every process count):
///  - innovation chi-square: the mean over observations of d_k^2 / (var_k(HX^f) + R), with
///    d = y - mean(HX^f); 1 when the forecast spread and R explain the innovations (the
///    diagonal of H P H^T + R, robust to the rank deficiency of a small ensemble);
///  - observation-error consistency (Desroziers et al. 2005): the mean over observations of
///    (y - H xbar^a)_k (y - H xbar^f)_k / R, which is 1 when the analysis used the right gain;
///    a gain too small or too large, or R misread, moves it away from 1;
///  - rank histogram (Hamill 2001): the rank of each observation among the forecast members at
///    its site, each with its own draw of observation noise, in M + 1 bins.

#include <Eigen/Dense>

#include <cstdint>
#include <vector>

namespace mcb::ensflow {

struct InnovationStatistics {
  int day = 0;
  int observations = 0;
  double chi_square = 0;
  double error_consistency = 0;
  std::vector<int> rank_counts;  //!< M + 1 bins
};

/// @brief The statistics of the analysis on @p day. @p forecast HX^f and @p analysed HX^a are
/// m x M; @p variance is the true R of the observations (not what the filter assumed); the
/// rank histogram's noise comes from the streams (seed, rank histogram, analysis, member).
InnovationStatistics innovation_statistics(int day, int analysis, const Eigen::MatrixXd& forecast,
                                           const Eigen::MatrixXd& analysed,
                                           const Eigen::VectorXd& observations, double variance,
                                           std::int64_t seed);

}  // namespace mcb::ensflow
