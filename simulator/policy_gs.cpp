/// @file
/// @brief [GS] One global scheduler with one global queue for single- and multi-component
/// jobs; it knows the idle processors of every cluster and chooses the clusters of each job
/// (DAS-2 paper section 2.4). The queue is disabled when nothing in it can start and enabled
/// again at the next departure.
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

class GlobalScheduler final : public RoundRobinPolicy {
 public:
  GlobalScheduler() : RoundRobinPolicy(1) {}
  std::string_view name() const override { return "gs"; }
  std::string queue_name(int) const override { return "global"; }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    job.queue = 0;
    job.allowed = machine.all();
    if (job.home < 0) job.home = draw_home(machine, 1, rng);
  }
};

}  // namespace

std::unique_ptr<Policy> make_global_scheduler() { return std::make_unique<GlobalScheduler>(); }

}  // namespace mcb::sim
