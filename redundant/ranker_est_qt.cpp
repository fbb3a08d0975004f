/// @file
/// @brief Est. QT: the queuing time the site's discipline would give the job, computed from
/// the requested runtimes of its running and queued jobs (seed 004 section 3, criterion 4).
#include "redundant/ranker.hpp"

namespace mcb::redundant {
namespace {

class EstQtRanker final : public Ranker {
 public:
  std::string_view name() const override { return "est-qt"; }
  double score(const sim::Sim& sim, const GridState& state, int site,
               const RankedJob& job) override {
    return forecast_wait(sim, state, site, job, false);
  }
};

}  // namespace

std::unique_ptr<Ranker> make_est_qt_ranker() { return std::make_unique<EstQtRanker>(); }

}  // namespace mcb::redundant
