#pragma once
/// @file
/// @brief Observation-space statistics of one analysis, sums over the observations of terms
/// each observation gives on its own (so a process can compute the terms of the observations it
/// holds, and the sums in observation order are identical for every process count and layout):
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

/// @brief One observation's terms: d^2 / (var(HX^f) + R), (y - H xbar^a) d / R and its rank.
struct ObservationTerms {
  double chi_square = 0;
  double error_consistency = 0;
  int rank = 0;
};

/// @brief The rank histogram's noise of analysis @p analysis: m x M, column j from the stream
/// (seed, rank histogram, analysis, j), standard deviation sqrt(@p variance).
Eigen::MatrixXd rank_noise(int analysis, Eigen::Index observations, Eigen::Index members,
                           double variance, std::int64_t seed);

/// @brief Observation k's terms from its M forecast and analysed values and noise (rows).
ObservationTerms observation_terms(const Eigen::RowVectorXd& forecast,
                                   const Eigen::RowVectorXd& analysed, double observation,
                                   double variance, const Eigen::RowVectorXd& noise);

/// @brief The statistics from every observation's terms, in observation order.
InnovationStatistics combine_terms(int day, const std::vector<ObservationTerms>& terms,
                                   int members);

/// @brief The statistics of the analysis on @p day. @p forecast HX^f and @p analysed HX^a are
/// m x M; @p variance is the true R of the observations (not what the filter assumed); the
/// rank histogram's noise comes from the streams (seed, rank histogram, analysis, member).
InnovationStatistics innovation_statistics(int day, int analysis, const Eigen::MatrixXd& forecast,
                                           const Eigen::MatrixXd& analysed,
                                           const Eigen::VectorXd& observations, double variance,
                                           std::int64_t seed);

}  // namespace mcb::ensflow
