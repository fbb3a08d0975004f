#pragma once
// This rank and the number of ranks of MPI_COMM_WORLD, for MPI tests that adapt to the rank
// count they are started with.

#include <mpi.h>

namespace mcb::testing {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace mcb::testing
