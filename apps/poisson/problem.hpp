#pragma once
/// @file
/// @brief The manufactured problem every run solves and checks itself against:
/// -Laplace(u) = f on the unit square with Dirichlet boundary values,
/// u(x, y) = sin(pi x) sin(pi y) + x^2 - y^2, so f = 2 pi^2 sin(pi x) sin(pi y).
/// The quadratic part makes the boundary values non-zero (the stencil is exact for it).

#include <cmath>
#include <numbers>

namespace mcb::poisson {

struct ManufacturedSolution {
  static double exact(double x, double y) {
    return std::sin(std::numbers::pi * x) * std::sin(std::numbers::pi * y) + x * x - y * y;
  }
  static double rhs(double x, double y) {
    constexpr double kTwoPiSquared = 2 * std::numbers::pi * std::numbers::pi;
    return kTwoPiSquared * std::sin(std::numbers::pi * x) * std::sin(std::numbers::pi * y);
  }
  /// @brief max |f| over the square.
  static double rhs_max() { return 2 * std::numbers::pi * std::numbers::pi; }

  /// @brief Rigorous bound on the max-norm error of a discrete solution whose residual has
  /// max-norm @p residual_max, on a grid of spacing @p h. The five-point stencil's truncation
  /// error is at most h^2/12 (max|u_xxxx| + max|u_yyyy|) = h^2 pi^4 / 6, and the discrete
  /// maximum principle (comparison function x(1-x)/2) bounds the inverse Laplacian by 1/8.
  static double error_bound(double h, double residual_max) {
    const double pi4 = std::pow(std::numbers::pi, 4);
    return (h * h * pi4 / 6 + residual_max) / 8;
  }
};

}  // namespace mcb::poisson
