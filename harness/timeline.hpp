#pragma once
/// @file
/// @brief The paper's communication time (DAS-2 study, appendix A.2): per communication phase,
/// the time from the last process finishing its computation to the last process finishing its
/// communication, summed over phases. Each rank stamps phase ends; the reduction happens once,
/// at the end, so the timed loop carries no extra messages.

#include <mpi.h>

#include <vector>

namespace mcb::harness {

/// @brief Offset to add to this rank's MPI_Wtime to express it on rank 0's clock. Zero for ranks
/// on rank 0's host (one clock); estimated by ping-pong (minimum round trip) elsewhere.
/// Collective over @p comm.
double estimate_clock_offset(MPI_Comm comm);

/// @brief Time stamps of phase ends on one rank.
class CommTimeline {
 public:
  CommTimeline() = default;
  explicit CommTimeline(bool enabled) : enabled_(enabled) {}
  void reserve(std::size_t phases);

  /// @brief This rank finished a computation phase now.
  void computation_done() {
    if (enabled_) compute_end_.push_back(MPI_Wtime());
  }
  /// @brief This rank finished the communication phase that followed.
  void communication_done() {
    if (enabled_) comm_end_.push_back(MPI_Wtime());
  }
  /// @brief Records one phase from stamps taken elsewhere (another clock, a replay), in
  /// MPI_Wtime seconds of this rank.
  void add_phase(double compute_end, double comm_end) {
    if (!enabled_) return;
    compute_end_.push_back(compute_end);
    comm_end_.push_back(comm_end);
  }
  std::size_t phases() const { return comm_end_.size(); }

  /// @brief Sum over phases of max(comm end) - max(compute end) across ranks, with every stamp
  /// moved to rank 0's clock by @p clock_offset. Collective; every rank must have stamped the
  /// same number of phases. Returns the same value on every rank (0 when disabled).
  double paper_time(MPI_Comm comm, double clock_offset) const;

 private:
  bool enabled_ = true;
  std::vector<double> compute_end_;
  std::vector<double> comm_end_;
};

}  // namespace mcb::harness
