/// @file
/// @brief [GS] One global scheduler with one global queue for single- and multi-component
/// jobs; it knows the idle processors of every cluster and chooses the clusters of each job
/// (DAS-2 paper section 2.4). The queue is disabled when nothing in it can start and enabled
/// again at the next departure.
#include "simulator/engine.hpp"
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

class GlobalScheduler final : public Policy {
 public:
  std::string_view name() const override { return "gs"; }
  int queue_count() const override { return 1; }
  std::string queue_name(int) const override { return "global"; }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    job.queue = 0;
    job.allowed = kAllClusters >> (64 - machine.clusters());
    if (job.home < 0) job.home = draw_home(machine, 1, rng);
  }

  void on_arrival(int q, bool backfilling) override {
    if (backfilling) ring_.enable(q);
  }
  void on_departure() override { ring_.enable_disabled(); }
  void schedule(Sim& sim) override { ring_.rounds(sim); }

 private:
  QueueRing ring_{1};
};

}  // namespace

std::unique_ptr<Policy> make_global_scheduler() { return std::make_unique<GlobalScheduler>(); }

}  // namespace mcb::sim
