#include "simulator/policy.hpp"

#include "simulator/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace mcb::sim {

std::unique_ptr<Policy> make_global_scheduler();
std::unique_ptr<Policy> make_local_schedulers(int clusters);
std::unique_ptr<Policy> make_local_priority(int clusters);
std::unique_ptr<Policy> make_independent_clusters(int clusters);
std::unique_ptr<Policy> make_load_sharing_grid();

std::unique_ptr<Policy> make_policy(std::string_view name, int clusters) {
  if (name == "gs") return make_global_scheduler();
  if (name == "ls") return make_local_schedulers(clusters);
  if (name == "lp") return make_local_priority(clusters);
  if (name == "ic") return make_independent_clusters(clusters);
  if (name == "grid") return make_load_sharing_grid();
  throw std::invalid_argument("'" + std::string(name) + "' is not a policy (gs, ls, lp, ic, grid)");
}

std::string Policy::never_runs(const Request& req, int /*home*/, const MachineSpec& machine,
                               const PlacementRule& placement) const {
  std::vector<int> out(machine.sizes.size());
  if (!placement.place(req, machine.sizes, out)) {
    return "it does not fit the empty system";
  }
  return {};
}

int draw_home(const MachineSpec& machine, int need, Rng& rng) {
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

void QueueRing::erase_enabled(int q) {
  for (int i = 0; i < enabled_count_; ++i) {
    if (enabled_[static_cast<size_t>(i)] == q) {
      for (int k = i; k + 1 < enabled_count_; ++k) {
        enabled_[static_cast<size_t>(k)] = enabled_[static_cast<size_t>(k) + 1];
      }
      --enabled_count_;
      return;
    }
  }
}

void QueueRing::disable(int q) {
  if (!is_enabled(q)) return;
  erase_enabled(q);
  disabled_[static_cast<size_t>(disabled_count_++)] = q;
  state_[static_cast<size_t>(q)] = kDisabled;
}

void QueueRing::withdraw(int q) {
  if (is_enabled(q)) erase_enabled(q);
  if (is_disabled(q)) {
    for (int i = 0; i < disabled_count_; ++i) {
      if (disabled_[static_cast<size_t>(i)] == q) {
        for (int k = i; k + 1 < disabled_count_; ++k) {
          disabled_[static_cast<size_t>(k)] = disabled_[static_cast<size_t>(k) + 1];
        }
        --disabled_count_;
        break;
      }
    }
  }
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
  std::array<int, kMaxClusters + 1> round{};
  while (true) {
    const int n = enabled_count_;
    std::copy_n(enabled_.begin(), n, round.begin());
    bool started = false;
    for (int i = 0; i < n; ++i) {
      const int q = round[static_cast<size_t>(i)];
      if (!is_enabled(q) || sim.queue(q).empty()) continue;
      if (sim.try_start(q)) {
        started = true;
      } else {
        disable(q);
      }
    }
    if (!started) break;
  }
}

}  // namespace mcb::sim
