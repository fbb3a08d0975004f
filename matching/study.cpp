#include "matching/study.hpp"

#include "common/rng.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mcb::matching {
namespace {

// The suite's SplitMix64 (common/rng.hpp) used directly, as the study's platforms were first
// drawn: the same numbers on every platform and library, so a seed repeats everywhere.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() { return splitmix64(state); }
  double uniform() { return unit_interval(next()); }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(uniform() * n); }
};

const std::vector<Matcher> kAll{Matcher::kOptimal, Matcher::kNonSaturated, Matcher::kFirstFeasible};

}  // namespace

std::vector<StudyPoint> study_points() {
  std::vector<StudyPoint> points;
  const double pnbws[] = {0.25, 0.375, 0.5, 0.625, 0.75};
  const double las[] = {0.0, 0.25, 0.5, 0.75};
  for (double pnbw : pnbws) {
    for (double la : las) points.push_back({"5-6", 4, 8, pnbw, la, kAll});
  }
  for (int per : {4, 8, 16, 32}) {
    for (double pnbw : pnbws) points.push_back({"7-pnbw", 4, per, pnbw, 0.25, {Matcher::kOptimal}});
    for (double la : las) points.push_back({"7-la", 4, per, 0.5, la, {Matcher::kOptimal}});
  }
  for (int clusters : {2, 4, 8, 16, 32, 64}) points.push_back({"8", clusters, 8, 0.5, 0.25, kAll});
  return points;
}

Platform study_platform(const StudyPoint& point, const StudyConfig& config, std::uint64_t seed) {
  SplitMix rng{seed};
  Platform p;
  const int per = point.nodes_per_cluster;
  for (int i = 0; i < point.clusters; ++i) {
    Cluster c;
    c.name = "c" + std::to_string(i);
    c.nodes.assign(static_cast<std::size_t>(per), Node{});
    c.link_max = config.link_max;
    c.link_consumed = rng.uniform() * config.consumed_share * config.link_max;
    for (Node& n : c.nodes) n.link_max = 1.0;  // a node's link is the bandwidth unit
    p.clusters.push_back(std::move(c));
  }
  // Local activity on a random subset of all nodes (partial Fisher-Yates).
  const std::size_t total = static_cast<std::size_t>(p.node_count());
  std::vector<std::size_t> order(total);
  std::iota(order.begin(), order.end(), 0);
  const auto busy = static_cast<std::size_t>(std::lround(point.local_activity * total));
  for (std::size_t k = 0; k < busy; ++k) {
    std::swap(order[k], order[k + rng.below(total - k)]);
    const std::size_t at = order[k];
    p.clusters[at / per].nodes[at % per].availability = config.local_availability;
  }
  return p;
}

Job study_job(const StudyConfig& config, double pnbw) {
  Job j;
  j.tasks = config.tasks;
  j.pnbw = pnbw;
  j.processing = 1.0 - config.comm_share;
  j.communication = config.comm_share;
  return j;
}

std::uint64_t replication_seed(std::uint64_t seed, std::size_t index, int r) {
  SplitMix mix{seed ^ (static_cast<std::uint64_t>(index) << 20) ^ static_cast<std::uint64_t>(r)};
  return mix.next();
}

}  // namespace mcb::matching
