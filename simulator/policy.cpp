#include "simulator/policy.hpp"

#include "simulator/engine.hpp"
#include "simulator/moldable.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace mcb::sim {

std::unique_ptr<Policy> make_global_scheduler();
std::unique_ptr<Policy> make_local_schedulers(int clusters);
std::unique_ptr<Policy> make_local_priority(int clusters, GlobalVisit visit);
std::unique_ptr<Policy> make_independent_clusters(int clusters);
std::unique_ptr<Policy> make_load_sharing_grid();

GlobalVisit parse_global_visit(std::string_view name) {
  if (name == "next-round") return GlobalVisit::kNextRound;
  if (name == "this-round") return GlobalVisit::kThisRound;
  if (name == "at-once") return GlobalVisit::kAtOnce;
  throw std::invalid_argument("'" + std::string(name) +
                              "' is not next-round, this-round or at-once");
}

std::unique_ptr<Policy> make_policy(std::string_view name, int clusters, GlobalVisit visit) {
  if (name == "gs") return make_global_scheduler();
  if (name == "ls") return make_local_schedulers(clusters);
  if (name == "lp") return make_local_priority(clusters, visit);
  if (name == "ic") return make_independent_clusters(clusters);
  if (name == "grid") return make_load_sharing_grid();
  throw std::invalid_argument("'" + std::string(name) + "' is not a policy (gs, ls, lp, ic, grid)");
}

std::string Policy::never_runs(const Request& req, int /*home*/, const MachineSpec& machine,
                               const PlacementRule& placement) const {
  return never_fits_empty_system(req, machine, placement);
}

std::string never_fits_empty_system(const Request& req, const MachineSpec& machine,
                                    const PlacementRule& placement) {
  int room[kMaxClusters];
  if (!placement.place(req, machine.sizes, std::span<int>(room, machine.sizes.size()))) {
    return "it does not fit the empty system";
  }
  return {};
}

std::string local_queue_name(int cluster) { return "local" + std::to_string(cluster); }

bool single_component(const Request& req) {
  return req.type != RequestType::kFlexible && req.sizes.size() == 1;
}

bool admit_local_or_system(Job& job, const MachineSpec& machine, Rng& rng) {
  const bool single = single_component(job.req);
  if (job.req.type == RequestType::kFixed && single) job.home = job.req.clusters.front();
  if (job.home < 0 || job.home >= machine.clusters()) {
    job.home = draw_home(machine, single ? smallest_size(job.req) : 1, rng);
  }
  job.allowed = single ? ClusterMask{1} << job.home : machine.all();
  return single;
}

std::string never_runs_local_or_system(const Request& req, int home, const MachineSpec& machine,
                                       const PlacementRule& placement) {
  if (single_component(req) && req.type != RequestType::kFixed) {
    return too_large_for_one_cluster(smallest_size(req), home, machine);
  }
  return never_fits_empty_system(req, machine, placement);
}

std::string too_large_for_one_cluster(int total, int home, const MachineSpec& machine,
                                      std::string_view why) {
  if (home >= 0 && home < machine.clusters()) {
    if (machine.sizes[static_cast<size_t>(home)] >= total) return {};
    return "it is larger than its home cluster " + std::to_string(home) + std::string(why);
  }
  if (machine.largest() >= total) return {};
  return "it is larger than every cluster" + std::string(why);
}

void make_one_component(Request& req) {
  if (req.type == RequestType::kMoldable) return;  // one component already, on one cluster
  req.type = RequestType::kUnordered;
  req.sizes.assign(1, req.total);
  req.clusters.clear();
}

int draw_home(const MachineSpec& machine, int need, Rng& rng) {
  // One cluster: every draw below picks it when it holds the job. Nothing is drawn, which
  // changes nothing else, since the generator draws homes only (a Sim's routing stream).
  if (machine.clusters() == 1) return machine.sizes.front() >= need ? 0 : -1;
  if (!machine.home_rates.empty()) {
    // Among the clusters that hold the job, by the sites' own arrival rates; a job that only
    // sites without arrivals can hold falls back to the clusters' sizes.
    double weight = 0;
    for (int c = 0; c < machine.clusters(); ++c) {
      if (machine.sizes[static_cast<size_t>(c)] >= need)
        weight += machine.home_rates[static_cast<size_t>(c)];
    }
    if (weight > 0) {
      double pick = rng.uniform() * weight;
      int last = -1;
      for (int c = 0; c < machine.clusters(); ++c) {
        const double r = machine.home_rates[static_cast<size_t>(c)];
        if (machine.sizes[static_cast<size_t>(c)] < need || r <= 0) continue;
        if (pick < r) return c;
        pick -= r;
        last = c;
      }
      return last;  // pick landed on the sum's rounding edge
    }
  }
  long long weight = 0;
  for (int s : machine.sizes) weight += s >= need ? s : 0;
  if (weight == 0) return -1;
  long long pick = static_cast<long long>(rng.below(static_cast<std::uint64_t>(weight)));
  for (int c = 0; c < machine.clusters(); ++c) {
    const int s = machine.sizes[static_cast<size_t>(c)];
    if (s < need) continue;
    if (pick < s) return c;
    pick -= s;
  }
  return -1;
}

QueueRing::QueueRing(int queues) {
  for (int q = 0; q < queues; ++q) {
    enabled_[static_cast<size_t>(q)] = q;
    state_[static_cast<size_t>(q)] = kEnabled;
  }
  enabled_count_ = queues;
}

namespace {

// Removes entry @p at of the first @p count entries of @p list, keeping the others in order.
template <size_t N>
void erase_at(std::array<int, N>& list, int& count, int at) {
  std::copy(list.begin() + at + 1, list.begin() + count, list.begin() + at);
  --count;
}

// Removes @p q from the first @p count entries of @p list, keeping the others in order.
template <size_t N>
void erase_queue(std::array<int, N>& list, int& count, int q) {
  const auto end = list.begin() + count;
  const auto at = std::find(list.begin(), end, q);
  if (at != end) erase_at(list, count, static_cast<int>(at - list.begin()));
}

}  // namespace

void QueueRing::disable(int q) {
  if (!is_enabled(q)) return;
  const auto end = enabled_.begin() + enabled_count_;
  disable_at(static_cast<int>(std::find(enabled_.begin(), end, q) - enabled_.begin()));
}

void QueueRing::disable_at(int i) {
  const int q = enabled_[static_cast<size_t>(i)];
  erase_at(enabled_, enabled_count_, i);
  disabled_[static_cast<size_t>(disabled_count_++)] = q;
  state_[static_cast<size_t>(q)] = kDisabled;
}

void QueueRing::withdraw(int q) {
  if (is_enabled(q)) erase_queue(enabled_, enabled_count_, q);
  if (is_disabled(q)) erase_queue(disabled_, disabled_count_, q);
  state_[static_cast<size_t>(q)] = kOut;
}

void QueueRing::enable(int q) {
  if (is_enabled(q)) return;
  withdraw(q);
  enabled_[static_cast<size_t>(enabled_count_++)] = q;
  state_[static_cast<size_t>(q)] = kEnabled;
}

void QueueRing::enable_first(int q) {
  withdraw(q);
  for (int k = enabled_count_; k > 0; --k) {
    enabled_[static_cast<size_t>(k)] = enabled_[static_cast<size_t>(k) - 1];
  }
  enabled_[0] = q;
  ++enabled_count_;
  state_[static_cast<size_t>(q)] = kEnabled;
}

void QueueRing::enable_disabled() {
  for (int i = 0; i < disabled_count_; ++i) {
    const int q = disabled_[static_cast<size_t>(i)];
    enabled_[static_cast<size_t>(enabled_count_++)] = q;
    state_[static_cast<size_t>(q)] = kEnabled;
  }
  disabled_count_ = 0;
}

void QueueRing::rounds(Sim& sim) {
  // Visited in place, without a copy of the order: during a round the ring changes only by
  // disabling the queue being visited, which takes it out at position i and moves the next
  // queue there, so the round goes on at the same position.
  while (true) {
    bool started = false;
    for (int i = 0; i < enabled_count_;) {
      const int q = enabled_[static_cast<size_t>(i)];
      if (sim.queue(q).empty()) {
        ++i;
      } else if (sim.try_start(q)) {
        started = true;
        ++i;
      } else {
        disable_at(i);
      }
    }
    if (!started) break;
  }
}

}  // namespace mcb::sim
