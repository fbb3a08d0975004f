#include "apps/ensflow/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

namespace mcb::ensflow {

double ModelParameters::coriolis() const {
  return 2 * kEarthRotation * std::sin(latitude_deg * std::numbers::pi / 180);
}

double ModelParameters::beta() const {
  return 2 * kEarthRotation * std::cos(latitude_deg * std::numbers::pi / 180) / kEarthRadius;
}

double ModelParameters::stretching() const {
  if (deformation_radius_km <= 0) return 0;
  const double ld = deformation_radius_km * 1e3;
  return 1 / (ld * ld);
}

double ModelParameters::coupling(int layer) const {
  if (layers() == 1) return stretching();
  const double total = depth_m + lower_depth_m;
  return (layer == 0 ? lower_depth_m : depth_m) / total * stretching();
}

double resolving_viscosity(const ModelParameters& p) { return p.beta() * std::pow(p.spacing(), 3); }

int stable_steps_per_day(const ModelParameters& p) {
  const double dx = p.spacing();
  const double advective = ModelParameters::kSecondsPerDay * kAutoStepCurrent / dx;
  const double viscous =
      ModelParameters::kSecondsPerDay * p.viscosity * 8 / (dx * dx) / kAutoStepDiffusionNumber;
  return std::max(1, static_cast<int>(std::ceil(std::max(advective, viscous))));
}

QgModel::QgModel(const ModelParameters& parameters)
    : p_(parameters),
      layers_(parameters.layers()),
      points_(parameters.points()),
      n_(static_cast<std::size_t>(parameters.layers()) * parameters.points()),
      padded_size_(static_cast<std::size_t>(parameters.grid + 2) *
                   static_cast<std::size_t>(parameters.grid + 2)),
      dst_(parameters.grid) {
  const int g = p_.grid;
  const double dx = p_.spacing();
  // Eigenvalues of the five-point Laplacian with zero walls: -(4/dx^2) sin^2(k pi / (2(G+1))).
  std::vector<double> eigen(static_cast<std::size_t>(g));
  for (int k = 1; k <= g; ++k) {
    const double s = std::sin(k * std::numbers::pi / (2.0 * (g + 1)));
    eigen[static_cast<std::size_t>(k - 1)] = -4 * s * s / (dx * dx);
  }
  laplace_eigen_.resize(points_);
  inverse_eigen_.resize(points_);
  const double f = layers_ == 1 ? p_.stretching() : 0.0;
  for (int l = 0; l < g; ++l) {
    for (int k = 0; k < g; ++k) {
      const std::size_t c = static_cast<std::size_t>(l) * g + k;
      laplace_eigen_[c] = eigen[static_cast<std::size_t>(k)] + eigen[static_cast<std::size_t>(l)];
      inverse_eigen_[c] = 1.0 / ((laplace_eigen_[c] - f) * dst_.normalisation());
    }
  }
  // Double-gyre wind tau_x = -tau0 cos(2 pi y / L): curl = -tau0 (2 pi / L) sin(2 pi y / L),
  // negative in the southern half, positive in the northern half; at f0 < 0 (southern
  // hemisphere) negative curl is cyclonic, so the southern gyre is the subpolar one.
  const double length = p_.basin_km * 1e3;
  forcing_.resize(static_cast<std::size_t>(g));
  for (int j = 0; j < g; ++j) {
    const double y = (j + 1) * dx;
    forcing_[static_cast<std::size_t>(j)] = -p_.wind_stress * (2 * std::numbers::pi / length) *
                                            std::sin(2 * std::numbers::pi * y / length) /
                                            (ModelParameters::kDensity * p_.depth_m);
  }
  const std::size_t all_padded = static_cast<std::size_t>(layers_) * padded_size_;
  psi_pad_.assign(all_padded, 0.0);
  q_pad_.assign(all_padded, 0.0);
  zeta_pad_.assign(all_padded, 0.0);
  if (layers_ == 2) spectrum_.resize(points_);
  psi_.resize(n_);
  k_.resize(n_);
  acc_.resize(n_);
  stage_.resize(n_);
}

void QgModel::invert_two_layers(const double* q, double* psi) {
  // Per coefficient with Laplacian eigenvalue L: [L - F1, F1; F2, L - F2] (psi1, psi2) = (q1, q2),
  // determinant L (L - F1 - F2), never zero since L < 0.
  const double f1 = p_.coupling(0), f2 = p_.coupling(1);
  const double norm = dst_.normalisation();
  double* b = dst_.buffer();
  std::memcpy(b, q, points_ * sizeof(double));
  dst_.execute();
  std::memcpy(spectrum_.data(), b, points_ * sizeof(double));
  std::memcpy(b, q + points_, points_ * sizeof(double));
  dst_.execute();
  for (std::size_t c = 0; c < points_; ++c) {
    const double l = laplace_eigen_[c];
    const double q1 = spectrum_[c], q2 = b[c];
    const double inv = 1.0 / (l * (l - f1 - f2) * norm);
    spectrum_[c] = ((l - f2) * q1 - f1 * q2) * inv;
    b[c] = (-f2 * q1 + (l - f1) * q2) * inv;
  }
  dst_.execute();
  std::memcpy(psi + points_, b, points_ * sizeof(double));
  std::memcpy(b, spectrum_.data(), points_ * sizeof(double));
  dst_.execute();
  std::memcpy(psi, b, points_ * sizeof(double));
}

void QgModel::invert(const double* q, double* psi) {
  if (layers_ == 2) {
    invert_two_layers(q, psi);
    return;
  }
  double* b = dst_.buffer();
  std::memcpy(b, q, n_ * sizeof(double));
  dst_.execute();
  for (std::size_t c = 0; c < n_; ++c) b[c] *= inverse_eigen_[c];
  dst_.execute();
  std::memcpy(psi, b, n_ * sizeof(double));
}

void QgModel::apply_operator(const double* psi, double* q) const {
  const int g = p_.grid;
  const double inv_dx2 = 1 / (p_.spacing() * p_.spacing());
  const std::vector<double> zeros(static_cast<std::size_t>(g), 0.0);  // the walls' rows
  for (int layer = 0; layer < layers_; ++layer) {
    const double f = p_.coupling(layer);
    const double* own = psi + static_cast<std::size_t>(layer) * points_;
    // The other layer's psi, or zero for the 1.5-layer model's resting lower layer.
    const double* other =
        layers_ == 2 ? psi + static_cast<std::size_t>(1 - layer) * points_ : nullptr;
    for (int j = 0; j < g; ++j) {
      const std::size_t at = static_cast<std::size_t>(j) * g;
      const double* row = own + at;
      const double* south = j > 0 ? row - g : zeros.data();
      const double* north = j + 1 < g ? row + g : zeros.data();
      double* out = q + static_cast<std::size_t>(layer) * points_ + at;
      for (int i = 0; i < g; ++i) {
        const double west = i > 0 ? row[i - 1] : 0.0;
        const double east = i + 1 < g ? row[i + 1] : 0.0;
        const double below = other != nullptr ? other[at + i] : 0.0;
        out[i] = (west + east + south[i] + north[i] - 4 * row[i]) * inv_dx2 + f * (below - row[i]);
      }
    }
  }
}

void QgModel::load(const double* q) {
  const int g = p_.grid;
  invert(q, psi_.data());
  for (int layer = 0; layer < layers_; ++layer) {
    const std::size_t base = static_cast<std::size_t>(layer) * points_;
    const double* psi = psi_.data() + base;
    const double* ql = q + base;
    for (int j = 0; j < g; ++j) {
      const std::size_t at = static_cast<std::size_t>(j) * g;
      std::memcpy(&psi_pad_[padded(0, j, layer)], psi + at, g * sizeof(double));
      std::memcpy(&q_pad_[padded(0, j, layer)], ql + at, g * sizeof(double));
    }
  }
}

void QgModel::add_advection(double* dq) const {
  const int g = p_.grid;
  const std::ptrdiff_t s = g + 2;
  const double scale = 1.0 / (12 * p_.spacing() * p_.spacing());
  for (int row = 0; row < layers_ * g; ++row) {
    const int layer = row / g, j = row % g;
    const double* ps = &psi_pad_[padded(0, j, layer)];
    const double* qs = &q_pad_[padded(0, j, layer)];
    double* out = dq + static_cast<std::size_t>(layer) * points_ + static_cast<std::size_t>(j) * g;
    for (int i = 0; i < g; ++i) {
      const double pe = ps[i + 1], pw = ps[i - 1], pn = ps[i + s], pso = ps[i - s];
      const double pne = ps[i + s + 1], pnw = ps[i + s - 1], pse = ps[i - s + 1],
                   psw = ps[i - s - 1];
      const double qe = qs[i + 1], qw = qs[i - 1], qn = qs[i + s], qso = qs[i - s];
      const double qne = qs[i + s + 1], qnw = qs[i + s - 1], qse = qs[i - s + 1],
                   qsw = qs[i - s - 1];
      const double jpp = (pe - pw) * (qn - qso) - (pn - pso) * (qe - qw);
      const double jpx = pe * (qne - qse) - pw * (qnw - qsw) - pn * (qne - qnw) + pso * (qse - qsw);
      const double jxp = qn * (pne - pnw) - qso * (pse - psw) - qe * (pne - pse) + qw * (pnw - psw);
      out[i] -= (jpp + jpx + jxp) * scale;
    }
  }
}

void QgModel::advection(const double* q, double* dq) {
  load(q);
  std::memset(dq, 0, n_ * sizeof(double));
  add_advection(dq);
}

void QgModel::tendency(const double* q, double* dq) {
  load(q);
  for (int layer = 0; layer < layers_; ++layer) add_dissipation(layer, dq);
  add_advection(dq);
}

// Wind (upper layer), beta, bottom drag (lowest layer) and viscosity of one layer into dq.
void QgModel::add_dissipation(int layer, double* dq) {
  const int g = p_.grid;
  const std::ptrdiff_t s = g + 2;
  const double dx = p_.spacing();
  const double f = p_.coupling(layer);
  // Relative vorticity zeta = q - F (psi_other - psi) (psi_other = 0 with one layer); on the
  // walls zero (free slip) or Thom's 2 psi_next / dx^2 (no slip: the tangential velocity
  // vanishes at the wall), which only the viscous term sees.
  const int other = layers_ == 2 ? 1 - layer : -1;
  for (int j = 0; j < g; ++j) {
    const double* ps = &psi_pad_[padded(0, j, layer)];
    const double* po = other >= 0 ? &psi_pad_[padded(0, j, other)] : nullptr;
    const double* qs = &q_pad_[padded(0, j, layer)];
    double* z = &zeta_pad_[padded(0, j, layer)];
    for (int i = 0; i < g; ++i) z[i] = qs[i] - f * ((po != nullptr ? po[i] : 0.0) - ps[i]);
  }
  if (p_.no_slip) {
    const double wall = 2 / (dx * dx);
    for (int k = 0; k < g; ++k) {
      zeta_pad_[padded(-1, k, layer)] = wall * psi_pad_[padded(0, k, layer)];
      zeta_pad_[padded(g, k, layer)] = wall * psi_pad_[padded(g - 1, k, layer)];
      zeta_pad_[padded(k, -1, layer)] = wall * psi_pad_[padded(k, 0, layer)];
      zeta_pad_[padded(k, g, layer)] = wall * psi_pad_[padded(k, g - 1, layer)];
    }
  }
  const double beta_term = p_.beta() / (2 * dx);
  const bool bottom = layer == layers_ - 1;
  const double drag =
      bottom && p_.drag_days > 0 ? 1.0 / (p_.drag_days * ModelParameters::kSecondsPerDay) : 0.0;
  const double visc = p_.viscosity / (dx * dx);
  for (int j = 0; j < g; ++j) {
    const double* ps = &psi_pad_[padded(0, j, layer)];
    const double* z = &zeta_pad_[padded(0, j, layer)];
    const double wind = layer == 0 ? forcing_[static_cast<std::size_t>(j)] : 0.0;
    double* out = dq + static_cast<std::size_t>(layer) * points_ + static_cast<std::size_t>(j) * g;
    for (int i = 0; i < g; ++i) {
      const double lap = z[i + 1] + z[i - 1] + z[i + s] + z[i - s] - 4 * z[i];
      out[i] = wind - beta_term * (ps[i + 1] - ps[i - 1]) - drag * z[i] + visc * lap;
    }
  }
}

void QgModel::step(double* q) {
  const double dt = p_.time_step();
  double* k = k_.data();
  double* acc = acc_.data();
  double* y = stage_.data();

  tendency(q, k);
  for (std::size_t c = 0; c < n_; ++c) {
    acc[c] = k[c];
    y[c] = q[c] + 0.5 * dt * k[c];
  }
  tendency(y, k);
  for (std::size_t c = 0; c < n_; ++c) {
    acc[c] += 2 * k[c];
    y[c] = q[c] + 0.5 * dt * k[c];
  }
  tendency(y, k);
  for (std::size_t c = 0; c < n_; ++c) {
    acc[c] += 2 * k[c];
    y[c] = q[c] + dt * k[c];
  }
  tendency(y, k);
  for (std::size_t c = 0; c < n_; ++c) q[c] += dt / 6 * (acc[c] + k[c]);
}

void QgModel::advance_day(double* q) {
  for (int s = 0; s < p_.steps_per_day; ++s) step(q);
}

double QgModel::energy(const double* q) {
  invert(q, psi_.data());
  // Summation by parts with psi = 0 on the walls: -sum psi q is the kinetic energy plus the
  // interface's potential energy; the layers weigh by their depths.
  double total = 0;
  for (int layer = 0; layer < layers_; ++layer) {
    const std::size_t base = static_cast<std::size_t>(layer) * points_;
    double sum = 0;
    for (std::size_t c = base; c < base + points_; ++c) sum += psi_[c] * q[c];
    const double weight = layers_ == 1 ? 1.0
                                       : (layer == 0 ? p_.depth_m : p_.lower_depth_m) /
                                             (p_.depth_m + p_.lower_depth_m);
    total += weight * sum;
  }
  return -0.5 * total / static_cast<double>(points_);
}

double QgModel::enstrophy(const double* q) const {
  double sum = 0;
  for (std::size_t c = 0; c < n_; ++c) sum += q[c] * q[c];
  return 0.5 * sum / static_cast<double>(n_);
}

}  // namespace mcb::ensflow
