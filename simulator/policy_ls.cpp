/// @file
/// @brief [LS] A local scheduler and queue per cluster (DAS-2 paper section 2.4). Every queue
/// receives single- and multi-component jobs; single-component jobs run only on their own
/// cluster, multi-component (and flexible) jobs are co-allocated over the whole system. A pass
/// visits the enabled queues round-robin, starting at most one job from each per round; a queue
/// whose head does not fit is disabled until the next departure, and disabled queues are
/// enabled again in the order in which they were disabled.
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

class LocalSchedulers final : public RoundRobinPolicy {
 public:
  explicit LocalSchedulers(int clusters) : RoundRobinPolicy(clusters) {}
  std::string_view name() const override { return "ls"; }
  std::string queue_name(int q) const override { return local_queue_name(q); }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    admit_local_or_system(job, machine, rng);
    job.queue = job.home;
  }

  std::string never_runs(const Request& req, int home, const MachineSpec& machine,
                         const PlacementRule& placement) const override {
    return never_runs_local_or_system(req, home, machine, placement);
  }
};

}  // namespace

std::unique_ptr<Policy> make_local_schedulers(int clusters) {
  return std::make_unique<LocalSchedulers>(clusters);
}

}  // namespace mcb::sim
