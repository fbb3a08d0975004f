#include "simulator/mpi_world.hpp"

#include <cstdlib>

namespace mcb::sim {

bool launched_by_mpi() {
  for (const char* var :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALNRANKS"}) {
    if (std::getenv(var)) return true;
  }
  return false;
}

}  // namespace mcb::sim
