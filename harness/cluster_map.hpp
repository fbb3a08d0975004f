#pragma once
/// @file
/// @brief Which cluster each rank runs in. On one machine the map is given (the paper's vertical
/// strips, or a file); on real clusters it is read from each rank's environment.

#include "harness/grid.hpp"

#include <string>
#include <vector>

namespace mcb::harness {

/// @brief A rank-to-cluster map; clusters are numbered 0..count-1.
class ClusterMap {
 public:
  /// @brief Every rank in cluster 0.
  static ClusterMap single(int ranks);

  /// @brief The paper's split: adjacent vertical strips of equal width, one per cluster, so
  /// cluster c holds columns [c*h/C, (c+1)*h/C). @throws std::invalid_argument unless C divides h.
  static ClusterMap strips(const ProcessGrid& grid, int clusters);

  /// @brief Equal consecutive blocks of ranks, one per cluster (for applications without a 2-D
  /// grid). @throws std::invalid_argument unless @p clusters divides @p ranks.
  static ClusterMap blocks(int ranks, int clusters);

  /// @brief From labels, one per rank (cluster names, partition names...): clusters are numbered
  /// in order of the lowest rank carrying each label.
  static ClusterMap from_labels(const std::vector<std::string>& labels);

  /// @brief Reads a map file: whitespace- or comma-separated cluster labels, one per rank in
  /// rank order ('#' starts a comment). @throws mcb::UsageError naming the file and line.
  static ClusterMap from_file(const std::string& path, int ranks);

  explicit ClusterMap(std::vector<int> cluster_of_rank, std::vector<std::string> names = {});

  int ranks() const { return static_cast<int>(cluster_of_rank_.size()); }
  int clusters() const { return clusters_; }
  int cluster_of(int rank) const { return cluster_of_rank_.at(static_cast<size_t>(rank)); }
  bool same_cluster(int a, int b) const { return cluster_of(a) == cluster_of(b); }
  const std::vector<int>& as_vector() const { return cluster_of_rank_; }
  /// @brief Cluster names when the map came from labels, else "0", "1", ...
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<int> cluster_of_rank_;
  std::vector<std::string> names_;
  int clusters_ = 0;
};

}  // namespace mcb::harness
