/// @file
/// @brief Independent clusters (001 section VI.A): each cluster has its own queue, receives
/// the jobs of its own users and runs them only there, whole; no load sharing, no
/// co-allocation. The baseline against which grid sharing is measured.
#include "simulator/moldable.hpp"
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

class IndependentClusters final : public RoundRobinPolicy {
 public:
  explicit IndependentClusters(int clusters) : RoundRobinPolicy(clusters) {}
  std::string_view name() const override { return "ic"; }
  std::string queue_name(int q) const override { return local_queue_name(q); }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    make_one_component(job.req);
    if (job.home < 0 || job.home >= machine.clusters()) {
      job.home = draw_home(machine, smallest_size(job.req), rng);
    }
    job.queue = job.home;
    job.allowed = ClusterMask{1} << job.home;
  }

  std::string never_runs(const Request& req, int home, const MachineSpec& machine,
                         const PlacementRule&) const override {
    return too_large_for_one_cluster(smallest_size(req), home, machine,
                                     " and clusters run their own jobs only");
  }
};

}  // namespace

std::unique_ptr<Policy> make_independent_clusters(int clusters) {
  return std::make_unique<IndependentClusters>(clusters);
}

}  // namespace mcb::sim
