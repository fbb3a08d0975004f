#include "simulator/model_pricing.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mcb::sim {

namespace mt = matching;

ModelPricing::ModelPricing(std::shared_ptr<const mt::Platform> platform, double pnbw,
                           double comm_share, bool unsaturated)
    : platform_(std::move(platform)),
      job_{1, pnbw, 1.0 - comm_share, comm_share},
      unsaturated_(unsaturated) {
  if (!platform_) throw std::invalid_argument("model pricing needs --platform");
  const std::size_t clusters = platform_->clusters.size();
  order_.resize(clusters);
  busy_.resize(clusters);
  for (std::size_t c = 0; c < clusters; ++c) {
    const auto& nodes = platform_->clusters[c].nodes;
    busy_[c].assign(nodes.size(), 0);
    for (std::size_t k = 0; k < nodes.size(); ++k) order_[c].push_back(static_cast<int>(k));
    // Eligible nodes first, so that the nodes priced are those a matcher could have chosen.
    const auto key = [&](int k) {
      const mt::Node& n = nodes[static_cast<std::size_t>(k)];
      return std::make_pair(mt::node_eligible(n, job_), mt::effective_power(n));
    };
    std::stable_sort(order_[c].begin(), order_[c].end(),
                     [&](int x, int y) { return key(x) > key(y); });
  }
  load_.assign(clusters, 0.0);
}

ModelPricing::View ModelPricing::view(std::span<const int> avail) const {
  View v;
  v.nodes.resize(busy_.size());
  for (std::size_t c = 0; c < busy_.size(); ++c) {
    const mt::Cluster& src = platform_->clusters[c];
    const auto want = static_cast<std::size_t>(std::max(0, avail[c]));
    for (const char busy : {0, 1}) {
      for (int k : order_[c]) {
        if (v.nodes[c].size() < want && busy_[c][static_cast<std::size_t>(k)] == busy) {
          v.nodes[c].push_back(k);
        }
      }
    }
    mt::Cluster cl{src.name, {}, src.link_max, src.link_consumed + load_[c]};
    for (int k : v.nodes[c]) cl.nodes.push_back(src.nodes[static_cast<std::size_t>(k)]);
    v.platform.clusters.push_back(std::move(cl));
  }
  return v;
}

double ModelPricing::start(std::uint32_t job, std::span<const int> alloc) {
  const View v = view(alloc);
  mt::Assignment a;
  a.nodes.resize(alloc.size());
  Held held;
  for (std::size_t c = 0; c < alloc.size(); ++c) {
    for (int k = 0; k < alloc[c]; ++k) {
      const int node = v.nodes[c].at(static_cast<std::size_t>(k));
      if (busy_[c][static_cast<std::size_t>(node)]) {
        throw std::logic_error("model pricing: cluster " + std::to_string(c) +
                               " has fewer idle nodes than job " + std::to_string(job) + " takes");
      }
      a.nodes[c].push_back(k);
      held.nodes.emplace_back(static_cast<int>(c), node);
    }
  }
  mt::Job job_model = job_;
  job_model.tasks = a.total();
  const mt::Prediction p = mt::predict(v.platform, job_model, a);
  for (const auto& [c, node] : held.nodes) {
    busy_[static_cast<std::size_t>(c)][static_cast<std::size_t>(node)] = 1;
  }
  held.demand.assign(alloc.size(), 0.0);
  for (std::size_t c = 0; c < alloc.size(); ++c) {
    if (alloc[c] == 0 || alloc[c] == job_model.tasks) continue;  // does not cross link c
    held.demand[c] = mt::link_demand(alloc[c], job_model.tasks, job_.pnbw);
    load_[c] += held.demand[c];
  }
  held_[job] = std::move(held);
  ++version_;
  return p.time / (job_.processing + job_.communication);
}

void ModelPricing::depart(std::uint32_t job) {
  const auto it = held_.find(job);
  if (it == held_.end()) return;
  for (const auto& [c, node] : it->second.nodes) {
    busy_[static_cast<std::size_t>(c)][static_cast<std::size_t>(node)] = 0;
  }
  for (std::size_t c = 0; c < load_.size(); ++c) load_[c] -= it->second.demand[c];
  held_.erase(it);
  ++version_;
}

double ModelPricing::bound() const {
  double sp = 1.0;
  double sc = 1.0;
  for (const mt::Cluster& c : platform_->clusters) {
    for (const mt::Node& n : c.nodes) {
      if (mt::effective_power(n) > 0) sp = std::max(sp, mt::node_processing_slowdown(n));
    }
    if (!unsaturated_) {
      const double most = static_cast<double>(c.nodes.size()) * job_.pnbw;
      sc = std::max(sc, mt::link_slowdown(c.link_max, c.link_consumed, most));
    }
  }
  return (job_.processing * sp + job_.communication * sc) / (job_.processing + job_.communication);
}

}  // namespace mcb::sim
