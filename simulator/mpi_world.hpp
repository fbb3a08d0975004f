#pragma once
/// @file
/// @brief The only MPI in the simulator, linked by the mcb-sim program and not by the core:
/// when started by an MPI launcher (mpirun -np K mcb-sim ...), the items of a study are shared
/// among the ranks and their results gathered on rank 0; started alone, it is one process.

#include <string>
#include <vector>

namespace mcb::sim {

/// @brief MPI when launched by mpirun/srun, else a world of one.
class MpiWorld {
 public:
  MpiWorld(int& argc, char**& argv);
  ~MpiWorld();
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
