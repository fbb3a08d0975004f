/// @file
/// @brief Link-aware placement (seed 002): a flexible request is matched to the idle nodes by
/// one of the three matchers of matching/ (optimal, non-saturated, first-feasible), with the
/// inter-cluster links loaded by the co-allocated jobs already running, as the model pricing
/// every placement (model_pricing.hpp) keeps them. Components of non-flexible requests go
/// where Worst Fit puts them.
#include "matching/matcher.hpp"
#include "simulator/model_pricing.hpp"
#include "simulator/placement.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace mcb::sim {
namespace {

using namespace placement_detail;
namespace mt = matching;

class LinkAware final : public PlacementRule {
 public:
  explicit LinkAware(const PlacementSettings& s)
      : matcher_(mt::parse_matcher(s.matcher)),
        solver_(mt::make_solver("glpk")),
        options_{s.time_limit, false} {
    if (!s.platform) throw std::invalid_argument("'link-aware' needs --platform");
  }

  std::string_view name() const override { return "link-aware"; }

 protected:
  // Non-flexible components: Worst Fit's choice (the model prices them at start).
  int choose(int size, std::span<const int> free, std::span<const int> taken,
             bool distinct) const override {
    return worst_fit_cluster(size, free, taken, distinct);
  }

  bool place_flexible(const Request& req, const FlexLimits& lim, std::span<const int> avail,
                      std::span<int> out) const override {
    Key key{pricing()->version(),
            req.app,
            req.total,
            lim.lo,
            lim.cap,
            lim.counts,
            std::vector<int>(avail.begin(), avail.end())};
    auto hit = cache_.find(key);
    if (hit == cache_.end()) {
      if (cache_.size() > 4096) cache_.clear();
      hit = cache_.emplace(std::move(key), solve(req, lim, avail)).first;
    }
    if (hit->second.empty()) return false;
    std::copy(hit->second.begin(), hit->second.end(), out.begin());
    return true;
  }

 private:
  // Processors per cluster of the match over the model's view of the nodes and links (the
  // idle nodes, best first, and the links loaded by the running jobs), or empty when there is
  // none now.
  std::vector<int> solve(const Request& req, const FlexLimits& lim,
                         std::span<const int> avail) const {
    const ModelPricing::View v = pricing()->view(avail);
    mt::Job job = pricing()->job(req.app, req.total);
    job.tasks = req.total;
    const mt::SplitLimits limits{lim.lo, lim.cap, lim.counts};
    const mt::MatchResult r = mt::match(v.platform, job, matcher_, *solver_, options_, limits);
    if (r.hit_time_limit) {
      // A result that depends on the machine's speed would break the seed's reproducibility.
      throw std::runtime_error("link-aware: the " + std::string(mt::to_string(matcher_)) +
                               " matcher reached its time limit of " +
                               std::to_string(options_.time_limit) + " s on a job of " +
                               std::to_string(req.total) + " processors");
    }
    if (!r.found()) return {};
    if (!r.valid) throw std::logic_error("link-aware: match failed its check: " + r.check);
    std::vector<int> out(avail.size(), 0);
    for (std::size_t c = 0; c < out.size(); ++c) out[c] = r.assignment.on_cluster(c);
    return out;
  }

  using Key = std::tuple<std::uint64_t, int, int, int, int, std::uint64_t, std::vector<int>>;

  mt::Matcher matcher_;
  std::unique_ptr<mt::MipSolver> solver_;
  mt::MipOptions options_;
  mutable std::map<Key, std::vector<int>> cache_;
};

}  // namespace

std::unique_ptr<PlacementRule> make_link_aware(const PlacementSettings& settings) {
  return std::make_unique<LinkAware>(settings);
}

}  // namespace mcb::sim
