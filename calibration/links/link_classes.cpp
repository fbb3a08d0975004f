#include "calibration/links/link_classes.hpp"

namespace mcb::links {

const char* class_name(LinkClass c) {
  switch (c) {
    case LinkClass::same_node:
      return "same_node";
    case LinkClass::same_cluster:
      return "same_cluster";
    case LinkClass::cross_cluster:
      return "cross_cluster";
  }
  return "?";
}

LinkClass classify(int a, int b, const std::vector<std::string>& hosts,
                   const harness::ClusterMap& map) {
  if (!map.same_cluster(a, b)) return LinkClass::cross_cluster;
  return hosts.at(static_cast<size_t>(a)) == hosts.at(static_cast<size_t>(b))
             ? LinkClass::same_node
             : LinkClass::same_cluster;
}

std::map<LinkClass, RankPair> representative_pairs(const std::vector<std::string>& hosts,
                                                   const harness::ClusterMap& map) {
  std::map<LinkClass, RankPair> pairs;
  for (int a = 0; a < map.ranks(); ++a) {
    for (int b = a + 1; b < map.ranks(); ++b)
      pairs.emplace(classify(a, b, hosts, map), RankPair{a, b});
  }
  return pairs;
}

std::optional<std::array<RankPair, 2>> pairs_sharing_a_link(const harness::ClusterMap& map) {
  for (int from = 0; from < map.clusters(); ++from) {
    for (int to = 0; to < map.clusters(); ++to) {
      if (from == to) continue;
      std::vector<int> senders;
      std::vector<int> receivers;
      for (int r = 0; r < map.ranks(); ++r) {
        if (map.cluster_of(r) == from) senders.push_back(r);
        if (map.cluster_of(r) == to) receivers.push_back(r);
      }
      if (senders.size() >= 2 && receivers.size() >= 2) {
        return std::array<RankPair, 2>{RankPair{senders[0], receivers[0]},
                                       RankPair{senders[1], receivers[1]}};
      }
    }
  }
  return std::nullopt;
}

std::optional<RankPair> relay_pair(const harness::ClusterMap& map) {
  if (map.clusters() < 2) return std::nullopt;
  auto pick = [&](int cluster) {
    int gateway = -1;
    for (int r = 0; r < map.ranks(); ++r) {
      if (map.cluster_of(r) != cluster) continue;
      if (gateway < 0) {
        gateway = r;
      } else {
        return r;  // the second rank of the cluster: not its gateway
      }
    }
    return gateway;
  };
  return RankPair{pick(map.cluster_of(0)), pick(map.cluster_of(0) == 0 ? 1 : 0)};
}

}  // namespace mcb::links
