#include "matching/matcher.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace mcb::matching {
namespace {

constexpr double kInf = kUnlimited;

// Column indices of the program for one platform and job.
struct Layout {
  std::vector<std::vector<std::pair<int, int>>> x;  // per cluster: (node index, column)
  int sp = -1;
  int sc = -1;
  std::vector<int> unused;  // per cluster: y_i0, the cluster holds no task
};

// The number of clusters used, sum_i (1 - y_i0), is one of the allowed counts: one binary z_k
// per allowed k, exactly one of them set, sum_i y_i0 + sum_k k z_k = clusters.
void limit_cluster_count(MipProblem& p, std::size_t clusters, std::uint64_t allowed,
                         const Layout& layout) {
  const int n = static_cast<int>(clusters);
  bool restricts = false;
  for (int k = 1; k <= n && k < 64; ++k) restricts = restricts || !(allowed >> k & 1);
  if (!restricts) return;
  MipProblem::Row one{{}, 1.0, 1.0};
  MipProblem::Row used{{}, static_cast<double>(n), static_cast<double>(n)};
  for (int y : layout.unused) used.terms.push_back({y, 1.0});
  for (int k = 1; k <= n && k < 64; ++k) {
    if (!(allowed >> k & 1)) continue;
    const int z = p.add_column({0.0, 1.0, 0.0, true});
    one.terms.push_back({z, 1.0});
    used.terms.push_back({z, static_cast<double>(k)});
  }
  p.add_row(std::move(one));
  p.add_row(std::move(used));
}

// Fig. 4 as a linear program. x_ik: node k of cluster i takes a task. Because BW_i^j (eq. 4) is
// quadratic in n_i^j, n_i^j is written with one binary y_im per possible count m, and the
// link's slowdown (eqs. 5-6) at each m is a constant coefficient. SP >= SP_ik x_ik gives eq. 3,
// SC >= sum_m y_im SC_i(m) gives eq. 7; the objective is T^p SP + T^c SC (eqs. 1, 10).
MipProblem build(const Platform& platform, const Job& job, bool no_saturation,
                 const SplitLimits& limits, Layout& layout) {
  MipProblem p;
  layout.sp = p.add_column({1.0, kInf, job.processing, false});
  layout.sc = p.add_column({1.0, no_saturation ? 1.0 : kInf, job.communication, false});
  MipProblem::Row gang{{}, static_cast<double>(job.tasks), static_cast<double>(job.tasks)};
  layout.x.resize(platform.clusters.size());
  for (std::size_t i = 0; i < platform.clusters.size(); ++i) {
    const Cluster& cluster = platform.clusters[i];
    MipProblem::Row count{{}, 0.0, 0.0};  // sum_k x_ik - sum_m m y_im = 0
    for (std::size_t k = 0; k < cluster.nodes.size(); ++k) {
      const Node& node = cluster.nodes[k];
      if (!node_eligible(node, job)) continue;
      const int col = p.add_column({0.0, 1.0, 0.0, true});
      layout.x[i].push_back({static_cast<int>(k), col});
      gang.terms.push_back({col, 1.0});
      count.terms.push_back({col, 1.0});
      p.add_row({{{layout.sp, 1.0}, {col, -node_processing_slowdown(node)}}, 0.0, kInf});
    }
    const int most = std::min(job.tasks, static_cast<int>(layout.x[i].size()));
    MipProblem::Row one{{}, 1.0, 1.0};  // exactly one count m
    MipProblem::Row link{{{layout.sc, 1.0}}, 0.0, kInf};
    for (int m = 0; m <= most; ++m) {
      if (m > 0 &&
          (m < limits.min_component || (limits.max_component > 0 && m > limits.max_component))) {
        continue;
      }
      const int y = p.add_column({0.0, 1.0, 0.0, true});
      if (m == 0) layout.unused.push_back(y);
      one.terms.push_back({y, 1.0});
      if (m > 0) count.terms.push_back({y, -static_cast<double>(m)});
      if (m > 0 && m < job.tasks) {
        const double demand = link_demand(m, job.tasks, job.pnbw);
        const double sc = link_slowdown(cluster.link_max, cluster.link_consumed, demand);
        if (sc != 0.0) link.terms.push_back({y, -sc});
      }
    }
    p.add_row(std::move(count));
    p.add_row(std::move(one));
    if (link.terms.size() > 1) p.add_row(std::move(link));
  }
  p.add_row(std::move(gang));
  limit_cluster_count(p, platform.clusters.size(), limits.allowed_counts, layout);
  return p;
}

// Whether @p r meets its program and agrees with the model; the reason when not.
std::string verify(const MatchResult& r, const Job& job, const SplitLimits& limits) {
  if (r.assignment.total() != job.tasks) {
    return "gang matching broken: " + std::to_string(r.assignment.total()) + " nodes for " +
           std::to_string(job.tasks) + " tasks";
  }
  int used = 0;
  for (std::size_t i = 0; i < r.assignment.nodes.size(); ++i) {
    const int n = r.assignment.on_cluster(i);
    if (n == 0) continue;
    ++used;
    if (n < limits.min_component || (limits.max_component > 0 && n > limits.max_component)) {
      return "cluster " + std::to_string(i) + " holds " + std::to_string(n) + " tasks";
    }
  }
  if (used < 64 && !(limits.allowed_counts >> used & 1)) {  // counts past 63 are not limited
    return std::to_string(used) + " clusters used, not an allowed count";
  }
  if (r.matcher != Matcher::kOptimal && r.prediction.saturated) return "a used link is saturated";
  const double tol = 1e-6 * std::max(1.0, std::abs(r.prediction.time));
  if (r.status == MipStatus::kOptimal && std::abs(r.objective - r.prediction.time) > tol) {
    return "solver objective " + std::to_string(r.objective) + " differs from T^e " +
           std::to_string(r.prediction.time);
  }
  if (r.objective < r.prediction.time - tol) return "solver objective below T^e";
  return "";
}

}  // namespace

std::string_view to_string(Matcher matcher) {
  switch (matcher) {
    case Matcher::kOptimal:
      return "optimal";
    case Matcher::kNonSaturated:
      return "non-saturated";
    case Matcher::kFirstFeasible:
      return "first-feasible";
  }
  return "?";
}

Matcher parse_matcher(std::string_view name) {
  if (name == "optimal") return Matcher::kOptimal;
  if (name == "non-saturated") return Matcher::kNonSaturated;
  if (name == "first-feasible") return Matcher::kFirstFeasible;
  throw std::invalid_argument("'" + std::string(name) +
                              "' is not a matcher (optimal, non-saturated, first-feasible)");
}

MatchResult match(const Platform& platform, const Job& job, Matcher matcher,
                  const MipSolver& solver, const MipOptions& options, const SplitLimits& limits) {
  Layout layout;
  const MipProblem problem = build(platform, job, matcher != Matcher::kOptimal, limits, layout);
  MipOptions o = options;
  o.stop_at_first = matcher == Matcher::kFirstFeasible;
  const MipSolution s = solver.solve(problem, o);
  MatchResult r;
  r.matcher = matcher;
  r.status = s.status;
  r.hit_time_limit = s.hit_time_limit;
  r.seconds = s.seconds;
  r.cpu_seconds = s.cpu_seconds;
  r.variables = static_cast<int>(problem.columns.size());
  r.constraints = static_cast<int>(problem.rows.size());
  if (!r.found()) return r;
  r.objective = s.objective;
  r.assignment.nodes.resize(platform.clusters.size());
  for (std::size_t i = 0; i < layout.x.size(); ++i) {
    for (const auto& [node, col] : layout.x[i]) {
      if (s.values[static_cast<std::size_t>(col)] > 0.5) r.assignment.nodes[i].push_back(node);
    }
  }
  r.prediction = predict(platform, job, r.assignment);
  r.check = verify(r, job, limits);
  r.valid = r.check.empty();
  return r;
}

}  // namespace mcb::matching
