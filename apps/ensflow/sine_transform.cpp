#include "apps/ensflow/sine_transform.hpp"

#include <new>
#include <stdexcept>
#include <string>

namespace mcb::ensflow {

SineTransform2D::SineTransform2D(int grid) : grid_(grid) {
  if (grid < 1)
    throw std::invalid_argument("sine transform of " + std::to_string(grid) + " points");
  const std::size_t n = static_cast<std::size_t>(grid) * static_cast<std::size_t>(grid);
  buffer_ = static_cast<double*>(fftw_malloc(n * sizeof(double)));
  if (buffer_ == nullptr) throw std::bad_alloc();
  plan_ = fftw_plan_r2r_2d(grid, grid, buffer_, buffer_, FFTW_RODFT00, FFTW_RODFT00, FFTW_ESTIMATE);
  if (plan_ == nullptr) {
    fftw_free(buffer_);
    throw std::runtime_error("FFTW could not plan a " + std::to_string(grid) + "^2 sine transform");
  }
}

SineTransform2D::~SineTransform2D() {
  fftw_destroy_plan(plan_);
  fftw_free(buffer_);
}

void SineTransform2D::execute() { fftw_execute(plan_); }

}  // namespace mcb::ensflow
