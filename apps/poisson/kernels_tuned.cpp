// Tuned sweeps. Same updates in the same order per point as kernels_reference.cpp; faster by
// having no colour tests (vectors of one colour's points packed from unit-stride loads, or a
// stride-2 loop without AVX2) and, for a whole iteration, by updating black row j and red row
// j - 1 in one pass over memory, which halves the traffic per site update.
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "apps/poisson/kernels.hpp"

namespace mcb::poisson {
namespace {

// Updates the points of one colour in local row j from local column `first` on, stride 2:
// the portable form, and the tail of the vector form below.
inline double update_row_strided(double* __restrict row, const double* __restrict south,
                                 const double* __restrict north, const double* __restrict f,
                                 int first, int nx, double omega) {
  double max_delta = 0.0;
  for (int i = first; i <= nx; i += 2) {
    const double gs = 0.25 * ((row[i - 1] + row[i + 1]) + (south[i] + north[i]) + f[i]);
    const double delta = gs - row[i];
    row[i] = row[i] + omega * delta;
    max_delta = std::max(max_delta, std::fabs(delta));
  }
  return max_delta;
}

#if defined(__AVX2__)
// The vector form works on eight columns b .. b + 7 at a time, b of our colour, and packs our
// four points (columns b, b + 4, b + 2, b + 6, in this lane order) and the other colour's four
// (b + 1, b + 5, b + 3, b + 7) into one vector each, so that every lane does useful work. Every
// operand is brought into the same lane order, so each point gets exactly the update of the
// strided loop, bit for bit. Columns are put back in order before the store.
struct Lanes {
  __m256d quarter = _mm256_set1_pd(0.25);
  __m256d omega;
  __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff));
  __m256d largest = _mm256_setzero_pd();

  explicit Lanes(double w) : omega(_mm256_set1_pd(w)) {}

  // The point update of kernels.hpp on four points; returns the new values.
  __m256d update(__m256d old, __m256d west, __m256d east, __m256d south, __m256d north, __m256d f) {
    const __m256d gs = _mm256_mul_pd(
        quarter,
        _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(west, east), _mm256_add_pd(south, north)), f));
    const __m256d delta = _mm256_sub_pd(gs, old);
    largest = _mm256_max_pd(largest, _mm256_and_pd(delta, magnitude));
    return _mm256_add_pd(old, _mm256_mul_pd(omega, delta));
  }
  double max_delta() const {
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, largest);
    return std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
  }
};

// Our colour's points of columns b .. b + 7 of a row, in lane order b, b + 4, b + 2, b + 6.
inline __m256d ours_of(const double* line, int b) {
  return _mm256_unpacklo_pd(_mm256_loadu_pd(line + b), _mm256_loadu_pd(line + b + 4));
}

// One row's eight columns: our points, their east neighbours (the other colour's points of
// b + 1 .. b + 7) and west neighbours (b - 1 .. b + 5). The west ones come from registers, the
// east vector rotated to (b + 7, b + 3, b + 1, b + 5) with lane 0 taken from the previous
// block's rotation (b - 1): loading them from memory would overlap the store just made to
// b - 8 .. b - 1, which the CPU cannot forward, and every block would stall on it.
struct Block {
  __m256d ours, east, west, rotated;
  Block(const double* line, int b, __m256d previous_rotated) {
    const __m256d low = _mm256_loadu_pd(line + b);
    const __m256d high = _mm256_loadu_pd(line + b + 4);
    ours = _mm256_unpacklo_pd(low, high);
    east = _mm256_unpackhi_pd(low, high);
    rotated = _mm256_permute4x64_pd(east, 0b01001011);  // lanes 3, 2, 0, 1
    west = _mm256_blend_pd(rotated, previous_rotated, 0b0001);
  }
  // Writes back the eight columns in order: our new points between the other colour's.
  void store(double* line, int b, __m256d updated) const {
    _mm256_storeu_pd(line + b, _mm256_unpacklo_pd(updated, east));
    _mm256_storeu_pd(line + b + 4, _mm256_unpackhi_pd(updated, east));
  }
};

// The rotation whose lane 0 is the west neighbour of column b.
inline __m256d west_start(const double* line, int b) { return _mm256_set_pd(0, 0, 0, line[b - 1]); }

inline double update_row(double* __restrict row, const double* __restrict south,
                         const double* __restrict north, const double* __restrict f, int first,
                         int nx, double omega) {
  Lanes lanes(omega);
  __m256d rotated = west_start(row, first);
  int b = first;
  for (; b + 7 <= nx; b += 8) {
    const Block here(row, b, rotated);
    here.store(row, b,
               lanes.update(here.ours, here.west, here.east, ours_of(south, b), ours_of(north, b),
                            ours_of(f, b)));
    rotated = here.rotated;
  }
  return std::max(lanes.max_delta(), update_row_strided(row, south, north, f, b, nx, omega));
}

// Black row j and red row j - 1 in one pass over the columns (row j's black points have the
// same column parity as row j - 1's red ones, so both rows' blocks hold our points in the same
// lanes). Red row j - 1 reads its north neighbours, black points of row j, from the block just
// computed; everything else it reads is final. Black row j reads the red points of row j - 1
// (its south neighbours) before they are updated.
inline double update_row_pair(double* __restrict row, double* __restrict below,
                              const double* __restrict above, const double* __restrict below2,
                              const double* __restrict f, const double* __restrict f_below,
                              int first, int nx, double omega) {
  Lanes lanes(omega);
  __m256d rotated = west_start(row, first);
  __m256d rotated_below = west_start(below, first);
  int b = first;
  for (; b + 7 <= nx; b += 8) {
    const Block here(row, b, rotated);
    const Block under(below, b, rotated_below);
    const __m256d black =
        lanes.update(here.ours, here.west, here.east, under.ours, ours_of(above, b), ours_of(f, b));
    here.store(row, b, black);
    under.store(below, b,
                lanes.update(under.ours, under.west, under.east, ours_of(below2, b), black,
                             ours_of(f_below, b)));
    rotated = here.rotated;
    rotated_below = under.rotated;
  }
  const double black = update_row_strided(row, below, above, f, b, nx, omega);
  const double red = update_row_strided(below, below2, row, f_below, b, nx, omega);
  return std::max(lanes.max_delta(), std::max(black, red));
}

// Two iterations' steps in one pass over the columns (sweep_two_tuned's steady state): the
// first iteration's black row j and red row j - 1, then the second's black row j - 2 and red
// row j - 3, rows[k] being row j - k. Each reads the one before from registers, as the red row
// of update_row_pair reads its black one; every other operand is as the two steps one after
// the other leave it (the other colour's points of these rows do not change in between).
// Returns each iteration's largest |delta|.
inline std::pair<double, double> update_row_quad(const std::array<double*, 4>& rows,
                                                 const double* __restrict above,
                                                 const double* __restrict below4,
                                                 const std::array<const double*, 4>& f, int first,
                                                 int nx, double omega) {
  Lanes lanes_a(omega), lanes_b(omega);
  __m256d rotated[4];
  for (int k = 0; k < 4; ++k) rotated[k] = west_start(rows[k], first);
  int b = first;
  for (; b + 7 <= nx; b += 8) {
    const Block r0(rows[0], b, rotated[0]);
    const Block r1(rows[1], b, rotated[1]);
    const Block r2(rows[2], b, rotated[2]);
    const Block r3(rows[3], b, rotated[3]);
    const __m256d black_a =
        lanes_a.update(r0.ours, r0.west, r0.east, r1.ours, ours_of(above, b), ours_of(f[0], b));
    const __m256d red_a =
        lanes_a.update(r1.ours, r1.west, r1.east, r2.ours, black_a, ours_of(f[1], b));
    const __m256d black_b =
        lanes_b.update(r2.ours, r2.west, r2.east, r3.ours, red_a, ours_of(f[2], b));
    const __m256d red_b =
        lanes_b.update(r3.ours, r3.west, r3.east, ours_of(below4, b), black_b, ours_of(f[3], b));
    r0.store(rows[0], b, black_a);
    r1.store(rows[1], b, red_a);
    r2.store(rows[2], b, black_b);
    r3.store(rows[3], b, red_b);
    rotated[0] = r0.rotated;
    rotated[1] = r1.rotated;
    rotated[2] = r2.rotated;
    rotated[3] = r3.rotated;
  }
  const double black_a = update_row_strided(rows[0], rows[1], above, f[0], b, nx, omega);
  const double red_a = update_row_strided(rows[1], rows[2], rows[0], f[1], b, nx, omega);
  const double black_b = update_row_strided(rows[2], rows[3], rows[1], f[2], b, nx, omega);
  const double red_b = update_row_strided(rows[3], below4, rows[2], f[3], b, nx, omega);
  return {std::max(lanes_a.max_delta(), std::max(black_a, red_a)),
          std::max(lanes_b.max_delta(), std::max(black_b, red_b))};
}
#else
inline double update_row(double* __restrict row, const double* __restrict south,
                         const double* __restrict north, const double* __restrict f, int first,
                         int nx, double omega) {
  return update_row_strided(row, south, north, f, first, nx, omega);
}

inline double update_row_pair(double* __restrict row, double* __restrict below,
                              const double* __restrict above, const double* __restrict below2,
                              const double* __restrict f, const double* __restrict f_below,
                              int first, int nx, double omega) {
  const double black = update_row_strided(row, below, above, f, first, nx, omega);
  return std::max(black, update_row_strided(below, below2, row, f_below, first, nx, omega));
}

inline std::pair<double, double> update_row_quad(const std::array<double*, 4>& rows,
                                                 const double* above, const double* below4,
                                                 const std::array<const double*, 4>& f, int first,
                                                 int nx, double omega) {
  const double a = update_row_pair(rows[0], rows[1], above, rows[2], f[0], f[1], first, nx, omega);
  return {a, update_row_pair(rows[2], rows[3], rows[1], below4, f[2], f[3], first, nx, omega)};
}
#endif

inline double update_row(Field& u, const Field& h2f, const Subdomain& s, int j, int colour,
                         double omega) {
  return update_row(u.row(j), u.row(j - 1), u.row(j + 1), h2f.row(j), s.first_of_colour(j, colour),
                    s.nx, omega);
}

// Step j (1 .. ny + 1) of one iteration in one pass: black row j and red row j - 1 (only
// black row 1 at the first step, only red row ny at the last).
inline double iteration_step(Field& u, const Field& h2f, const Subdomain& s, int j, double omega) {
  if (j == 1) return update_row(u, h2f, s, 1, kBlack, omega);
  if (j == s.ny + 1) return update_row(u, h2f, s, j - 1, kRed, omega);
  return update_row_pair(u.row(j), u.row(j - 1), u.row(j + 1), u.row(j - 2), h2f.row(j),
                         h2f.row(j - 1), s.first_of_colour(j, kBlack), s.nx, omega);
}

}  // namespace

double sweep_colour_tuned(Field& u, const Field& h2f, const Subdomain& s, int colour,
                          double omega) {
  double max_delta = 0.0;
  for (int j = 1; j <= s.ny; ++j) {
    max_delta = std::max(max_delta, update_row(u, h2f, s, j, colour, omega));
  }
  return max_delta;
}

double sweep_colour_interior_tuned(Field& u, const Field& h2f, const Subdomain& s, int colour,
                                   double omega) {
  double max_delta = 0.0;
  if (s.nx < 3) return max_delta;  // every point touches a column halo
  for (int j = 2; j < s.ny; ++j) {
    // Columns 2..nx-1, as a row of nx - 2 points one column to the east: column 1 plays the
    // halo, and the first point of the colour at or after column 2 is 1 or 2 there.
    const int first = s.first_of_colour(j, colour) == 1 ? 2 : 1;
    max_delta = std::max(max_delta, update_row(u.row(j) + 1, u.row(j - 1) + 1, u.row(j + 1) + 1,
                                               h2f.row(j) + 1, first, s.nx - 2, omega));
  }
  return max_delta;
}

double sweep_colour_border_tuned(Field& u, const Field& h2f, const Subdomain& s, int colour,
                                 double omega) {
  double max_delta = update_row(u, h2f, s, 1, colour, omega);
  if (s.ny > 1) max_delta = std::max(max_delta, update_row(u, h2f, s, s.ny, colour, omega));
  for (int j = 2; j < s.ny; ++j) {
    const int first = s.first_of_colour(j, colour);
    for (int i : {1, s.nx}) {
      if ((i - first) % 2 != 0 || (i == s.nx && s.nx == 1)) continue;
      max_delta = std::max(
          max_delta, update_row(u.row(j), u.row(j - 1), u.row(j + 1), h2f.row(j), i, i, omega));
    }
  }
  return max_delta;
}

double sweep_both_tuned(Field& u, const Field& h2f, const Subdomain& s, double omega) {
  return sweep_both_tuned(u, h2f, s, omega, ColumnBorders{});
}

double sweep_both_tuned(Field& u, const Field& h2f, const Subdomain& s, double omega,
                        const ColumnBorders& borders) {
  double max_delta = 0.0;
  // Black row j reads red rows j - 1 and j + 1, still old; red row j - 1 then reads black rows
  // j - 2 and j, both already new: exactly the order of a full black sweep then a red sweep.
  for (int j = 1; j <= s.ny + 1; ++j) {
    if (j <= s.ny) {
      double* row = u.row(j);
      // Row j's halo is first read by its black update, just below.
      if (borders.west_in) row[0] = borders.west_in[j - 1];
      if (borders.east_in) row[s.nx + 1] = borders.east_in[j - 1];
    }
    max_delta = std::max(max_delta, iteration_step(u, h2f, s, j, omega));
    if (j >= 2) {
      // Row j - 1 is final now.
      const double* done = u.row(j - 1);
      if (borders.west_out) borders.west_out[j - 2] = done[1];
      if (borders.east_out) borders.east_out[j - 2] = done[s.nx];
    }
  }
  return max_delta;
}

TwoSweeps sweep_two_tuned(Field& u, const Field& h2f, const Subdomain& s, double omega,
                          double gate) {
  TwoSweeps out;
  // The second iteration's step j reads the first's red rows j - 1 and j + 1 (final after the
  // first's step j + 2) and black rows up to j + 1 as the first left them; the first's later
  // steps read nothing below row j + 1. So the second trails the first by two steps.
  int next = 1;  // the second iteration's next step
  for (int j = 1; j <= s.ny + 1; ++j) {
    if (out.both && next == j - 2 && next >= 2 && j <= s.ny) {
      // Both steps update two rows: one pass over the columns for the four.
      const auto [a, b] = update_row_quad(
          {u.row(j), u.row(j - 1), u.row(j - 2), u.row(j - 3)}, u.row(j + 1), u.row(j - 4),
          {h2f.row(j), h2f.row(j - 1), h2f.row(j - 2), h2f.row(j - 3)},
          s.first_of_colour(j, kBlack), s.nx, omega);
      out.first = std::max(out.first, a);
      out.second = std::max(out.second, b);
      ++next;
      continue;
    }
    out.first = std::max(out.first, iteration_step(u, h2f, s, j, omega));
    // The running largest |delta| only grows: once above the gate, the first iteration's is.
    if (out.first > gate) out.both = true;
    for (; out.both && next <= j - 2; ++next) {
      out.second = std::max(out.second, iteration_step(u, h2f, s, next, omega));
    }
  }
  for (; out.both && next <= s.ny + 1; ++next) {
    out.second = std::max(out.second, iteration_step(u, h2f, s, next, omega));
  }
  return out;
}

}  // namespace mcb::poisson
