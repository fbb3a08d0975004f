/// @file
/// @brief Qlen: the number of jobs waiting in the site's queue (seed 004 section 3,
/// criterion 2); the shorter queue ranks higher.
#include "redundant/ranker.hpp"

namespace mcb::redundant {
namespace {

class QlenRanker final : public Ranker {
 public:
  std::string_view name() const override { return "qlen"; }
  double score(const sim::Sim& sim, const GridState&, int site, const RankedJob&) override {
    return static_cast<double>(sim.queue(site).size());
  }
};

}  // namespace

std::unique_ptr<Ranker> make_qlen_ranker() { return std::make_unique<QlenRanker>(); }

}  // namespace mcb::redundant
