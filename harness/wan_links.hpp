#pragma once
/// @file
/// @brief The wide-area links between the clusters of a run: latency and bandwidth per cluster
/// pair, from --wan-latency/--wan-bandwidth (every pair alike) and --platform FILE (per pair).
///
/// Platform file: one link per line, `CLUSTER CLUSTER LATENCY BANDWIDTH`, where the clusters are
/// names of the run's cluster map ("0", "1", ... for the paper's strips, or the labels of a
/// --cluster-map), LATENCY a duration (1ms) and BANDWIDTH a rate (100Mbit/s). A line `* *
/// LATENCY BANDWIDTH` covers every pair not listed. '#' starts a comment. A link is full duplex:
/// each direction has the bandwidth to itself. Pair lines win over `* *`, which wins over the
/// options.

#include "harness/cluster_map.hpp"
#include "harness/run_options.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcb::harness {

/// @brief One direction of a wide-area link.
struct LinkParameters {
  double latency = 0;    //!< seconds, one way
  double bandwidth = 0;  //!< bytes per second

  /// @brief The least time a message of @p bytes takes over an idle link: latency + N / B.
  double transfer_time(double bytes) const { return latency + bytes / bandwidth; }
  bool operator==(const LinkParameters&) const = default;
};

/// @brief The links between every pair of clusters of one run.
class LinkTable {
 public:
  /// @brief Every pair of @p clusters clusters joined by the same link.
  static LinkTable uniform(int clusters, LinkParameters link);

  /// @brief Parses a platform file for the clusters of @p map. Pairs the file leaves out get
  /// @p fallback, or are an error without one. @throws mcb::UsageError naming the file and line.
  static LinkTable from_platform_file(const std::string& path, const ClusterMap& map,
                                      std::optional<LinkParameters> fallback);

  /// @brief The links the options ask for, or nothing when they ask for no emulation.
  /// @throws mcb::UsageError naming the option, or the platform file and line.
  static std::optional<LinkTable> from_options(const RunOptions& options, const ClusterMap& map);

  int clusters() const { return clusters_; }
  /// @brief The link from cluster @p from to cluster @p to (two different clusters).
  const LinkParameters& between(int from, int to) const {
    return links_[static_cast<size_t>(from) * static_cast<size_t>(clusters_) +
                  static_cast<size_t>(to)];
  }
  /// @brief True when every pair has the same link (or there is no pair at all).
  bool uniform_links() const;
  /// @brief A link every pair shares (when uniform_links()), else the first pair's.
  LinkParameters typical() const;

  /// @brief True when one link describes every pair (uniform links from options or a file).
  bool one_link() const;

  /// @brief "100Mbit-1ms" when one link describes every pair; "<platform file stem>" otherwise.
  std::string label() const;

  /// @brief {"model", "latency", "bandwidth", "platform", "links": [{"clusters": [a, b],
  /// "latency", "bandwidth"}, ...]} with one entry per unordered pair (names of @p map).
  nlohmann::json to_json(const ClusterMap& map) const;

 private:
  LinkTable(int clusters, std::string platform);

  int clusters_ = 0;
  std::string platform_;               // the file's path, empty when from options only
  std::vector<LinkParameters> links_;  // clusters x clusters, row = from; diagonal unused
};

}  // namespace mcb::harness
