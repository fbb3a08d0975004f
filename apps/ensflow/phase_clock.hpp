#pragma once
/// @file
/// @brief Adds the wall-clock time of a scope to a phase total (MPI_Wtime).

#include <mpi.h>

namespace mcb::ensflow {

class PhaseClock {
 public:
  explicit PhaseClock(double& total) : total_(total), start_(MPI_Wtime()) {}
  ~PhaseClock() { total_ += MPI_Wtime() - start_; }
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;

 private:
  double& total_;
  double start_;
};

}  // namespace mcb::ensflow
