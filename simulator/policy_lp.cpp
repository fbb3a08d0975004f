/// @file
/// @brief [LP] Local queues with priority plus a global queue (DAS-2 paper section 2.4).
/// Single-component jobs join their cluster's local queue and run only there; multi-component
/// (and flexible) jobs join the global queue and are co-allocated over the system. The global
/// queue may start jobs only while at least one local queue is empty. At a departure, if a local
/// queue is empty, the global and the local queues are all enabled, the global one first;
/// otherwise only the local queues are, and the global queue is added to the visited queues
/// as soon as a local queue gets empty (within the round in progress: see GlobalVisit).
#include "simulator/engine.hpp"
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

class LocalPriority final : public Policy {
 public:
  LocalPriority(int clusters, GlobalVisit visit)
      : clusters_(clusters), visit_(visit), ring_(clusters + 1) {
    ring_.enable_first(clusters_);
  }
  std::string_view name() const override { return "lp"; }
  int queue_count() const override { return clusters_ + 1; }
  std::string queue_name(int q) const override {
    return q == clusters_ ? "global" : local_queue_name(q);
  }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    const bool single = admit_local_or_system(job, machine, rng);
    job.queue = single ? job.home : clusters_;
  }

  std::string never_runs(const Request& req, int home, const MachineSpec& machine,
                         const PlacementRule& placement) const override {
    return never_runs_local_or_system(req, home, machine, placement);
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
      int n = ring_.enabled_count();
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
            add_to_round(round, n, i);
          }
        } else {
          ring_.disable(q);
        }
      }
      if (!started) break;
    }
  }

 private:
  // The global queue, just enabled after the visit at position i, joins the round in progress
  // (never already in it: it was not enabled when the round began).
  void add_to_round(std::array<int, kMaxClusters + 1>& round, int& n, int i) const {
    if (visit_ == GlobalVisit::kNextRound) return;
    const int at = visit_ == GlobalVisit::kAtOnce ? i + 1 : n;
    for (int k = n; k > at; --k) round[static_cast<size_t>(k)] = round[static_cast<size_t>(k - 1)];
    round[static_cast<size_t>(at)] = clusters_;
    ++n;
  }

  bool some_local_empty(const Sim& sim) const {
    for (int q = 0; q < clusters_; ++q) {
      if (sim.queue(q).empty()) return true;
    }
    return false;
  }

  int clusters_;
  GlobalVisit visit_;
  QueueRing ring_;
  bool departed_ = false;
};

}  // namespace

std::unique_ptr<Policy> make_local_priority(int clusters, GlobalVisit visit) {
  return std::make_unique<LocalPriority>(clusters, visit);
}

}  // namespace mcb::sim
