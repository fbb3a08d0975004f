/// @file
/// @brief Ideal Min: the queuing time computed from the actual runtimes of the site's running
/// and queued jobs (seed 004 section 3, criterion 5). No scheduler knows these; it is the
/// benchmark the others are normalized to.
#include "redundant/ranker.hpp"

namespace mcb::redundant {
namespace {

class IdealMinRanker final : public Ranker {
 public:
  std::string_view name() const override { return "ideal-min"; }
  double score(const sim::Sim& sim, const GridState& state, int site,
               const RankedJob& job) override {
    return forecast_wait(sim, state, site, job, true);
  }
};

}  // namespace

std::unique_ptr<Ranker> make_ideal_min_ranker() { return std::make_unique<IdealMinRanker>(); }

}  // namespace mcb::redundant
