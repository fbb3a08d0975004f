// The frozen reference sweeps. They define the result; the tuned kernels must reproduce them
// bit for bit (tests/poisson checks it). Keep them simple and leave them alone.
#include <algorithm>
#include <cmath>

#include "apps/poisson/kernels.hpp"

namespace mcb::poisson {

double sweep_colour_reference(Field& u, const Field& h2f, const Subdomain& s, int colour,
                              double omega) {
  double max_delta = 0.0;
  for (int j = 1; j <= s.ny; ++j) {
    for (int i = 1; i <= s.nx; ++i) {
      if (((s.x0 + i + s.y0 + j) & 1) != colour) continue;
      const double gs = 0.25 * ((u.at(i - 1, j) + u.at(i + 1, j)) +
                                (u.at(i, j - 1) + u.at(i, j + 1)) + h2f.at(i, j));
      const double delta = gs - u.at(i, j);
      u.at(i, j) = u.at(i, j) + omega * delta;
      max_delta = std::max(max_delta, std::fabs(delta));
    }
  }
  return max_delta;
}

double sweep_both_reference(Field& u, const Field& h2f, const Subdomain& s, double omega) {
  const double black = sweep_colour_reference(u, h2f, s, kBlack, omega);
  const double red = sweep_colour_reference(u, h2f, s, kRed, omega);
  return std::max(black, red);
}

}  // namespace mcb::poisson
