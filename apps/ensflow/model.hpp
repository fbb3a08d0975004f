#pragma once
/// @file
/// @brief The ocean model every ensemble member runs: a two-layer, 1.5-layer (equivalent-
/// barotropic) or barotropic quasi-geostrophic model of a closed square basin on a beta-plane,
/// driven by a double-gyre wind (a subtropical and a subpolar gyre with a western boundary
/// current between them). Per layer i (1: upper, wind-driven; 2: lower, with bottom drag):
///
///   dq_i/dt = -J(psi_i, q_i) - beta dpsi_i/dx + [i=1] curl(tau) / (rho H1)
///             - [i=bottom] r zeta_i + A Laplace(zeta_i),          zeta_i = Laplace(psi_i)
///   two layers: q1 = zeta1 + F1 (psi2 - psi1),  q2 = zeta2 + F2 (psi1 - psi2),
///               F1 = H2 / (H Ld^2),  F2 = H1 / (H Ld^2),  H = H1 + H2
///   1.5 layers: q = zeta - psi / Ld^2 (lower layer at rest);  barotropic: q = zeta
///
/// The two-layer model is the classic eddying double gyre (Holland 1978): the vertical shear of
/// the wind-driven jet is baroclinically unstable at scales of Ld, so the flow sheds eddies and
/// is chaotic. A state holds the layers one after another (G*G values each, upper first).
///
/// on G x G interior points of spacing dx = L / (G + 1), with psi = 0 on the walls (no normal
/// flow) and, in the viscous term, the wall vorticity of no slip (Thom: 2 psi_next / dx^2) or of
/// free slip (zero). The Jacobian is Arakawa's, which conserves the discrete energy
/// and enstrophy; the Laplacian is the five-point stencil; time stepping is classical RK4. The
/// inversion q -> psi uses the 2-D sine transform (FFTW): the sine basis is exactly the
/// eigenbasis of the five-point Laplacian with these walls, so the inverse is exact to rounding.
/// Without a deformation radius (Ld = 0 here means infinite) the model is the barotropic
/// vorticity equation. The two-layer inversion solves a 2x2 system per sine coefficient.

#include "apps/ensflow/sine_transform.hpp"

#include <cstddef>
#include <vector>

namespace mcb::ensflow {

/// @brief Physical settings of the model, in SI units unless the name says otherwise.
struct ModelParameters {
  int grid = 63;                      //!< interior points per side (G)
  double basin_km = 1000;             //!< side of the square basin
  double depth_m = 500;               //!< depth of the layer the wind drives (H1)
  double lower_depth_m = 3500;        //!< H2 of a moving lower layer; 0: none (1.5-layer)
  double latitude_deg = -35;          //!< centre of the beta-plane (sets f0 and beta)
  double wind_stress = 0.1;           //!< peak zonal wind stress, N/m^2
  double deformation_radius_km = 30;  //!< Rossby radius Ld; 0 = barotropic (infinite)
  double drag_days = 30;              //!< linear bottom-drag time scale 1/r, days (0: none);
                                      //!< acts on the lowest layer
  double viscosity = 0;               //!< lateral (Laplacian) viscosity A, m^2/s
  int steps_per_day = 24;             //!< model time steps per day
  bool no_slip = true;                //!< walls: no slip (Thom's wall vorticity) or free slip

  static constexpr double kGravity = 9.81;             //!< m/s^2
  static constexpr double kDensity = 1025;             //!< sea water, kg/m^3
  static constexpr double kEarthRotation = 7.2921e-5;  //!< rad/s
  static constexpr double kEarthRadius = 6.371e6;      //!< m
  static constexpr double kSecondsPerDay = 86400;

  double spacing() const { return basin_km * 1e3 / (grid + 1); }       //!< dx, m
  double coriolis() const;                                             //!< f0, 1/s
  double beta() const;                                                 //!< df/dy, 1/(m s)
  double time_step() const { return kSecondsPerDay / steps_per_day; }  //!< s
  /// @brief 2 with a deformation radius and a moving lower layer, else 1.
  int layers() const { return deformation_radius_km > 0 && lower_depth_m > 0 ? 2 : 1; }
  /// @brief Grid points per layer, G*G.
  std::size_t points() const {
    return static_cast<std::size_t>(grid) * static_cast<std::size_t>(grid);
  }
  /// @brief 1 / Ld^2 (0 when barotropic), 1/m^2.
  double stretching() const;
  /// @brief F_i of layer @p layer (0 upper, 1 lower): the two-layer coupling, or 1 / Ld^2 with
  /// one layer (where the "other layer" is at rest), 1/m^2.
  double coupling(int layer) const;
  /// @brief Sea-surface height per unit streamfunction, f0 / g (s/m).
  double ssh_per_streamfunction() const { return coriolis() / kGravity; }
};

/// @brief The viscosity "auto" picks: the Munk boundary layer (A / beta)^(1/3) spans one grid
/// spacing, A = beta dx^3, the least viscosity that keeps grid-scale noise out of the western
/// boundary current (one spacing is coarser than the usual two); any more damps the eddies the
/// two-layer flow sheds at G = 63 (apps/ensflow/README.md, "Regime").
double resolving_viscosity(const ModelParameters& parameters);

inline constexpr double kAutoStepCurrent = 2.0;  //!< m/s, see stable_steps_per_day
inline constexpr double kAutoStepDiffusionNumber =
    1.5;  //!< A dt 8 / dx^2, see stable_steps_per_day

/// @brief The steps per day "auto" picks: the fewest for which a 2 m/s current moves at most
/// one grid spacing per step (RK4 with centred advection is stable up to a Courant number near
/// 2.8, so this leaves room for faster jets) and the viscous term stays well inside RK4's
/// stability interval (A dt 8 / dx^2 <= 1.5 of the 2.78 allowed). Uses parameters.viscosity.
int stable_steps_per_day(const ModelParameters& parameters);

/// @brief The model's numerics for one grid, with the work arrays one member needs. A rank
/// keeps one and runs its members through it one after another.
class QgModel {
 public:
  explicit QgModel(const ModelParameters& parameters);

  const ModelParameters& parameters() const { return p_; }
  int grid() const { return p_.grid; }
  /// @brief Values in a state: layers x G*G, row-major per layer (row j is y, column i is x).
  std::size_t size() const { return n_; }
  /// @brief Values in one layer, G*G; the upper layer (the one SSH sees) comes first.
  std::size_t layer_size() const { return points_; }

  /// @brief psi from q: the sine-transform solution of (Laplace_h - 1/Ld^2) psi = q.
  void invert(const double* q, double* psi);
  /// @brief q from psi: the five-point (Laplace_h - 1/Ld^2) with zero walls; exactly undoes
  /// invert() up to rounding.
  void apply_operator(const double* psi, double* q) const;

  /// @brief dq/dt of the full model at @p q.
  void tendency(const double* q, double* dq);
  /// @brief Only the advection -J(psi, q) (Arakawa), for conservation checks.
  void advection(const double* q, double* dq);

  /// @brief One RK4 step of time_step() seconds, in place.
  void step(double* q);
  /// @brief steps_per_day steps: one day.
  void advance_day(double* q);

  /// @brief Energy per unit mass, the basin mean of (|grad psi|^2 + psi^2 / Ld^2) / 2 (m^2/s^2);
  /// with two layers the depth-weighted mean of the layers' kinetic energies plus the
  /// interface's potential energy, (H1 |grad psi1|^2 + H2 |grad psi2|^2 + H1 F1 (psi1 - psi2)^2)
  /// / (2 H).
  double energy(const double* q);
  /// @brief Potential enstrophy, the basin (and layer) mean of q^2 / 2 (1/s^2).
  double enstrophy(const double* q) const;

 private:
  std::size_t padded(int i, int j, int layer = 0) const {
    return static_cast<std::size_t>(layer) * padded_size_ +
           static_cast<std::size_t>(j + 1) * static_cast<std::size_t>(p_.grid + 2) +
           static_cast<std::size_t>(i + 1);
  }
  // Inverts q, then psi into psi_pad_ and q into q_pad_ (interior); walls stay zero.
  void load(const double* q);
  void add_advection(double* dq) const;
  void add_dissipation(int layer, double* dq);
  void invert_two_layers(const double* q, double* psi);

  ModelParameters p_;
  int layers_;
  std::size_t points_;       // G*G
  std::size_t n_;            // layers_ * points_
  std::size_t padded_size_;  // (G+2)^2
  SineTransform2D dst_;
  std::vector<double> laplace_eigen_;  // eigenvalue of the five-point Laplacian, per coefficient
  std::vector<double> inverse_eigen_;  // 1 / ((eigenvalue - 1/Ld^2) * normalisation)
  std::vector<double> spectrum_;       // the upper layer's coefficients (two layers)
  std::vector<double> forcing_;        // curl(tau) / (rho H), per row
  std::vector<double> psi_pad_, q_pad_, zeta_pad_;
  std::vector<double> psi_;              // streamfunction of the state being loaded
  std::vector<double> k_, acc_, stage_;  // RK4 work arrays
};

}  // namespace mcb::ensflow
