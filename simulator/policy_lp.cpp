/// @file
/// @brief [LP] Local queues with priority plus a global queue (DAS-2 paper section 2.4).
/// Single-component jobs join their cluster's local queue and run only there; multi-component
/// (and flexible) jobs join the global queue and are co-allocated over the system. The global
/// queue may start jobs only while at least one local queue is empty. At a departure, if a local
/// queue is empty, the global and the local queues are all enabled, the global one first;
/// otherwise only the local queues are, and the global queue is added to the visited queues
/// as soon as a local queue gets empty.
#include "simulator/engine.hpp"
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

bool single_component(const Request& req) {
  return req.type != RequestType::kFlexible && req.sizes.size() == 1;
}

class LocalPriority final : public Policy {
 public:
  explicit LocalPriority(int clusters) : clusters_(clusters), ring_(clusters + 1) {
    ring_.enable_first(clusters_);
  }
  std::string_view name() const override { return "lp"; }
  int queue_count() const override { return clusters_ + 1; }
  std::string queue_name(int q) const override {
    return q == clusters_ ? "global" : "local" + std::to_string(q);
  }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    const bool single = single_component(job.req);
    if (job.req.type == RequestType::kFixed && single) job.home = job.req.clusters.front();
    if (job.home < 0 || job.home >= machine.clusters()) {
      job.home = draw_home(machine, single ? job.req.sizes.front() : 1, rng);
    }
    job.queue = single ? job.home : clusters_;
    job.allowed = single ? ClusterMask{1} << job.home : kAllClusters >> (64 - machine.clusters());
  }

  std::string never_runs(const Request& req, int home, const MachineSpec& machine,
                         const PlacementRule& placement) const override {
    if (single_component(req) && req.type != RequestType::kFixed) {
      if (home >= 0 && home < machine.clusters()) {
        return machine.sizes[static_cast<size_t>(home)] >= req.total
                   ? std::string()
                   : "it is larger than its home cluster " + std::to_string(home);
      }
      return machine.largest() >= req.total ? std::string() : "it is larger than every cluster";
    }
    return Policy::never_runs(req, home, machine, placement);
  }

  bool may_start(int q, const Sim& sim) const override {
    return q != clusters_ || some_local_empty(sim);
  }

  void on_arrival(int q, bool backfilling) override {
    if (backfilling && ring_.is_disabled(q)) ring_.enable(q);
  }
  void on_departure() override { departed_ = true; }

  void schedule(Sim& sim) override {
    const int global = clusters_;
    if (departed_) {
      departed_ = false;
      ring_.enable_disabled();
      if (some_local_empty(sim)) {
        ring_.enable_first(global);
      } else {
        ring_.withdraw(global);
      }
    } else if (!ring_.is_enabled(global) && !ring_.is_disabled(global) && some_local_empty(sim)) {
      ring_.enable(global);
    }
    std::array<int, kMaxClusters + 1> round{};
    while (true) {
      const int n = ring_.enabled_count();
      for (int i = 0; i < n; ++i) round[static_cast<size_t>(i)] = ring_.enabled_at(i);
      bool started = false;
      for (int i = 0; i < n; ++i) {
        const int q = round[static_cast<size_t>(i)];
        if (!ring_.is_enabled(q)) continue;
        if (q == global) {
          if (!some_local_empty(sim)) {
            ring_.withdraw(global);
            continue;
          }
          if (sim.queue(q).empty()) continue;
          if (sim.try_start(q)) {
            started = true;
          } else {
            ring_.disable(q);
          }
          continue;
        }
        if (sim.queue(q).empty()) continue;
        if (sim.try_start(q)) {
          started = true;
          if (sim.queue(q).empty() && !ring_.is_enabled(global) && !ring_.is_disabled(global)) {
            ring_.enable(global);
          }
        } else {
          ring_.disable(q);
        }
      }
      if (!started) break;
    }
  }

 private:
  bool some_local_empty(const Sim& sim) const {
    for (int q = 0; q < clusters_; ++q) {
      if (sim.queue(q).empty()) return true;
    }
    return false;
  }

  int clusters_;
  QueueRing ring_;
  bool departed_ = false;
};

}  // namespace

std::unique_ptr<Policy> make_local_priority(int clusters) {
  return std::make_unique<LocalPriority>(clusters);
}

}  // namespace mcb::sim
