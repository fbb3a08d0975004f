#pragma once
/// @file
/// @brief The N x N interior points split into equal rectangles over the h x v process grid
/// (sizes differ by at most one point when h or v does not divide N), and the local field with
/// its one-point halo.

#include "harness/grid.hpp"

#include <cstddef>
#include <vector>

namespace mcb::poisson {

/// @brief One process's rectangle of the global grid. Global interior indices run 1..N in x
/// (columns) and y (rows); local index i corresponds to global x0 + i, j to y0 + j.
struct Subdomain {
  int n = 0;     //!< global interior points per side
  int nx = 0;    //!< local interior points in x
  int ny = 0;    //!< local interior points in y
  int x0 = 0;    //!< global x index of local i = 0 (the halo column)
  int y0 = 0;    //!< global y index of local j = 0 (the halo row)
  double h = 0;  //!< grid spacing 1 / (N + 1)

  static Subdomain of(int n, const harness::ProcessGrid& grid, int rank);
  /// @brief First local i >= 1 of colour @p colour (0 black, 1 red) in local row j.
  int first_of_colour(int j, int colour) const { return 1 + ((x0 + 1 + y0 + j + colour) & 1); }
};

/// @brief A local array of (nx + 2) x (ny + 2) values, rows (fixed j) contiguous.
class Field {
 public:
  Field() = default;
  Field(int nx, int ny)
      : stride_(nx + 2), rows_(ny + 2), data_(static_cast<size_t>(stride_) * rows_) {}
  double& at(int i, int j) { return data_[static_cast<size_t>(j) * stride_ + i]; }
  double at(int i, int j) const { return data_[static_cast<size_t>(j) * stride_ + i]; }
  double* row(int j) { return data_.data() + static_cast<size_t>(j) * stride_; }
  const double* row(int j) const { return data_.data() + static_cast<size_t>(j) * stride_; }
  const std::vector<double>& values() const { return data_; }

 private:
  int stride_ = 0;
  int rows_ = 0;
  std::vector<double> data_;
};

/// @brief The state of one process: its rectangle, the solution with halo and boundary values,
/// and h^2 f at every interior point.
struct LocalProblem {
  Subdomain sub;
  Field u;    //!< solution; halo holds neighbours' values or the Dirichlet boundary
  Field h2f;  //!< h^2 f(x, y) at interior points

  /// @brief u = 0 inside, the exact solution on the global boundary, h^2 f from the problem.
  static LocalProblem manufactured(const Subdomain& sub);
};

}  // namespace mcb::poisson
