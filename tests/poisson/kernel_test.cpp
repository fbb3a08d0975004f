// The tuned sweeps reproduce the frozen reference bit for bit, and the solver's answer
// converges to the manufactured solution at second order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "apps/poisson/kernels.hpp"
#include "apps/poisson/problem.hpp"
#include "apps/poisson/solver.hpp"
#include "common/rng.hpp"

namespace mcb::poisson {
namespace {

struct Case {
  int nx, ny, x0, y0;
  double omega;
};

// A rectangle somewhere inside a larger grid, filled with random values (halo included).
void random_fields(const Case& c, Subdomain& s, Field& u, Field& f, unsigned seed) {
  s.n = 1000;
  s.nx = c.nx;
  s.ny = c.ny;
  s.x0 = c.x0;
  s.y0 = c.y0;
  s.h = 1.0 / (s.n + 1);
  u = Field(c.nx, c.ny);
  f = Field(c.nx, c.ny);
  mcb::Rng gen(seed);
  const auto dist = [&gen] { return 2 * gen.uniform() - 1; };
  for (int j = 0; j <= c.ny + 1; ++j) {
    for (int i = 0; i <= c.nx + 1; ++i) {
      u.at(i, j) = dist();
      f.at(i, j) = 1e-3 * dist();
    }
  }
}

bool same_bits(const Field& a, const Field& b) {
  return a.values().size() == b.values().size() &&
         std::memcmp(a.values().data(), b.values().data(), a.values().size() * sizeof(double)) == 0;
}

class KernelAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(KernelAgreement, TunedColourSweepMatchesReferenceBitForBit) {
  const Case c = GetParam();
  for (int colour : {kBlack, kRed}) {
    Subdomain s;
    Field u, f;
    random_fields(c, s, u, f, 42 + static_cast<unsigned>(colour));
    Field reference = u;
    const double max_ref = sweep_colour_reference(reference, f, s, colour, c.omega);
    const double max_tuned = sweep_colour_tuned(u, f, s, colour, c.omega);
    EXPECT_TRUE(same_bits(u, reference)) << "colour " << colour;
    EXPECT_EQ(max_ref, max_tuned);
  }
}

// --halo overlap splits each colour into its interior (while an exchange is in flight) and its
// border (after it): together the same updates as one whole sweep, bit for bit, and the
// interior reads no halo (a halo changed in between changes nothing it writes).
TEST_P(KernelAgreement, InteriorThenBorderMatchesReferenceBitForBit) {
  const Case c = GetParam();
  for (int colour : {kBlack, kRed}) {
    Subdomain s;
    Field u, f;
    random_fields(c, s, u, f, 7 + static_cast<unsigned>(colour));
    Field reference = u;
    const double max_ref = sweep_colour_reference(reference, f, s, colour, c.omega);
    // Scramble the halo ring first; restore it before the border, as the exchange would.
    Field scrambled = u;
    for (int j = 0; j <= c.ny + 1; ++j) {
      for (int i = 0; i <= c.nx + 1; ++i) {
        if (i == 0 || j == 0 || i == c.nx + 1 || j == c.ny + 1) scrambled.at(i, j) = 1e6;
      }
    }
    const double interior = sweep_colour_interior_tuned(scrambled, f, s, colour, c.omega);
    for (int j = 0; j <= c.ny + 1; ++j) {
      for (int i = 0; i <= c.nx + 1; ++i) {
        if (i == 0 || j == 0 || i == c.nx + 1 || j == c.ny + 1) scrambled.at(i, j) = u.at(i, j);
      }
    }
    const double border = sweep_colour_border_tuned(scrambled, f, s, colour, c.omega);
    EXPECT_TRUE(same_bits(scrambled, reference)) << "colour " << colour;
    EXPECT_EQ(max_ref, std::max(interior, border));
  }
}

TEST_P(KernelAgreement, FusedIterationMatchesReferenceBitForBit) {
  const Case c = GetParam();
  Subdomain s;
  Field u, f;
  random_fields(c, s, u, f, 7);
  Field reference = u;
  for (int it = 0; it < 5; ++it) {
    const double max_ref = sweep_both_reference(reference, f, s, c.omega);
    const double max_tuned = sweep_both_tuned(u, f, s, c.omega);
    ASSERT_EQ(max_ref, max_tuned) << "iteration " << it;
  }
  EXPECT_TRUE(same_bits(u, reference));
}

// Two iterations in one pass: each iteration's largest |delta| and the field are those of
// iteration after iteration, bit for bit, over several passes.
TEST_P(KernelAgreement, TwoIterationsInOnePassMatchReferenceBitForBit) {
  const Case c = GetParam();
  Subdomain s;
  Field u, f;
  random_fields(c, s, u, f, 5);
  Field reference = u;
  for (int pass = 0; pass < 3; ++pass) {
    const double first = sweep_both_reference(reference, f, s, c.omega);
    const double second = sweep_both_reference(reference, f, s, c.omega);
    const TwoSweeps two = sweep_two_tuned(u, f, s, c.omega, -1.0);
    ASSERT_TRUE(two.both);
    ASSERT_EQ(first, two.first) << "pass " << pass;
    ASSERT_EQ(second, two.second) << "pass " << pass;
  }
  EXPECT_TRUE(same_bits(u, reference));
}

// The second iteration runs only when the first's largest |delta| exceeds the gate; at the
// gate, the pass is one iteration. A gate that rows near the start stay under makes the second
// start late and catch up on the rows the first has passed: still the same field.
TEST_P(KernelAgreement, TwoIterationsRunTheSecondOnlyAboveTheGate) {
  const Case c = GetParam();
  Subdomain s;
  Field u, f;
  random_fields(c, s, u, f, 9);
  // Small values in the lower half, so the running largest |delta| passes 1e-3 only midway.
  for (int j = 0; j <= c.ny / 2; ++j) {
    for (int i = 0; i <= c.nx + 1; ++i) {
      u.at(i, j) *= 1e-9;
      f.at(i, j) *= 1e-9;
    }
  }
  Field one = u;
  const double first = sweep_both_reference(one, f, s, c.omega);
  Field two = one;
  const double second = sweep_both_reference(two, f, s, c.omega);

  Field at_gate = u;
  const TwoSweeps stopped = sweep_two_tuned(at_gate, f, s, c.omega, first);
  EXPECT_FALSE(stopped.both);
  EXPECT_EQ(stopped.first, first);
  EXPECT_EQ(stopped.second, 0.0);
  EXPECT_TRUE(same_bits(at_gate, one));

  for (double gate : {std::nextafter(first, 0.0), 1e-3}) {
    if (!(first > gate)) continue;
    Field below = u;
    const TwoSweeps ran = sweep_two_tuned(below, f, s, c.omega, gate);
    EXPECT_TRUE(ran.both) << "gate " << gate;
    EXPECT_EQ(ran.first, first) << "gate " << gate;
    EXPECT_EQ(ran.second, second) << "gate " << gate;
    EXPECT_TRUE(same_bits(below, two)) << "gate " << gate;
  }
}

// With staged column borders the sweep takes its column halos from the buffers and hands out
// its final border columns: same field as the reference given the same halo values.
TEST_P(KernelAgreement, SweepWithStagedColumnsMatchesReferenceBitForBit) {
  const Case c = GetParam();
  Subdomain s;
  Field u, f;
  random_fields(c, s, u, f, 11);
  Field reference = u;
  // The neighbours' columns arrive in buffers; the field's own halo columns hold stale values.
  std::vector<double> west_in(static_cast<size_t>(c.ny)), east_in(static_cast<size_t>(c.ny));
  for (int j = 1; j <= c.ny; ++j) {
    west_in[static_cast<size_t>(j - 1)] = reference.at(0, j);
    east_in[static_cast<size_t>(j - 1)] = reference.at(c.nx + 1, j);
    u.at(0, j) = -99.0;
    u.at(c.nx + 1, j) = -99.0;
  }
  std::vector<double> west_out(static_cast<size_t>(c.ny), 0.0),
      east_out(static_cast<size_t>(c.ny), 0.0);
  const ColumnBorders borders{west_in.data(), east_in.data(), west_out.data(), east_out.data()};
  const double max_ref = sweep_both_reference(reference, f, s, c.omega);
  const double max_tuned = sweep_both_tuned(u, f, s, c.omega, borders);
  EXPECT_EQ(max_ref, max_tuned);
  EXPECT_TRUE(same_bits(u, reference));
  for (int j = 1; j <= c.ny; ++j) {
    ASSERT_EQ(west_out[static_cast<size_t>(j - 1)], reference.at(1, j)) << "row " << j;
    ASSERT_EQ(east_out[static_cast<size_t>(j - 1)], reference.at(c.nx, j)) << "row " << j;
  }
}

TEST_P(KernelAgreement, SweepChangesOnlyItsColour) {
  const Case c = GetParam();
  Subdomain s;
  Field u, f;
  random_fields(c, s, u, f, 3);
  const Field before = u;
  sweep_colour_tuned(u, f, s, kBlack, c.omega);
  for (int j = 0; j <= c.ny + 1; ++j) {
    for (int i = 0; i <= c.nx + 1; ++i) {
      const bool interior = i >= 1 && i <= c.nx && j >= 1 && j <= c.ny;
      const bool black = ((c.x0 + i + c.y0 + j) & 1) == kBlack;
      if (!interior || !black) {
        ASSERT_EQ(u.at(i, j), before.at(i, j)) << "point " << i << "," << j;
      } else {
        ASSERT_NE(u.at(i, j), before.at(i, j)) << "point " << i << "," << j;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, KernelAgreement,
    ::testing::Values(Case{1, 1, 0, 0, 1.0}, Case{2, 3, 0, 0, 1.0}, Case{17, 9, 4, 7, 1.0},
                      Case{16, 16, 3, 0, 1.7}, Case{33, 20, 10, 11, 1.95},
                      Case{257, 64, 128, 65, 1.3},
                      // Every remainder of the 8-column blocks, each
                      // with both column parities of the first block.
                      Case{4, 5, 1, 0, 1.0}, Case{5, 4, 0, 1, 1.3}, Case{6, 7, 1, 1, 1.0},
                      Case{7, 6, 2, 3, 1.5}, Case{8, 3, 0, 1, 1.0}, Case{9, 8, 3, 3, 1.9},
                      Case{10, 5, 0, 0, 1.0}, Case{10, 6, 1, 0, 1.2}, Case{11, 4, 1, 0, 1.0},
                      Case{12, 6, 0, 1, 1.4}, Case{13, 7, 1, 1, 1.0}, Case{14, 3, 2, 1, 1.6},
                      Case{15, 6, 0, 0, 1.0}, Case{15, 5, 0, 1, 1.1}, Case{16, 4, 1, 0, 1.0},
                      Case{23, 9, 1, 0, 1.8}, Case{8, 5, 1, 0, 1.3}, Case{9, 4, 1, 0, 1.0},
                      // With AVX-512, 16-column blocks first: remainders of both widths.
                      Case{18, 9, 1, 0, 1.0}, Case{21, 6, 0, 0, 1.4}, Case{24, 5, 0, 0, 1.3},
                      Case{25, 6, 1, 0, 1.0}, Case{31, 7, 0, 1, 1.7}, Case{32, 8, 1, 1, 1.0},
                      Case{39, 9, 0, 0, 1.2}, Case{40, 6, 1, 0, 1.0}, Case{47, 5, 1, 1, 1.5},
                      Case{48, 7, 0, 1, 1.0}));

// Solves the manufactured problem on one process to a residual far below the discretisation
// error and returns the max-norm error against the exact solution.
double converged_error(int n) {
  LocalProblem p = LocalProblem::manufactured(Subdomain::of(n, harness::ProcessGrid(1, 1), 0));
  const double omega = optimal_omega(p.sub.h);
  const double limit = 1e-14;
  double delta = 1;
  for (int it = 0; it < 100000 && delta > limit; ++it)
    delta = sweep_both_tuned(p.u, p.h2f, p.sub, omega);
  EXPECT_LE(delta, limit) << "N = " << n << " did not converge";
  double error = 0;
  for (int j = 1; j <= p.sub.ny; ++j) {
    for (int i = 1; i <= p.sub.nx; ++i) {
      const double exact = ManufacturedSolution::exact(i * p.sub.h, j * p.sub.h);
      error = std::max(error, std::fabs(p.u.at(i, j) - exact));
    }
  }
  return error;
}

TEST(Discretisation, ErrorFallsAsHSquared) {
  // h = 1/16, 1/32, 1/64, 1/128: each halving of h should divide the error by about four.
  double previous = converged_error(15);
  for (int n : {31, 63, 127}) {
    const double error = converged_error(n);
    const double ratio = previous / error;
    EXPECT_GT(ratio, 3.6) << "N = " << n;
    EXPECT_LT(ratio, 4.4) << "N = " << n;
    EXPECT_LE(error, ManufacturedSolution::error_bound(1.0 / (n + 1), 0.0) * 1.001);
    previous = error;
  }
}

}  // namespace
}  // namespace mcb::poisson
