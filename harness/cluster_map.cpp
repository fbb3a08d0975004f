#include "harness/cluster_map.hpp"

#include "common/errors.hpp"
#include "common/ini.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

namespace mcb::harness {

ClusterMap::ClusterMap(std::vector<int> cluster_of_rank, std::vector<std::string> names)
    : cluster_of_rank_(std::move(cluster_of_rank)), names_(std::move(names)) {
  if (cluster_of_rank_.empty()) throw std::invalid_argument("cluster map without ranks");
  const int top = *std::max_element(cluster_of_rank_.begin(), cluster_of_rank_.end());
  if (*std::min_element(cluster_of_rank_.begin(), cluster_of_rank_.end()) < 0) {
    throw std::invalid_argument("negative cluster number in cluster map");
  }
  clusters_ = top + 1;
  if (names_.empty()) {
    for (int c = 0; c < clusters_; ++c) names_.push_back(std::to_string(c));
  }
}

ClusterMap ClusterMap::single(int ranks) {
  return ClusterMap(std::vector<int>(static_cast<size_t>(ranks), 0));
}

ClusterMap ClusterMap::strips(const ProcessGrid& grid, int clusters) {
  if (clusters <= 0 || grid.h() % clusters != 0) {
    throw std::invalid_argument(std::to_string(clusters) + " clusters do not divide the " +
                                std::to_string(grid.h()) + " columns of process grid " +
                                grid.to_string() + " into equal strips");
  }
  const int width = grid.h() / clusters;
  std::vector<int> map(static_cast<size_t>(grid.size()));
  for (int rank = 0; rank < grid.size(); ++rank) {
    map[static_cast<size_t>(rank)] = grid.column(rank) / width;
  }
  return ClusterMap(std::move(map));
}

ClusterMap ClusterMap::blocks(int ranks, int clusters) {
  if (clusters <= 0 || ranks % clusters != 0) {
    throw std::invalid_argument(std::to_string(clusters) + " clusters do not divide " +
                                std::to_string(ranks) + " ranks into equal blocks");
  }
  const int per = ranks / clusters;
  std::vector<int> map(static_cast<size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) map[static_cast<size_t>(rank)] = rank / per;
  return ClusterMap(std::move(map));
}

ClusterMap ClusterMap::from_labels(const std::vector<std::string>& labels) {
  std::map<std::string, int> number;
  std::vector<std::string> names;
  std::vector<int> map;
  map.reserve(labels.size());
  for (const auto& label : labels) {
    auto [it, inserted] = number.emplace(label, static_cast<int>(names.size()));
    if (inserted) names.push_back(label);
    map.push_back(it->second);
  }
  return ClusterMap(std::move(map), std::move(names));
}

ClusterMap ClusterMap::from_file(const std::string& path, int ranks) {
  // The suite's line and comment rules (common/ini.hpp); labels are separated by blanks or commas.
  std::vector<std::string> labels;
  for (ini::Line& l : ini::read_lines(path, "--cluster-map: ")) {
    std::string line = std::move(l.text);
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream words(line);
    std::string word;
    while (words >> word) labels.push_back(word);
  }
  if (static_cast<int>(labels.size()) != ranks) {
    throw UsageError("--cluster-map: " + path + ": holds " + std::to_string(labels.size()) +
                     " entries for " + std::to_string(ranks) + " ranks");
  }
  return from_labels(labels);
}

}  // namespace mcb::harness
