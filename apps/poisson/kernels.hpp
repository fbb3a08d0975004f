#pragma once
/// @file
/// @brief Red-black Gauss-Seidel (with over-relaxation omega; omega = 1 is plain Gauss-Seidel)
/// sweeps over one process's rectangle. Black points have even x + y (global indices), red
/// odd. Every point update is
///   gs = 0.25 * ((west + east) + (south + north) + h^2 f);  delta = gs - u;  u = u + omega * delta
/// in exactly this order, in every kernel, so kernels agree bit for bit. Each returns the
/// largest |delta| it saw; 4 |delta| / h^2 is the point's residual before the update.

#include "apps/poisson/decomposition.hpp"

namespace mcb::poisson {

inline constexpr int kBlack = 0;
inline constexpr int kRed = 1;

/// @brief Reference sweep over one colour: the plain double loop with a colour test.
/// FROZEN: the tuned kernels are checked against it; do not change or optimise it.
double sweep_colour_reference(Field& u, const Field& h2f, const Subdomain& s, int colour,
                              double omega);

/// @brief Reference iteration: every black point, then every red point. FROZEN.
double sweep_both_reference(Field& u, const Field& h2f, const Subdomain& s, double omega);

/// @brief Tuned sweep over one colour: unit work per point, no colour tests.
double sweep_colour_tuned(Field& u, const Field& h2f, const Subdomain& s, int colour,
                          double omega);

/// @brief Tuned iteration: black then red in one pass over memory (black row j is followed by
/// red row j - 1, whose black neighbours are then final), the same updates as
/// sweep_both_reference.
double sweep_both_tuned(Field& u, const Field& h2f, const Subdomain& s, double omega);

}  // namespace mcb::poisson
