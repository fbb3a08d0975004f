#include "simulator/mpi_world.hpp"

#include <mpi.h>

namespace mcb::sim {

MpiWorld::MpiWorld(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  MPI_Init(&argc, &argv);
  active_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiWorld::~MpiWorld() {
  if (active_) MPI_Finalize();
}

int MpiWorld::broadcast(int value) const {
  if (active_) MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

std::vector<std::string> MpiWorld::gather(const std::string& text) const {
  if (!active_) return {text};
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank_ == 0 ? static_cast<size_t>(size_) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets;
  std::string all;
  if (rank_ == 0) {
    int total = 0;
    for (int n : lengths) {
      offsets.push_back(total);
      total += n;
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (rank_ == 0) {
    for (int r = 0; r < size_; ++r) {
      out.push_back(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(r)]),
                               static_cast<size_t>(lengths[static_cast<size_t>(r)])));
    }
  }
  return out;
}

}  // namespace mcb::sim
