#pragma once
/// @file
/// @brief The link classes of a run (docs/records.md, "Link calibration"): two ranks are joined
/// across clusters when their clusters differ, else on the same node when they share a host,
/// else within the same cluster over its network.

#include "harness/cluster_map.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcb::links {

enum class LinkClass { same_node = 0, same_cluster = 1, cross_cluster = 2 };
inline constexpr std::array<LinkClass, 3> kLinkClasses{
    LinkClass::same_node, LinkClass::same_cluster, LinkClass::cross_cluster};

/// @brief "same_node", "same_cluster", "cross_cluster".
const char* class_name(LinkClass c);

using RankPair = std::pair<int, int>;

/// @brief The class of the link between ranks @p a and @p b (@p hosts: one host name per rank).
LinkClass classify(int a, int b, const std::vector<std::string>& hosts,
                   const harness::ClusterMap& map);

/// @brief For each class present in the run, the pair that represents it: the lowest first rank,
/// then the lowest second rank.
std::map<LinkClass, RankPair> representative_pairs(const std::vector<std::string>& hosts,
                                                   const harness::ClusterMap& map);

/// @brief Two disjoint cross-cluster pairs whose senders share a cluster and whose receivers
/// share another, so both transfers cross the same link direction; none when the run has no
/// two such pairs.
std::optional<std::array<RankPair, 2>> pairs_sharing_a_link(const harness::ClusterMap& map);

/// @brief A cross-cluster pair for the relay study: the lowest rank of cluster 0 and of another
/// cluster that are not gateways (the lowest rank of a cluster), so a relayed message takes all
/// three hops; gateways stand in when a cluster has no other rank.
std::optional<RankPair> relay_pair(const harness::ClusterMap& map);

}  // namespace mcb::links
