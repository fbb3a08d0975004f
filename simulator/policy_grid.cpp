/// @file
/// @brief Load-sharing grid (001 section VI.B): one global scheduler and queue for the jobs of
/// every site; each job keeps its home site but runs whole on exactly one cluster, chosen by
/// the placement rule (Worst Fit: the cluster with the most idle processors). No job uses
/// processors of several clusters at once.
#include "simulator/moldable.hpp"
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

class LoadSharingGrid final : public RoundRobinPolicy {
 public:
  LoadSharingGrid() : RoundRobinPolicy(1) {}
  std::string_view name() const override { return "grid"; }
  std::string queue_name(int) const override { return "global"; }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    make_one_component(job.req);
    if (job.home < 0 || job.home >= machine.clusters()) job.home = draw_home(machine, 1, rng);
    job.queue = 0;
    job.allowed = machine.all();
  }

  std::string never_runs(const Request& req, int, const MachineSpec& machine,
                         const PlacementRule&) const override {
    return too_large_for_one_cluster(smallest_size(req), -1, machine,
                                     " and the grid runs each job on one cluster");
  }
};

}  // namespace

std::unique_ptr<Policy> make_load_sharing_grid() { return std::make_unique<LoadSharingGrid>(); }

}  // namespace mcb::sim
