// Tuned sweeps. Same updates in the same order per point as kernels_reference.cpp; faster by
// having no colour tests (unit-stride vectors that keep the other colour's points, or a
// stride-2 loop without AVX) and, for a whole iteration, by updating black row j and red row
// j - 1 in one pass over memory, which halves the traffic per site update.
#include <algorithm>
#include <cmath>

#if defined(__AVX__)
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

#if defined(__AVX__)
// The vector form: unit-stride vectors over every column of a row, and the other colour's
// points keep their old value (a blend). The compiler's stride-2 form needs two loads and two
// shuffles per operand and four scalar stores per vector, which cost more than the wasted
// lanes (poisson_bench measures both). The wasted lanes may read points already updated, but
// their results are dropped, and our points read only the other colour's points, which the
// pass never changes: the result is bit for bit that of the strided loop.
struct Lanes {
  __m256d quarter = _mm256_set1_pd(0.25);
  __m256d omega;
  __m256d ours;               // all ones in the lanes of the colour being updated
  __m256d magnitude_of_ours;  // clears the sign bit and the other colour's lanes
  __m256d largest = _mm256_setzero_pd();

  // Vectors start at i = 1, 5, 9, ...: their lanes hold columns of parity 1, 0, 1, 0.
  Lanes(double w, int first)
      : omega(_mm256_set1_pd(w)),
        ours((first & 1) != 0 ? _mm256_castsi256_pd(_mm256_set_epi64x(0, -1, 0, -1))
                              : _mm256_castsi256_pd(_mm256_set_epi64x(-1, 0, -1, 0))),
        magnitude_of_ours(
            _mm256_and_pd(ours, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff)))) {}

  // The point update of kernels.hpp on four columns; returns the new values.
  __m256d update(__m256d old, __m256d west, __m256d east, __m256d south, __m256d north, __m256d f) {
    const __m256d gs = _mm256_mul_pd(
        quarter,
        _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(west, east), _mm256_add_pd(south, north)), f));
    const __m256d delta = _mm256_sub_pd(gs, old);
    largest = _mm256_max_pd(largest, _mm256_and_pd(delta, magnitude_of_ours));
    return _mm256_blendv_pd(old, _mm256_add_pd(old, _mm256_mul_pd(omega, delta)), ours);
  }
  double max_delta() const {
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, largest);
    return std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
  }
};

// [previous[3], now[0], now[1], now[2]]: the west neighbours of `now`. Taken from registers, not
// loaded from row[i - 1 .. i + 2], which would overlap the store just made to row[i - 4 ..
// i - 1]; the CPU cannot forward such a store, and every iteration would stall on it.
inline __m256d west_of(__m256d previous, __m256d now) {
  return _mm256_shuffle_pd(_mm256_permute2f128_pd(previous, now, 0x21), now, 0b0101);
}

// The first column of our colour at or after column i.
inline int ours_from(int i, int first) { return i + ((i ^ first) & 1); }

inline double update_row(double* __restrict row, const double* __restrict south,
                         const double* __restrict north, const double* __restrict f, int first,
                         int nx, double omega) {
  Lanes lanes(omega, first);
  __m256d previous = _mm256_set_pd(row[0], 0.0, 0.0, 0.0);
  int i = 1;
  for (; i + 3 <= nx; i += 4) {
    const __m256d old = _mm256_loadu_pd(row + i);
    _mm256_storeu_pd(row + i, lanes.update(old, west_of(previous, old),
                                           _mm256_loadu_pd(row + i + 1), _mm256_loadu_pd(south + i),
                                           _mm256_loadu_pd(north + i), _mm256_loadu_pd(f + i)));
    previous = old;
  }
  return std::max(lanes.max_delta(),
                  update_row_strided(row, south, north, f, ours_from(i, first), nx, omega));
}

// Black row j and red row j - 1 in one pass over the columns (row j's black points have the
// same column parity as row j - 1's red ones). Column block i of red row j - 1 reads its north
// neighbours, black points of row j, from the block just computed; everything else it reads
// is final. Black row j reads the red points of row j - 1 before this pass reaches them.
inline double update_row_pair(double* __restrict row, double* __restrict below,
                              const double* __restrict above, const double* __restrict below2,
                              const double* __restrict f, const double* __restrict f_below,
                              int first, int nx, double omega) {
  Lanes lanes(omega, first);
  __m256d previous = _mm256_set_pd(row[0], 0.0, 0.0, 0.0);
  __m256d previous_below = _mm256_set_pd(below[0], 0.0, 0.0, 0.0);
  int i = 1;
  for (; i + 3 <= nx; i += 4) {
    const __m256d old = _mm256_loadu_pd(row + i);
    const __m256d old_below = _mm256_loadu_pd(below + i);
    const __m256d black =
        lanes.update(old, west_of(previous, old), _mm256_loadu_pd(row + i + 1), old_below,
                     _mm256_loadu_pd(above + i), _mm256_loadu_pd(f + i));
    _mm256_storeu_pd(row + i, black);
    _mm256_storeu_pd(
        below + i,
        lanes.update(old_below, west_of(previous_below, old_below), _mm256_loadu_pd(below + i + 1),
                     _mm256_loadu_pd(below2 + i), black, _mm256_loadu_pd(f_below + i)));
    previous = old;
    previous_below = old_below;
  }
  const int tail = ours_from(i, first);
  const double black = update_row_strided(row, below, above, f, tail, nx, omega);
  const double red = update_row_strided(below, below2, row, f_below, tail, nx, omega);
  return std::max(lanes.max_delta(), std::max(black, red));
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
#endif

inline double update_row(Field& u, const Field& h2f, const Subdomain& s, int j, int colour,
                         double omega) {
  return update_row(u.row(j), u.row(j - 1), u.row(j + 1), h2f.row(j), s.first_of_colour(j, colour),
                    s.nx, omega);
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
    double row_max = 0.0;
    if (j == 1) {
      row_max = update_row(u, h2f, s, j, kBlack, omega);
    } else if (j == s.ny + 1) {
      row_max = update_row(u, h2f, s, j - 1, kRed, omega);
    } else {
      row_max = update_row_pair(u.row(j), u.row(j - 1), u.row(j + 1), u.row(j - 2), h2f.row(j),
                                h2f.row(j - 1), s.first_of_colour(j, kBlack), s.nx, omega);
    }
    max_delta = std::max(max_delta, row_max);
    if (j >= 2) {
      // Row j - 1 is final now.
      const double* done = u.row(j - 1);
      if (borders.west_out) borders.west_out[j - 2] = done[1];
      if (borders.east_out) borders.east_out[j - 2] = done[s.nx];
    }
  }
  return max_delta;
}

}  // namespace mcb::poisson
