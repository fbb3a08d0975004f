/// @file
/// @brief [LS] A local scheduler and queue per cluster (DAS-2 paper section 2.4). Every queue
/// receives single- and multi-component jobs; single-component jobs run only on their own
/// cluster, multi-component (and flexible) jobs are co-allocated over the whole system. A pass
/// visits the enabled queues round-robin, starting at most one job from each per round; a queue
/// whose head does not fit is disabled until the next departure, and disabled queues are
/// enabled again in the order in which they were disabled.
#include "simulator/engine.hpp"
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

bool single_component(const Request& req) {
  return req.type != RequestType::kFlexible && req.sizes.size() == 1;
}

class LocalSchedulers final : public Policy {
 public:
  explicit LocalSchedulers(int clusters) : clusters_(clusters), ring_(clusters) {}
  std::string_view name() const override { return "ls"; }
  int queue_count() const override { return clusters_; }
  std::string queue_name(int q) const override { return "local" + std::to_string(q); }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    const bool single = single_component(job.req);
    if (job.req.type == RequestType::kFixed && single) job.home = job.req.clusters.front();
    if (job.home < 0 || job.home >= machine.clusters()) {
      job.home = draw_home(machine, single ? job.req.sizes.front() : 1, rng);
    }
    job.queue = job.home;
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

  void on_arrival(int q, bool backfilling) override {
    if (backfilling) ring_.enable(q);
  }
  void on_departure() override { ring_.enable_disabled(); }
  void schedule(Sim& sim) override { ring_.rounds(sim); }

 private:
  int clusters_;
  QueueRing ring_;
};

}  // namespace

std::unique_ptr<Policy> make_local_schedulers(int clusters) {
  return std::make_unique<LocalSchedulers>(clusters);
}

}  // namespace mcb::sim
