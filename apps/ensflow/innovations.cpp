#include "apps/ensflow/innovations.hpp"

#include "apps/ensflow/letkf.hpp"
#include "apps/ensflow/random.hpp"

#include <cmath>

namespace mcb::ensflow {

Eigen::MatrixXd rank_noise(int analysis, Eigen::Index observations, Eigen::Index members,
                           double variance, std::int64_t seed) {
  // Noise per member: one stream per (analysis, member), drawn for every observation.
  Eigen::MatrixXd noise(observations, members);
  const double sigma = std::sqrt(variance);
  for (Eigen::Index j = 0; j < members; ++j) {
    KeyedStream stream(seed, StreamPurpose::rank_histogram, static_cast<std::uint64_t>(analysis),
                       static_cast<std::uint64_t>(j));
    for (Eigen::Index k = 0; k < observations; ++k) noise(k, j) = sigma * stream.normal();
  }
  return noise;
}

ObservationTerms observation_terms(const Eigen::RowVectorXd& forecast,
                                   const Eigen::RowVectorXd& analysed, double observation,
                                   double variance, const Eigen::RowVectorXd& noise) {
  const Eigen::Index n = forecast.size();
  const double mean_f = plain_mean(forecast.data(), n, 1);
  const double mean_a = plain_mean(analysed.data(), n, 1);
  double squares = 0;
  for (Eigen::Index j = 0; j < n; ++j) squares += (forecast[j] - mean_f) * (forecast[j] - mean_f);
  const double var = squares / static_cast<double>(n - 1);
  const double d = observation - mean_f;
  ObservationTerms t;
  t.chi_square = d * d / (var + variance);
  t.error_consistency = (observation - mean_a) * d / variance;
  for (Eigen::Index j = 0; j < n; ++j) t.rank += forecast[j] + noise[j] < observation;
  return t;
}

InnovationStatistics combine_terms(int day, const std::vector<ObservationTerms>& terms,
                                   int members) {
  InnovationStatistics s;
  s.day = day;
  s.observations = static_cast<int>(terms.size());
  s.rank_counts.assign(static_cast<std::size_t>(members) + 1, 0);
  double chi = 0;
  double consistency = 0;
  for (const ObservationTerms& t : terms) {
    chi += t.chi_square;
    consistency += t.error_consistency;
    ++s.rank_counts[static_cast<std::size_t>(t.rank)];
  }
  s.chi_square = chi / static_cast<double>(terms.size());
  s.error_consistency = consistency / static_cast<double>(terms.size());
  return s;
}

InnovationStatistics innovation_statistics(int day, int analysis, const Eigen::MatrixXd& forecast,
                                           const Eigen::MatrixXd& analysed,
                                           const Eigen::VectorXd& observations, double variance,
                                           std::int64_t seed) {
  const Eigen::Index m = forecast.rows();
  const Eigen::Index n = forecast.cols();
  const Eigen::MatrixXd noise = rank_noise(analysis, m, n, variance, seed);
  std::vector<ObservationTerms> terms;
  for (Eigen::Index k = 0; k < m; ++k) {
    terms.push_back(observation_terms(forecast.row(k), analysed.row(k), observations[k], variance,
                                      noise.row(k)));
  }
  return combine_terms(day, terms, static_cast<int>(n));
}

}  // namespace mcb::ensflow
