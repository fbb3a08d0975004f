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
double sweep_colour_tuned(Field& u, const Field& h2f, const Subdomain& s, int colour, double omega);

/// @brief Tuned sweep over one colour's interior points, those with no halo neighbour
/// (2 <= i <= nx - 1, 2 <= j <= ny - 1): it reads nothing a border exchange writes, so it can
/// run while one is in flight (--halo overlap). With sweep_colour_border_tuned, the same
/// updates as sweep_colour_tuned, bit for bit (a colour's points read only the other colour).
double sweep_colour_interior_tuned(Field& u, const Field& h2f, const Subdomain& s, int colour,
                                   double omega);
/// @brief Tuned sweep over one colour's border points: rows 1 and ny, columns 1 and nx.
double sweep_colour_border_tuned(Field& u, const Field& h2f, const Subdomain& s, int colour,
                                 double omega);

/// @brief The left and right borders of a rectangle in contiguous arrays (index j - 1 for local
/// row j), so that exchanging them needs no strided gathers from the row-major field: the
/// sweep writes each neighbour's incoming column into the halo just before it reaches that row
/// and copies its own final border values out as each row is finished, while the rows are in
/// cache. A null pointer means no neighbour on that side (the halo holds the boundary).
struct ColumnBorders {
  const double* west_in = nullptr;  //!< values for halo column 0
  const double* east_in = nullptr;  //!< values for halo column nx + 1
  double* west_out = nullptr;       //!< receives local column 1 after the sweep
  double* east_out = nullptr;       //!< receives local column nx after the sweep
};

/// @brief Tuned iteration: black then red in one pass over memory (black row j is followed by
/// red row j - 1, whose black neighbours are then final), the same updates as
/// sweep_both_reference.
double sweep_both_tuned(Field& u, const Field& h2f, const Subdomain& s, double omega);

/// @brief As above, reading the column halos from and writing the column borders to
/// @p borders on the way (the same updates and result).
double sweep_both_tuned(Field& u, const Field& h2f, const Subdomain& s, double omega,
                        const ColumnBorders& borders);

/// @brief The outcome of sweep_two_tuned: each iteration's largest |delta|, and whether the
/// second iteration ran.
struct TwoSweeps {
  double first = 0;
  double second = 0;  //!< 0 when the second did not run
  bool both = false;
};

/// @brief Two whole iterations in one pass over memory (temporal blocking): the second
/// iteration's step j (black row j, red row j - 1) trails the first's by two rows, so each row
/// is updated twice while in cache and each pair of iterations streams u and h^2 f once. The
/// same updates, in the same order per row, as two calls of sweep_both_tuned, so the field and
/// both results are bit for bit theirs (and the reference's).
///
/// The halos must stay as they are between the two iterations: a rectangle with no neighbour
/// (the Dirichlet boundary all round), or a caller that accepts stale neighbour halos.
///
/// The second iteration runs only once the first's largest |delta| so far exceeds @p gate: a
/// solver that stops when an iteration's largest |delta| is at most its limit passes the limit,
/// so the second runs only when the first cannot be the last. Rows the first passed before
/// that are caught up by the second then (read from memory again). With gate < 0 both always
/// run. When the second does not run, the field is that of one sweep_both_tuned.
TwoSweeps sweep_two_tuned(Field& u, const Field& h2f, const Subdomain& s, double omega,
                          double gate);

}  // namespace mcb::poisson
