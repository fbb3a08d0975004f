/// @file
/// @brief Workload: the jobs the site processed in the last time period (seed 004 section 3,
/// criterion 3): those running now plus those that ended within the period. Fewer ranks
/// higher.
#include "redundant/ranker.hpp"

namespace mcb::redundant {
namespace {

class WorkloadRanker final : public Ranker {
 public:
  std::string_view name() const override { return "workload"; }
  double score(const sim::Sim& sim, const GridState& state, int site, const RankedJob&) override {
    int running = 0;
    const auto s = static_cast<size_t>(site);
    for (const sim::JobId id : sim.running()) {
      const auto& alloc = sim.job(id).alloc;
      running += alloc.size() > s && alloc[s] > 0;
    }
    return running + state.recent_departures(site, sim.now());
  }
};

}  // namespace

std::unique_ptr<Ranker> make_workload_ranker() { return std::make_unique<WorkloadRanker>(); }

}  // namespace mcb::redundant
