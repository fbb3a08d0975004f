#include "apps/poisson/decomposition.hpp"

#include "apps/poisson/problem.hpp"

namespace mcb::poisson {
namespace {

// Points [begin, begin + count) of part p when n points are split into parts as evenly as
// possible, the first n % parts parts one larger.
void split(int n, int parts, int p, int& begin, int& count) {
  const int base = n / parts;
  const int extra = n % parts;
  count = base + (p < extra ? 1 : 0);
  begin = p * base + (p < extra ? p : extra);
}

}  // namespace

Subdomain Subdomain::of(int n, const harness::ProcessGrid& grid, int rank) {
  Subdomain s;
  s.n = n;
  s.h = 1.0 / (n + 1);
  int begin = 0;
  split(n, grid.h(), grid.column(rank), begin, s.nx);
  s.x0 = begin;
  split(n, grid.v(), grid.row(rank), begin, s.ny);
  s.y0 = begin;
  return s;
}

LocalProblem LocalProblem::manufactured(const Subdomain& sub) {
  LocalProblem p{sub, Field(sub.nx, sub.ny), Field(sub.nx, sub.ny)};
  const double h = sub.h;
  for (int j = 0; j <= sub.ny + 1; ++j) {
    const int gy = sub.y0 + j;
    for (int i = 0; i <= sub.nx + 1; ++i) {
      const int gx = sub.x0 + i;
      const bool on_boundary = gx == 0 || gy == 0 || gx == sub.n + 1 || gy == sub.n + 1;
      if (on_boundary) p.u.at(i, j) = ManufacturedSolution::exact(gx * h, gy * h);
      const bool inside = i >= 1 && i <= sub.nx && j >= 1 && j <= sub.ny;
      if (inside) p.h2f.at(i, j) = h * h * ManufacturedSolution::rhs(gx * h, gy * h);
    }
  }
  return p;
}

}  // namespace mcb::poisson
