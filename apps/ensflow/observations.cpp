#include "apps/ensflow/observations.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <string>

namespace mcb::ensflow {

ObservationNetwork::ObservationNetwork(const ModelParameters& model, std::size_t count,
                                       double variance, std::int64_t truth_seed)
    : variance_(variance), ssh_per_psi_(model.ssh_per_streamfunction()) {
  const std::size_t points =
      static_cast<std::size_t>(model.grid) * static_cast<std::size_t>(model.grid);
  if (count > points) {
    throw std::invalid_argument(std::to_string(count) + " observations on " +
                                std::to_string(points) + " grid points");
  }
  // Partial Fisher-Yates shuffle: the first `count` entries are a uniform sample.
  std::vector<std::size_t> all(points);
  std::iota(all.begin(), all.end(), std::size_t{0});
  KeyedStream stream(truth_seed, StreamPurpose::observation_sites);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(stream.below(points - i));
    std::swap(all[i], all[j]);
  }
  sites_.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count));
  std::sort(sites_.begin(), sites_.end());
}

void ObservationNetwork::observe(const double* psi, double* out) const {
  for (std::size_t k = 0; k < sites_.size(); ++k) out[k] = ssh_per_psi_ * psi[sites_[k]];
}

Eigen::VectorXd ObservationNetwork::synthetic(const double* true_psi, std::int64_t truth_seed,
                                              int analysis) const {
  Eigen::VectorXd y(static_cast<Eigen::Index>(count()));
  observe(true_psi, y.data());
  KeyedStream stream(truth_seed, StreamPurpose::observation_error,
                     static_cast<std::uint64_t>(analysis));
  const double sigma = std::sqrt(variance_);
  for (Eigen::Index k = 0; k < y.size(); ++k) y[k] += sigma * stream.normal();
  return y;
}

Eigen::MatrixXd ObservationNetwork::perturbations(std::int64_t seed, int analysis,
                                                  int members) const {
  const auto m = static_cast<Eigen::Index>(count());
  Eigen::MatrixXd e(m, members);
  const double sigma = std::sqrt(variance_);
  for (int j = 0; j < members; ++j) {
    KeyedStream stream(seed, StreamPurpose::observation_perturbation,
                       static_cast<std::uint64_t>(analysis), static_cast<std::uint64_t>(j));
    for (Eigen::Index k = 0; k < m; ++k) e(k, j) = sigma * stream.normal();
  }
  return e;
}

PerturbationField::PerturbationField(const ModelParameters& model, double ssh_spread_m,
                                     double length_km)
    : grid_(model.grid), dst_(model.grid) {
  const int g = grid_;
  const double length = model.basin_km * 1e3;
  const double ell = length_km * 1e3;
  amplitude_.resize(static_cast<std::size_t>(g) * static_cast<std::size_t>(g));
  double expected = 0;  // sum of squared amplitudes
  for (int l = 1; l <= g; ++l) {
    for (int k = 1; k <= g; ++k) {
      const double kappa2 =
          std::pow(k * std::numbers::pi / length, 2) + std::pow(l * std::numbers::pi / length, 2);
      const double a = std::exp(-kappa2 * ell * ell / 4);
      amplitude_[static_cast<std::size_t>(l - 1) * g + (k - 1)] = a;
      expected += a * a;
    }
  }
  // psi_ij = sum c_kl sin(pi k i/(G+1)) sin(pi l j/(G+1)) has basin-mean square
  // sum c_kl^2 ((G+1)/2)^2 / G^2 in expectation; FFTW's RODFT00 adds a factor 2 per direction.
  const double mean_square = expected * std::pow((g + 1) / 2.0, 2) / (static_cast<double>(g) * g);
  const double psi_spread = ssh_spread_m / std::fabs(model.ssh_per_streamfunction());
  const double scale = psi_spread / std::sqrt(mean_square) / 4.0;
  for (double& a : amplitude_) a *= scale;
  psi_.resize(amplitude_.size());
}

void PerturbationField::draw(KeyedStream& stream, const QgModel& model, double* q_out) {
  double* b = dst_.buffer();
  for (std::size_t c = 0; c < amplitude_.size(); ++c) b[c] = amplitude_[c] * stream.normal();
  dst_.execute();
  // The same departure in every layer (a depth-independent one); the dynamics make the
  // baroclinic part.
  const std::size_t layer = amplitude_.size();
  psi_.resize(model.size());
  for (std::size_t at = 0; at < psi_.size(); at += layer) {
    std::memcpy(psi_.data() + at, b, layer * sizeof(double));
  }
  model.apply_operator(psi_.data(), q_out);
}

}  // namespace mcb::ensflow
