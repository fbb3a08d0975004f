/// @file
/// @brief Load-sharing grid (001 section VI.B): one global scheduler and queue for the jobs of
/// every site; each job keeps its home site but runs whole on exactly one cluster, chosen by
/// the placement rule (Worst Fit: the cluster with the most idle processors). No job uses
/// processors of several clusters at once.
#include "simulator/engine.hpp"
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

class LoadSharingGrid final : public Policy {
 public:
  std::string_view name() const override { return "grid"; }
  int queue_count() const override { return 1; }
  std::string queue_name(int) const override { return "global"; }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    job.req.type = RequestType::kUnordered;
    job.req.sizes.assign(1, job.req.total);
    job.req.clusters.clear();
    if (job.home < 0 || job.home >= machine.clusters()) job.home = draw_home(machine, 1, rng);
    job.queue = 0;
    job.allowed = kAllClusters >> (64 - machine.clusters());
  }

  std::string never_runs(const Request& req, int, const MachineSpec& machine,
                         const PlacementRule&) const override {
    return machine.largest() >= req.total
               ? std::string()
               : "it is larger than every cluster and the grid runs each job on one cluster";
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

std::unique_ptr<Policy> make_load_sharing_grid() { return std::make_unique<LoadSharingGrid>(); }

}  // namespace mcb::sim
