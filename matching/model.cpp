#include "matching/model.hpp"

#include <algorithm>

namespace mcb::matching {

int Platform::node_count() const {
  int n = 0;
  for (const Cluster& c : clusters) n += static_cast<int>(c.nodes.size());
  return n;
}

int Assignment::total() const {
  int n = 0;
  for (const auto& c : nodes) n += static_cast<int>(c.size());
  return n;
}

double effective_power(const Node& node) { return node.power * node.availability; }

double node_processing_slowdown(const Node& node) { return 1.0 / effective_power(node); }

double link_demand(int on_cluster, int total, double pnbw) {
  if (total <= 1) return 0.0;
  return on_cluster * pnbw * (total - on_cluster) / (total - 1.0);
}

double saturation_degree(double max, double consumed, double demand) {
  return max / (consumed + demand);
}

double link_slowdown(double max, double consumed, double demand) {
  return 1.0 / saturation_degree(max, consumed, demand);
}

bool node_eligible(const Node& node, const Job& job) {
  return effective_power(node) > 0.0 && node.link_max - node.link_consumed >= job.pnbw;
}

Prediction predict(const Platform& platform, const Job& job, const Assignment& assignment) {
  Prediction p;
  const int total = assignment.total();
  for (std::size_t i = 0; i < platform.clusters.size(); ++i) {
    const Cluster& cluster = platform.clusters[i];
    for (int k : assignment.nodes[i]) {
      const Node& node = cluster.nodes[static_cast<std::size_t>(k)];
      p.processing_slowdown = std::max(p.processing_slowdown, node_processing_slowdown(node));
    }
    const int n = assignment.on_cluster(i);
    if (n == 0 || n == total) continue;  // the job does not cross this link
    const double demand = link_demand(n, total, job.pnbw);
    const double sc = link_slowdown(cluster.link_max, cluster.link_consumed, demand);
    p.saturated =
        p.saturated || saturation_degree(cluster.link_max, cluster.link_consumed, demand) < 1.0;
    p.communication_slowdown = std::max(p.communication_slowdown, sc);
  }
  p.time = job.processing * p.processing_slowdown + job.communication * p.communication_slowdown;
  return p;
}

}  // namespace mcb::matching
