#pragma once
/// @file
/// @brief The only MPI in the simulator. When started by an MPI launcher (mpirun -np K mcb-sim
/// ...), the items of a study are shared among the ranks and their results gathered on rank 0;
/// started alone, it is one process. Two implementations: mpi_world.cpp (MPI), linked by the
/// helper program mcb-sim-mpi, and mpi_world_single.cpp, linked by mcb-sim, which loads no MPI
/// (its libraries cost more CPU at start-up than a small trace's whole run) and, when an MPI
/// launcher started it, replaces itself by mcb-sim-mpi beside it with the same arguments.

#include <string>
#include <vector>

namespace mcb::sim {

/// True when an MPI launcher (mpirun, srun) started this process.
bool launched_by_mpi();

/// @brief MPI when launched by mpirun/srun, else a world of one.
class MpiWorld {
 public:
  /// @throws std::runtime_error when mcb-sim, started by an MPI launcher, cannot run mcb-sim-mpi.
  MpiWorld(int& argc, char**& argv);
  // Not defaulted here: mcb-sim-mpi's finalizes MPI (mcb-sim's has nothing to do).
  ~MpiWorld();  // NOLINT(performance-trivially-destructible)
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool active() const { return active_; }

  /// Rank 0's value on every rank.
  int broadcast(int value) const;
  /// Every rank's text, on rank 0 (in rank order); empty elsewhere.
  std::vector<std::string> gather(const std::string& text) const;

 private:
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace mcb::sim
