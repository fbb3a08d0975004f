#pragma once
/// @file
/// @brief The 2-D discrete sine transform (DST-I in both directions) of a G x G array through
/// FFTW. The sine basis sin(pi k i / (G+1)) vanishes on the walls of a closed basin, so it
/// diagonalises the five-point Laplacian with zero boundary values: the streamfunction
/// inversion becomes one division per coefficient.

#include <fftw3.h>

#include <cstddef>

namespace mcb::ensflow {

/// @brief An FFTW plan for the unnormalised 2-D DST-I of a G x G array (rows of G values,
/// row-major), with its own aligned buffer. The transform is its own inverse up to the factor
/// normalisation() = 4 (G+1)^2.
///
/// Plans are made with FFTW_ESTIMATE: FFTW_MEASURE picks algorithms by timing, so two processes
/// (or two runs) could pick different plans and round differently, and the ensemble would no
/// longer be the same for every process count.
class SineTransform2D {
 public:
  explicit SineTransform2D(int grid);
  ~SineTransform2D();
  SineTransform2D(const SineTransform2D&) = delete;
  SineTransform2D& operator=(const SineTransform2D&) = delete;

  int grid() const { return grid_; }
  /// @brief The buffer the transform acts on (G*G values, row-major).
  double* buffer() { return buffer_; }
  const double* buffer() const { return buffer_; }
  /// @brief Transforms buffer() in place.
  void execute();
  /// @brief Applying the transform twice multiplies by this.
  double normalisation() const { return 4.0 * (grid_ + 1.0) * (grid_ + 1.0); }

 private:
  int grid_;
  double* buffer_ = nullptr;
  fftw_plan plan_ = nullptr;
};

}  // namespace mcb::ensflow
