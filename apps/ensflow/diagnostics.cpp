#include "apps/ensflow/diagnostics.hpp"

#include <algorithm>
#include <cmath>

namespace mcb::ensflow {

Diagnostics::Diagnostics(const EnsembleLayout& layout, int rank, double ssh_per_psi,
                         std::size_t surface_rows)
    : layout_(layout), rank_(rank), ssh_per_psi_(ssh_per_psi), surface_rows_(surface_rows) {}

void Diagnostics::add(const std::string& kind, int day, const Eigen::MatrixXd& slice,
                      const double* true_psi) {
  Pending point{kind, day, {}};
  const double members = static_cast<double>(layout_.members());
  Eigen::Index begin = 0;  // the block's first row in the slice
  for (std::size_t b : layout_.owned_blocks(rank_)) {
    const std::size_t end = std::min(layout_.block_end(b), surface_rows_);
    const auto rows = static_cast<Eigen::Index>(layout_.block_end(b) - layout_.block_begin(b));
    if (end <= layout_.block_begin(b)) {  // a lower layer's block: no SSH
      point.sums.push_back(0.0);
      point.sums.push_back(0.0);
      begin += rows;
      continue;
    }
    const auto len = static_cast<Eigen::Index>(end - layout_.block_begin(b));
    // Fresh copies: the sums then see the same shape and alignment for every process count.
    const Eigen::MatrixXd block = slice.middleRows(begin, len);
    const Eigen::VectorXd truth =
        Eigen::Map<const Eigen::VectorXd>(true_psi + layout_.block_begin(b), len);
    const Eigen::VectorXd mean = block.rowwise().sum() / members;
    const Eigen::VectorXd error = mean - truth;
    const Eigen::MatrixXd anomalies = block.colwise() - mean;
    point.sums.push_back(error.squaredNorm());
    point.sums.push_back(anomalies.squaredNorm() / (members - 1));
    begin += rows;
  }
  pending_.push_back(std::move(point));
}

std::vector<DiagnosticPoint> Diagnostics::finish(MPI_Comm comm) const {
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<int> counts(static_cast<std::size_t>(size));
  std::vector<int> offsets(static_cast<std::size_t>(size));
  const int points = static_cast<int>(pending_.size());
  // Where each block's sums arrive: ranks in order, each its owned blocks in order.
  std::vector<std::size_t> slot(layout_.blocks());
  std::size_t next = 0;
  for (int r = 0; r < size; ++r) {
    const auto& blocks = layout_.owned_blocks(r);
    counts[static_cast<std::size_t>(r)] = static_cast<int>(2 * blocks.size()) * points;
    offsets[static_cast<std::size_t>(r)] = static_cast<int>(2 * next) * points;
    for (std::size_t b : blocks) slot[b] = next++;
  }
  std::vector<double> mine;
  const std::size_t owned = layout_.owned_blocks(rank_).size();
  // Block-major: for each owned block, its sums at every point.
  for (std::size_t b = 0; b < owned; ++b) {
    for (const Pending& p : pending_) {
      mine.push_back(p.sums[2 * b]);
      mine.push_back(p.sums[2 * b + 1]);
    }
  }
  std::vector<double> all(2 * layout_.blocks() * static_cast<std::size_t>(points));
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(),
                 offsets.data(), MPI_DOUBLE, comm);

  std::vector<DiagnosticPoint> out;
  const double n = static_cast<double>(std::min(surface_rows_, layout_.state_size()));
  const double scale = std::fabs(ssh_per_psi_);
  for (int k = 0; k < points; ++k) {
    double error = 0;
    double variance = 0;
    for (std::size_t b = 0; b < layout_.blocks(); ++b) {
      const std::size_t at =
          (slot[b] * static_cast<std::size_t>(points) + static_cast<std::size_t>(k)) * 2;
      error += all[at];
      variance += all[at + 1];
    }
    const Pending& p = pending_[static_cast<std::size_t>(k)];
    out.push_back({p.kind, p.day, scale * std::sqrt(error / n), scale * std::sqrt(variance / n)});
  }
  return out;
}

}  // namespace mcb::ensflow
