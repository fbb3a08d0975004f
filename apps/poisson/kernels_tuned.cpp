// Tuned sweeps. Same updates in the same order per point as kernels_reference.cpp; faster by
// having no colour tests (vectors of one colour's points packed from unit-stride loads, or a
// stride-2 loop without AVX2) and, for a whole iteration, by updating black row j and red row
// j - 1 in one pass over memory, which halves the traffic per site update; sweep_two_tuned
// halves it again by running two iterations in that pass.
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
// The vector form works on blocks of 2w columns b .. b + 2w - 1 (w = 4 lanes with AVX2, 8 with
// AVX-512), b of our colour, and packs our w points and the other colour's w into one vector
// each, so that every lane does useful work. With AVX2 our lanes hold columns b, b + 4, b + 2,
// b + 6 and theirs b + 1, b + 5, b + 3, b + 7 (unpacking works within 128-bit halves); with
// AVX-512 ours b, b + 8, b + 2, b + 10, b + 4, b + 12, b + 6, b + 14. Every operand is brought
// into the same lane order, so each point gets exactly the update of the strided loop, bit for
// bit. Columns are put back in order before the store. Rows are swept in AVX-512 blocks, then
// AVX2 ones, then the strided loop; the largest |delta| does not depend on the grouping.
struct Avx2 {
  using Vec = __m256d;
  static constexpr int kColumns = 8;
  static Vec set1(double x) { return _mm256_set1_pd(x); }
  static Vec load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, Vec v) { _mm256_storeu_pd(p, v); }
  static Vec add(Vec a, Vec b) { return _mm256_add_pd(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm256_sub_pd(a, b); }
  static Vec mul(Vec a, Vec b) { return _mm256_mul_pd(a, b); }
  static Vec max(Vec a, Vec b) { return _mm256_max_pd(a, b); }
  static Vec abs(Vec v) {
    return _mm256_and_pd(v, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff)));
  }
  static Vec low(Vec a, Vec b) { return _mm256_unpacklo_pd(a, b); }
  static Vec high(Vec a, Vec b) { return _mm256_unpackhi_pd(a, b); }
  // The other colour's points rotated to (b + 7, b + 3, b + 1, b + 5): lanes 1..3 are the west
  // neighbours of ours, lane 0 the next block's first one.
  static Vec rotate(Vec theirs) { return _mm256_permute4x64_pd(theirs, 0b01001011); }
  static Vec west(Vec rotated, Vec previous) { return _mm256_blend_pd(rotated, previous, 0b0001); }
  static Vec west_start(const double* line, int b) { return _mm256_set_pd(0, 0, 0, line[b - 1]); }
};

#if defined(__AVX512F__)
struct Avx512 {
  using Vec = __m512d;
  static constexpr int kColumns = 16;
  static Vec set1(double x) { return _mm512_set1_pd(x); }
  static Vec load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, Vec v) { _mm512_storeu_pd(p, v); }
  static Vec add(Vec a, Vec b) { return _mm512_add_pd(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm512_sub_pd(a, b); }
  static Vec mul(Vec a, Vec b) { return _mm512_mul_pd(a, b); }
  static Vec max(Vec a, Vec b) { return _mm512_max_pd(a, b); }
  static Vec abs(Vec v) { return _mm512_abs_pd(v); }
  static Vec low(Vec a, Vec b) { return _mm512_unpacklo_pd(a, b); }
  static Vec high(Vec a, Vec b) { return _mm512_unpackhi_pd(a, b); }
  // Theirs is (b + 1, b + 9, b + 3, b + 11, b + 5, b + 13, b + 7, b + 15); rotated to
  // (b + 15, b + 7, b + 1, b + 9, b + 3, b + 11, b + 5, b + 13).
  static Vec rotate(Vec theirs) {
    return _mm512_permutexvar_pd(_mm512_set_epi64(5, 4, 3, 2, 1, 0, 6, 7), theirs);
  }
  static Vec west(Vec rotated, Vec previous) {
    return _mm512_mask_blend_pd(0x01, rotated, previous);
  }
  static Vec west_start(const double* line, int b) {
    return _mm512_set_pd(0, 0, 0, 0, 0, 0, 0, line[b - 1]);
  }
};
#endif

template <class W>
struct Lanes {
  using Vec = typename W::Vec;
  Vec quarter = W::set1(0.25);
  Vec omega;
  Vec largest = W::set1(0.0);

  explicit Lanes(double w) : omega(W::set1(w)) {}

  // The point update of kernels.hpp on w points; returns the new values.
  Vec update(Vec old, Vec west, Vec east, Vec south, Vec north, Vec f) {
    const Vec gs = W::mul(quarter, W::add(W::add(W::add(west, east), W::add(south, north)), f));
    const Vec delta = W::sub(gs, old);
    largest = W::max(largest, W::abs(delta));
    return W::add(old, W::mul(omega, delta));
  }
  double max_delta() const {
    alignas(64) double lanes[W::kColumns / 2];
    W::store(lanes, largest);
    return *std::max_element(lanes, lanes + W::kColumns / 2);
  }
};

// Our colour's points of one block of a row, in lane order.
template <class W>
inline typename W::Vec ours_of(const double* line, int b) {
  return W::low(W::load(line + b), W::load(line + b + W::kColumns / 2));
}

// One row's block: our points, their east neighbours (the other colour's points of the block)
// and west neighbours. The west ones come from registers, the east vector rotated with lane 0
// taken from the previous block's rotation (column b - 1): loading them from memory would
// overlap the store just made to the previous block, which the CPU cannot forward, and every
// block would stall on it.
template <class W>
struct Block {
  using Vec = typename W::Vec;
  Vec ours, east, west, rotated;
  Block(const double* line, int b, Vec previous_rotated) {
    const Vec low = W::load(line + b);
    const Vec high = W::load(line + b + W::kColumns / 2);
    ours = W::low(low, high);
    east = W::high(low, high);
    rotated = W::rotate(east);
    west = W::west(rotated, previous_rotated);
  }
  // Writes back the block's columns in order: our new points between the other colour's.
  void store(double* line, int b, Vec updated) const {
    W::store(line + b, W::low(updated, east));
    W::store(line + b + W::kColumns / 2, W::high(updated, east));
  }
};

// The blocks of one row from column b on; returns the first column left over.
template <class W>
inline int row_blocks(double* __restrict row, const double* __restrict south,
                      const double* __restrict north, const double* __restrict f, int b, int nx,
                      double omega, double& max_delta) {
  Lanes<W> lanes(omega);
  typename W::Vec rotated = W::west_start(row, b);
  for (; b + W::kColumns - 1 <= nx; b += W::kColumns) {
    const Block<W> here(row, b, rotated);
    here.store(row, b,
               lanes.update(here.ours, here.west, here.east, ours_of<W>(south, b),
                            ours_of<W>(north, b), ours_of<W>(f, b)));
    rotated = here.rotated;
  }
  max_delta = std::max(max_delta, lanes.max_delta());
  return b;
}

// Black row j and red row j - 1 in one pass over the columns (row j's black points have the
// same column parity as row j - 1's red ones, so both rows' blocks hold our points in the same
// lanes). Red row j - 1 reads its north neighbours, black points of row j, from the block just
// computed; everything else it reads is final. Black row j reads the red points of row j - 1
// (its south neighbours) before they are updated.
template <class W>
inline int pair_blocks(double* __restrict row, double* __restrict below,
                       const double* __restrict above, const double* __restrict below2,
                       const double* __restrict f, const double* __restrict f_below, int b, int nx,
                       double omega, double& max_delta) {
  Lanes<W> lanes(omega);
  typename W::Vec rotated = W::west_start(row, b);
  typename W::Vec rotated_below = W::west_start(below, b);
  for (; b + W::kColumns - 1 <= nx; b += W::kColumns) {
    const Block<W> here(row, b, rotated);
    const Block<W> under(below, b, rotated_below);
    const auto black = lanes.update(here.ours, here.west, here.east, under.ours,
                                    ours_of<W>(above, b), ours_of<W>(f, b));
    here.store(row, b, black);
    under.store(below, b,
                lanes.update(under.ours, under.west, under.east, ours_of<W>(below2, b), black,
                             ours_of<W>(f_below, b)));
    rotated = here.rotated;
    rotated_below = under.rotated;
  }
  max_delta = std::max(max_delta, lanes.max_delta());
  return b;
}

// Two iterations' steps in one pass over the columns (sweep_two_tuned's steady state): the
// first iteration's black row j and red row j - 1, then the second's black row j - 2 and red
// row j - 3, rows[k] being row j - k. Each reads the one before from registers, as the red row
// of pair_blocks reads its black one; every other operand is as the two steps one after the
// other leave it (the other colour's points of these rows do not change in between).
template <class W>
inline int quad_blocks(const std::array<double*, 4>& rows, const double* __restrict above,
                       const double* __restrict below4, const std::array<const double*, 4>& f,
                       int b, int nx, double omega, double& max_a, double& max_b) {
  Lanes<W> lanes_a(omega), lanes_b(omega);
  typename W::Vec rotated[4];
  for (int k = 0; k < 4; ++k) rotated[k] = W::west_start(rows[k], b);
  for (; b + W::kColumns - 1 <= nx; b += W::kColumns) {
    const Block<W> r0(rows[0], b, rotated[0]);
    const Block<W> r1(rows[1], b, rotated[1]);
    const Block<W> r2(rows[2], b, rotated[2]);
    const Block<W> r3(rows[3], b, rotated[3]);
    const auto black_a = lanes_a.update(r0.ours, r0.west, r0.east, r1.ours, ours_of<W>(above, b),
                                        ours_of<W>(f[0], b));
    const auto red_a =
        lanes_a.update(r1.ours, r1.west, r1.east, r2.ours, black_a, ours_of<W>(f[1], b));
    const auto black_b =
        lanes_b.update(r2.ours, r2.west, r2.east, r3.ours, red_a, ours_of<W>(f[2], b));
    const auto red_b = lanes_b.update(r3.ours, r3.west, r3.east, ours_of<W>(below4, b), black_b,
                                      ours_of<W>(f[3], b));
    r0.store(rows[0], b, black_a);
    r1.store(rows[1], b, red_a);
    r2.store(rows[2], b, black_b);
    r3.store(rows[3], b, red_b);
    rotated[0] = r0.rotated;
    rotated[1] = r1.rotated;
    rotated[2] = r2.rotated;
    rotated[3] = r3.rotated;
  }
  max_a = std::max(max_a, lanes_a.max_delta());
  max_b = std::max(max_b, lanes_b.max_delta());
  return b;
}

inline double update_row(double* __restrict row, const double* __restrict south,
                         const double* __restrict north, const double* __restrict f, int first,
                         int nx, double omega) {
  double max_delta = 0.0;
  int b = first;
#if defined(__AVX512F__)
  b = row_blocks<Avx512>(row, south, north, f, b, nx, omega, max_delta);
#endif
  b = row_blocks<Avx2>(row, south, north, f, b, nx, omega, max_delta);
  return std::max(max_delta, update_row_strided(row, south, north, f, b, nx, omega));
}

inline double update_row_pair(double* __restrict row, double* __restrict below,
                              const double* __restrict above, const double* __restrict below2,
                              const double* __restrict f, const double* __restrict f_below,
                              int first, int nx, double omega) {
  double max_delta = 0.0;
  int b = first;
#if defined(__AVX512F__)
  b = pair_blocks<Avx512>(row, below, above, below2, f, f_below, b, nx, omega, max_delta);
#endif
  b = pair_blocks<Avx2>(row, below, above, below2, f, f_below, b, nx, omega, max_delta);
  const double black = update_row_strided(row, below, above, f, b, nx, omega);
  const double red = update_row_strided(below, below2, row, f_below, b, nx, omega);
  return std::max(max_delta, std::max(black, red));
}

// Returns each iteration's largest |delta|.
inline std::pair<double, double> update_row_quad(const std::array<double*, 4>& rows,
                                                 const double* __restrict above,
                                                 const double* __restrict below4,
                                                 const std::array<const double*, 4>& f, int first,
                                                 int nx, double omega) {
  double max_a = 0.0, max_b = 0.0;
  int b = first;
#if defined(__AVX512F__)
  b = quad_blocks<Avx512>(rows, above, below4, f, b, nx, omega, max_a, max_b);
#endif
  b = quad_blocks<Avx2>(rows, above, below4, f, b, nx, omega, max_a, max_b);
  const double black_a = update_row_strided(rows[0], rows[1], above, f[0], b, nx, omega);
  const double red_a = update_row_strided(rows[1], rows[2], rows[0], f[1], b, nx, omega);
  const double black_b = update_row_strided(rows[2], rows[3], rows[1], f[2], b, nx, omega);
  const double red_b = update_row_strided(rows[3], below4, rows[2], f[3], b, nx, omega);
  return {std::max(max_a, std::max(black_a, red_a)), std::max(max_b, std::max(black_b, red_b))};
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
