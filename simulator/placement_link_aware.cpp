/// @file
/// @brief Link-aware placement (seed 002): a flexible request is matched to the idle nodes by
/// one of the three matchers of matching/ (optimal, non-saturated, first-feasible), with the
/// inter-cluster links loaded by the co-allocated jobs already running; every job then runs for
/// the time the model predicts, its single-cluster time x (T^p SP + T^c SC) / (T^p + T^c)
/// (eq. 1). Components of non-flexible requests go where Worst Fit puts them and get the same
/// model. The rule tracks which nodes each job holds (the fastest idle ones of each cluster it
/// was given) and the bandwidth it takes on each link, from start to departure.
#include "matching/matcher.hpp"
#include "simulator/placement.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace mcb::sim {
namespace {

using namespace placement_detail;
namespace mt = matching;

class LinkAware final : public PlacementRule {
 public:
  explicit LinkAware(const PlacementSettings& s)
      : platform_(s.platform),
        matcher_(mt::parse_matcher(s.matcher)),
        solver_(mt::make_solver("glpk")),
        options_{s.time_limit, false},
        job_{1, s.pnbw, 1.0 - s.comm_share, s.comm_share} {
    if (!platform_) throw std::invalid_argument("'link-aware' needs --platform");
    busy_.resize(platform_->clusters.size());
    for (std::size_t c = 0; c < busy_.size(); ++c) {
      busy_[c].assign(platform_->clusters[c].nodes.size(), 0);
    }
    load_.assign(busy_.size(), 0.0);
  }

  std::string_view name() const override { return "link-aware"; }

  double on_start(std::uint32_t job, const Request& req, std::span<const int> alloc) override {
    const View v = view(alloc);
    mt::Assignment a;
    a.nodes.resize(alloc.size());
    Held held;
    for (std::size_t c = 0; c < alloc.size(); ++c) {
      if (static_cast<std::size_t>(alloc[c]) > v.nodes[c].size()) {
        throw std::logic_error("link-aware: cluster " + std::to_string(c) + " has fewer idle " +
                               "nodes than the placement takes");
      }
      for (int k = 0; k < alloc[c]; ++k) {
        a.nodes[c].push_back(k);  // the view lists the idle nodes fastest first
        const int node = v.nodes[c][static_cast<std::size_t>(k)];
        busy_[c][static_cast<std::size_t>(node)] = 1;
        held.nodes.push_back({static_cast<int>(c), node});
      }
    }
    mt::Job job_model = job_;
    job_model.tasks = a.total();
    const mt::Prediction p = mt::predict(v.platform, job_model, a);
    held.demand.assign(alloc.size(), 0.0);
    for (std::size_t c = 0; c < alloc.size(); ++c) {
      if (alloc[c] == 0 || alloc[c] == req.total) continue;  // the job does not cross link c
      held.demand[c] = mt::link_demand(alloc[c], req.total, job_.pnbw);
      load_[c] += held.demand[c];
    }
    held_[job] = std::move(held);
    ++version_;
    return p.time / (job_.processing + job_.communication);
  }

  void on_depart(std::uint32_t job) override {
    const auto it = held_.find(job);
    if (it == held_.end()) return;
    for (const auto& [c, node] : it->second.nodes) {
      busy_[static_cast<std::size_t>(c)][static_cast<std::size_t>(node)] = 0;
    }
    for (std::size_t c = 0; c < load_.size(); ++c) load_[c] -= it->second.demand[c];
    held_.erase(it);
    ++version_;
  }

 protected:
  // Non-flexible components: Worst Fit's choice (the model prices them at start).
  int choose(int size, std::span<const int> free, std::span<const int> taken,
             bool distinct) const override {
    return best_cluster(free, taken, distinct, size,
                        [&](size_t c, size_t kept) { return free[c] > free[kept]; });
  }

  bool place_flexible(const Request& req, const FlexLimits& lim, std::span<const int> avail,
                      std::span<int> out) const override {
    Key key{version_, req.total,  lim.lo,
            lim.cap,  lim.counts, std::vector<int>(avail.begin(), avail.end())};
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
  // The idle nodes of each cluster, fastest first, at most avail[c] of them, with the links'
  // consumed bandwidth raised by the jobs running.
  struct View {
    mt::Platform platform;
    std::vector<std::vector<int>> nodes;  // view node k of cluster c is platform node nodes[c][k]
  };
  View view(std::span<const int> avail) const {
    View v;
    v.nodes.resize(busy_.size());
    for (std::size_t c = 0; c < busy_.size(); ++c) {
      const mt::Cluster& src = platform_->clusters[c];
      for (std::size_t k = 0; k < busy_[c].size(); ++k) {
        if (!busy_[c][k]) v.nodes[c].push_back(static_cast<int>(k));
      }
      std::stable_sort(v.nodes[c].begin(), v.nodes[c].end(), [&](int x, int y) {
        return mt::effective_power(src.nodes[static_cast<std::size_t>(x)]) >
               mt::effective_power(src.nodes[static_cast<std::size_t>(y)]);
      });
      if (v.nodes[c].size() > static_cast<std::size_t>(std::max(0, avail[c]))) {
        v.nodes[c].resize(static_cast<std::size_t>(std::max(0, avail[c])));
      }
      mt::Cluster cl{src.name, {}, src.link_max, src.link_consumed + load_[c]};
      for (int k : v.nodes[c]) cl.nodes.push_back(src.nodes[static_cast<std::size_t>(k)]);
      v.platform.clusters.push_back(std::move(cl));
    }
    return v;
  }

  // Processors per cluster of the match, or empty when there is none now.
  std::vector<int> solve(const Request& req, const FlexLimits& lim,
                         std::span<const int> avail) const {
    const View v = view(avail);
    mt::Job job = job_;
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

  struct Held {
    std::vector<std::pair<int, int>> nodes;  // (cluster, node)
    std::vector<double> demand;              // per link
  };
  using Key = std::tuple<std::uint64_t, int, int, int, std::uint64_t, std::vector<int>>;

  std::shared_ptr<const mt::Platform> platform_;
  mt::Matcher matcher_;
  std::unique_ptr<mt::MipSolver> solver_;
  mt::MipOptions options_;
  mt::Job job_;  // T^p + T^c = 1: the model's T is the factor on the single-cluster time
  std::vector<std::vector<char>> busy_;
  std::vector<double> load_;  // bandwidth of running jobs on each link
  std::unordered_map<std::uint32_t, Held> held_;
  std::uint64_t version_ = 0;
  mutable std::map<Key, std::vector<int>> cache_;
};

}  // namespace

std::unique_ptr<PlacementRule> make_link_aware(const PlacementSettings& settings) {
  return std::make_unique<LinkAware>(settings);
}

}  // namespace mcb::sim
