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

double resolving_viscosity(const ModelParameters& p) {
  return p.beta() * std::pow(1.5 * p.spacing(), 3);
}

int stable_steps_per_day(const ModelParameters& p) {
  const double dx = p.spacing();
  const double advective = ModelParameters::kSecondsPerDay * kAutoStepCurrent / dx;
  const double viscous =
      ModelParameters::kSecondsPerDay * p.viscosity * 8 / (dx * dx) / kAutoStepDiffusionNumber;
  return std::max(1, static_cast<int>(std::ceil(std::max(advective, viscous))));
}

QgModel::QgModel(const ModelParameters& parameters)
    : p_(parameters),
      n_(static_cast<std::size_t>(parameters.grid) * static_cast<std::size_t>(parameters.grid)),
      dst_(parameters.grid) {
  const int g = p_.grid;
  const double dx = p_.spacing();
  // Eigenvalues of the five-point Laplacian with zero walls: -(4/dx^2) sin^2(k pi / (2(G+1))).
  std::vector<double> eigen(static_cast<std::size_t>(g));
  for (int k = 1; k <= g; ++k) {
    const double s = std::sin(k * std::numbers::pi / (2.0 * (g + 1)));
    eigen[static_cast<std::size_t>(k - 1)] = -4 * s * s / (dx * dx);
  }
  inverse_eigen_.resize(n_);
  const double f = p_.stretching();
  for (int l = 0; l < g; ++l) {
    for (int k = 0; k < g; ++k) {
      inverse_eigen_[static_cast<std::size_t>(l) * g + k] =
          1.0 / ((eigen[static_cast<std::size_t>(k)] + eigen[static_cast<std::size_t>(l)] - f) *
                 dst_.normalisation());
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
  const std::size_t padded_size = static_cast<std::size_t>(g + 2) * static_cast<std::size_t>(g + 2);
  psi_pad_.assign(padded_size, 0.0);
  q_pad_.assign(padded_size, 0.0);
  zeta_pad_.assign(padded_size, 0.0);
  psi_.resize(n_);
  k_.resize(n_);
  acc_.resize(n_);
  stage_.resize(n_);
}

void QgModel::invert(const double* q, double* psi) {
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
  const double f = p_.stretching();
  const std::vector<double> zeros(static_cast<std::size_t>(g), 0.0);  // the walls' rows
  for (int j = 0; j < g; ++j) {
    const double* row = psi + static_cast<std::size_t>(j) * g;
    const double* south = j > 0 ? row - g : zeros.data();
    const double* north = j + 1 < g ? row + g : zeros.data();
    double* out = q + static_cast<std::size_t>(j) * g;
    for (int i = 0; i < g; ++i) {
      const double west = i > 0 ? row[i - 1] : 0.0;
      const double east = i + 1 < g ? row[i + 1] : 0.0;
      out[i] = (west + east + south[i] + north[i] - 4 * row[i]) * inv_dx2 - f * row[i];
    }
  }
}

void QgModel::load(const double* q) {
  const int g = p_.grid;
  invert(q, psi_.data());
  const double* psi = psi_.data();
  for (int j = 0; j < g; ++j) {
    std::memcpy(&psi_pad_[padded(0, j)], psi + static_cast<std::size_t>(j) * g, g * sizeof(double));
    std::memcpy(&q_pad_[padded(0, j)], q + static_cast<std::size_t>(j) * g, g * sizeof(double));
  }
}

void QgModel::add_advection(double* dq) const {
  const int g = p_.grid;
  const std::ptrdiff_t s = g + 2;
  const double scale = 1.0 / (12 * p_.spacing() * p_.spacing());
  for (int j = 0; j < g; ++j) {
    const double* ps = &psi_pad_[padded(0, j)];
    const double* qs = &q_pad_[padded(0, j)];
    double* out = dq + static_cast<std::size_t>(j) * g;
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
  const int g = p_.grid;
  const std::ptrdiff_t s = g + 2;
  const double dx = p_.spacing();
  const double f = p_.stretching();
  // Relative vorticity zeta = q + psi / Ld^2; on the walls zero (free slip) or Thom's
  // 2 psi_next / dx^2 (no slip: the tangential velocity vanishes at the wall), which only the
  // viscous term sees.
  for (int j = 0; j < g; ++j) {
    const double* ps = &psi_pad_[padded(0, j)];
    const double* qs = &q_pad_[padded(0, j)];
    double* z = &zeta_pad_[padded(0, j)];
    for (int i = 0; i < g; ++i) z[i] = qs[i] + f * ps[i];
  }
  if (p_.no_slip) {
    const double wall = 2 / (dx * dx);
    for (int k = 0; k < g; ++k) {
      zeta_pad_[padded(-1, k)] = wall * psi_pad_[padded(0, k)];
      zeta_pad_[padded(g, k)] = wall * psi_pad_[padded(g - 1, k)];
      zeta_pad_[padded(k, -1)] = wall * psi_pad_[padded(k, 0)];
      zeta_pad_[padded(k, g)] = wall * psi_pad_[padded(k, g - 1)];
    }
  }
  const double beta_term = p_.beta() / (2 * dx);
  const double drag =
      p_.drag_days > 0 ? 1.0 / (p_.drag_days * ModelParameters::kSecondsPerDay) : 0.0;
  const double visc = p_.viscosity / (dx * dx);
  for (int j = 0; j < g; ++j) {
    const double* ps = &psi_pad_[padded(0, j)];
    const double* z = &zeta_pad_[padded(0, j)];
    const double wind = forcing_[static_cast<std::size_t>(j)];
    double* out = dq + static_cast<std::size_t>(j) * g;
    for (int i = 0; i < g; ++i) {
      const double lap = z[i + 1] + z[i - 1] + z[i + s] + z[i - s] - 4 * z[i];
      out[i] = wind - beta_term * (ps[i + 1] - ps[i - 1]) - drag * z[i] + visc * lap;
    }
  }
  add_advection(dq);
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
  double sum = 0;
  for (std::size_t c = 0; c < n_; ++c) sum += psi_[c] * q[c];
  return -0.5 * sum / static_cast<double>(n_);
}

double QgModel::enstrophy(const double* q) const {
  double sum = 0;
  for (std::size_t c = 0; c < n_; ++c) sum += q[c] * q[c];
  return 0.5 * sum / static_cast<double>(n_);
}

}  // namespace mcb::ensflow
