#include "apps/ensflow/innovations.hpp"

#include "apps/ensflow/random.hpp"

#include <cmath>

namespace mcb::ensflow {

InnovationStatistics innovation_statistics(int day, int analysis, const Eigen::MatrixXd& forecast,
                                           const Eigen::MatrixXd& analysed,
                                           const Eigen::VectorXd& observations, double variance,
                                           std::int64_t seed) {
  const Eigen::Index m = forecast.rows();
  const Eigen::Index n = forecast.cols();
  InnovationStatistics s;
  s.day = day;
  s.observations = static_cast<int>(m);
  s.rank_counts.assign(static_cast<std::size_t>(n) + 1, 0);
  const Eigen::VectorXd mean_f = forecast.rowwise().mean();
  const Eigen::VectorXd mean_a = analysed.rowwise().mean();
  const Eigen::MatrixXd anomalies = forecast.colwise() - mean_f;
  const Eigen::VectorXd var = anomalies.rowwise().squaredNorm() / static_cast<double>(n - 1);
  // Noise per member: one stream per (analysis, member), drawn for every observation.
  Eigen::MatrixXd noise(m, n);
  const double sigma = std::sqrt(variance);
  for (Eigen::Index j = 0; j < n; ++j) {
    KeyedStream stream(seed, StreamPurpose::rank_histogram, static_cast<std::uint64_t>(analysis),
                       static_cast<std::uint64_t>(j));
    for (Eigen::Index k = 0; k < m; ++k) noise(k, j) = sigma * stream.normal();
  }
  double chi = 0;
  double consistency = 0;
  for (Eigen::Index k = 0; k < m; ++k) {
    const double d = observations[k] - mean_f[k];
    chi += d * d / (var[k] + variance);
    consistency += (observations[k] - mean_a[k]) * d / variance;
    int below = 0;
    for (Eigen::Index j = 0; j < n; ++j) below += forecast(k, j) + noise(k, j) < observations[k];
    ++s.rank_counts[static_cast<std::size_t>(below)];
  }
  s.chi_square = chi / static_cast<double>(m);
  s.error_consistency = consistency / static_cast<double>(m);
  return s;
}

}  // namespace mcb::ensflow
