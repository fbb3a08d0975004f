/// @file
/// @brief Independent clusters (001 section VI.A): each cluster has its own queue, receives
/// the jobs of its own users and runs them only there, whole; no load sharing, no
/// co-allocation. The baseline against which grid sharing is measured.
#include "simulator/engine.hpp"
#include "simulator/policy.hpp"

namespace mcb::sim {
namespace {

class IndependentClusters final : public Policy {
 public:
  explicit IndependentClusters(int clusters) : clusters_(clusters), ring_(clusters) {}
  std::string_view name() const override { return "ic"; }
  int queue_count() const override { return clusters_; }
  std::string queue_name(int q) const override { return "local" + std::to_string(q); }

  void admit(Job& job, const MachineSpec& machine, Rng& rng) const override {
    job.req.type = RequestType::kUnordered;
    job.req.sizes.assign(1, job.req.total);
    job.req.clusters.clear();
    if (job.home < 0 || job.home >= machine.clusters()) {
      job.home = draw_home(machine, job.req.total, rng);
    }
    job.queue = job.home;
    job.allowed = ClusterMask{1} << job.home;
  }

  std::string never_runs(const Request& req, int home, const MachineSpec& machine,
                         const PlacementRule&) const override {
    if (home >= 0 && home < machine.clusters()) {
      return machine.sizes[static_cast<size_t>(home)] >= req.total
                 ? std::string()
                 : "it is larger than its home cluster " + std::to_string(home) +
                       " and clusters run their own jobs only";
    }
    return machine.largest() >= req.total
               ? std::string()
               : "it is larger than every cluster and clusters run their own jobs only";
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

std::unique_ptr<Policy> make_independent_clusters(int clusters) {
  return std::make_unique<IndependentClusters>(clusters);
}

}  // namespace mcb::sim
