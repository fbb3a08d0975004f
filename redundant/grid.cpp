#include "redundant/grid.hpp"

#include "common/errors.hpp"
#include "redundant/ranker.hpp"
#include "redundant/workload.hpp"
#include "simulator/discipline.hpp"
#include "simulator/placement.hpp"
#include "simulator/policy.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

namespace mcb::redundant {

GridState::GridState(const GridConfig& config)
    : config_(config), departures_(config.sites.size()) {}

double GridState::actual_runtime(const sim::Job& job) const {
  if (job.app == kGlobalJob && groups_[static_cast<size_t>(job.id)].winner >= 0) {
    return config_.cancel_cost;
  }
  return job.price.runtime;
}

int GridState::recent_departures(int site, Time now) const {
  const auto& d = departures_[static_cast<size_t>(site)];
  const Time after = now - config_.workload_period;
  return static_cast<int>(d.end() - std::upper_bound(d.begin(), d.end(), after));
}

void GridState::note_departure(int site, Time now) {
  auto& d = departures_[static_cast<size_t>(site)];
  d.push_back(now);
  while (!d.empty() && d.front() <= now - config_.workload_period) d.pop_front();
}

namespace {

/// @brief One queue per site; a local job joins its own site's queue, the copy k of a global
/// job the site ranked k-th when its first copy arrived. A pass starts, in every queue, what
/// the discipline allows; the first copy of a global job to start wins and every later one
/// is a redundant allocation that ends after the cancellation cost.
class GridPolicy final : public sim::Policy {
 public:
  GridPolicy(GridState& state, Ranker& ranker, std::vector<CopyRecord>* records)
      : state_(state),
        ranker_(ranker),
        ties_(sim::derive_seed(state.config().seed, 7)),
        records_(records) {}
  void attach(const sim::Sim& sim) { sim_ = &sim; }

  std::string_view name() const override { return "redundant-grid"; }
  int queue_count() const override { return static_cast<int>(state_.config().sites.size()); }
  std::string queue_name(int q) const override { return sim::local_queue_name(q); }

  void admit(sim::Job& job, const sim::MachineSpec&, sim::Rng&) const override {
    if (job.app == kGlobalJob && job.line == 0) rank(job.req.total);
    const int site =
        job.app == kGlobalJob ? state_.ranking()[static_cast<size_t>(job.line)] : job.home;
    job.queue = site;
    job.allowed = sim::ClusterMask{1} << site;
  }
  void on_arrival(int, bool) override {}
  void on_departure() override {}
  void schedule(sim::Sim& sim) override;

 private:
  /// Eligible sites (large enough), best first; ties broken at random.
  void rank(int size) const;
  /// Marks the winner or turns a redundant copy into a release of the cancellation cost.
  void before_start(sim::Job& job, int site, Time now);

  GridState& state_;
  Ranker& ranker_;
  mutable sim::Rng ties_;
  std::vector<CopyRecord>* records_;
  const sim::Sim* sim_ = nullptr;
};

void GridPolicy::rank(int size) const {
  struct Entry {
    double score, tie;
    int site;
  };
  std::vector<Entry> entries;
  const auto& sites = state_.config().sites;
  for (int s = 0; s < static_cast<int>(sites.size()); ++s) {
    if (sites[static_cast<size_t>(s)] < size) continue;
    entries.push_back({ranker_.score(*sim_, state_, s, size), ties_.uniform(), s});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.score != b.score ? a.score < b.score : a.tie < b.tie;
  });
  auto& ranking = state_.ranking();
  ranking.clear();
  for (const Entry& e : entries) ranking.push_back(e.site);
}

void GridPolicy::before_start(sim::Job& job, int site, Time now) {
  bool redundant = false;
  if (job.app == kGlobalJob) {
    Group& g = state_.groups()[static_cast<size_t>(job.id)];
    ++g.started;
    ++state_.copies_started;
    if (g.winner < 0) {
      g.winner = site;
      g.won = now;
    } else {
      redundant = true;
      ++state_.redundant_allocations;
      job.price.runtime = state_.config().cancel_cost;
    }
  }
  if (records_ != nullptr) {
    const std::int64_t index =
        job.app == kGlobalJob ? state_.groups()[static_cast<size_t>(job.id)].index : job.id;
    records_->push_back({index, site, now, now + job.price.runtime, redundant});
  }
}

void GridPolicy::schedule(sim::Sim& sim) {
  std::vector<int> alloc(state_.config().sites.size());
  bool progress = true;
  while (progress) {
    progress = false;
    for (int q = 0; q < sim.queue_count(); ++q) {
      if (sim.queue(q).empty()) continue;
      sim::JobId id = sim::kNoJob;
      if (!sim.discipline().select(sim, q, id, alloc)) continue;
      before_start(sim.job(id), q, sim.now());
      sim.start(id, alloc);
      progress = true;
    }
  }
}

/// @brief Statistics: each site's local waits and the global jobs' waits (winner start -
/// submit), over the measured jobs.
class GridObserver final : public sim::Observer {
 public:
  explicit GridObserver(GridState& state) : state_(state) {
    const size_t n = state.config().sites.size();
    local_sum_.assign(n, 0);
    local_count_.assign(n, 0);
  }
  void on_start(const sim::Job& job, const sim::Sim& sim) override {
    ++started_;
    if (job.start < job.submit && state_.violation.empty()) {
      state_.violation = "a job started before it was submitted";
    }
    if (job.app == kLocalJob) {
      if (job.submit < state_.measure_from) return;
      local_sum_[static_cast<size_t>(job.queue)] += sim.now() - job.submit;
      ++local_count_[static_cast<size_t>(job.queue)];
    }
  }
  void on_departure(const sim::Job& job, const sim::Sim& sim) override {
    state_.note_departure(job.queue, sim.now());
  }
  void fill(GridResult& r) const {
    for (size_t s = 0; s < local_sum_.size(); ++s) {
      r.local_wait_mean.push_back(local_count_[s] ? local_sum_[s] / local_count_[s] : 0.0);
      r.local_measured.push_back(local_count_[s]);
    }
    r.jobs_simulated = started_;
  }

 private:
  GridState& state_;
  std::vector<double> local_sum_;
  std::vector<std::uint64_t> local_count_;
  std::uint64_t started_ = 0;
};

/// Checks the run's invariants; returns "" when they hold.
std::string verify(const GridState& state, const sim::RunEnd& end, const GridResult& r) {
  if (end.stopped_early) return "saturated: the jobs in the system passed the limit";
  if (!state.violation.empty()) return state.violation;
  std::uint64_t redundant = 0;
  for (const Group& g : state.groups()) {
    if (g.winner < 0 || g.started != g.copies) return "a global job's copies did not all end";
    redundant += static_cast<std::uint64_t>(g.copies - 1);
  }
  if (redundant != state.redundant_allocations) return "redundant allocations miscounted";
  if (r.global_measured == 0) return "no global job measured";
  return "";
}

GridResult run_with(const GridConfig& config, WorkloadGenerator& generator,
                    std::vector<CopyRecord>* records) {
  const auto t0 = std::chrono::steady_clock::now();
  GridState state(config);
  auto ranker = make_ranker(config.ranker, sim::derive_seed(config.seed, 8));
  auto owned = std::make_unique<GridPolicy>(state, *ranker, records);
  GridPolicy& policy = *owned;
  sim::MachineSpec machine{config.sites, std::vector<double>(config.sites.size(), 1.0)};
  sim::RunLimits limits;
  limits.max_in_system = 200000;
  sim::Sim sim(machine, std::move(owned),
               sim::make_discipline(config.backfilling ? "cons" : "fcfs"),
               sim::make_placement("wf"), sim::ServiceModel(1.0, 1.0), limits);
  policy.attach(sim);
  CopySource source(state, generator);
  GridObserver observer(state);
  const sim::RunEnd end = sim.run(source, observer);

  GridResult r;
  observer.fill(r);
  double sum = 0;
  for (const Group& g : state.groups()) {
    if (g.winner < 0) continue;
    ++r.global_done;
    if (!g.measured) continue;
    sum += g.won - g.submit;
    ++r.global_measured;
  }
  r.global_wait_mean = r.global_measured ? sum / static_cast<double>(r.global_measured) : 0.0;
  r.redundant_allocations = state.redundant_allocations;
  r.saturated = end.stopped_early;
  const std::string why = verify(state, end, r);
  r.valid = why.empty();
  r.verdict = r.valid ? "VALID" : why;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

GridResult run_grid(const GridConfig& config) {
  SyntheticWorkload generator(config);
  return run_with(config, generator, nullptr);
}

GridResult run_listed(const GridConfig& config, const std::vector<ListedJob>& jobs,
                      std::vector<CopyRecord>* copies) {
  ListedWorkload generator(config, jobs);
  return run_with(config, generator, copies);
}

}  // namespace mcb::redundant
