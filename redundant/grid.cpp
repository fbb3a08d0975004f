#include "redundant/grid.hpp"

#include "common/errors.hpp"
#include "redundant/coalloc.hpp"
#include "redundant/ranker.hpp"
#include "redundant/workload.hpp"
#include "simulator/discipline.hpp"
#include "simulator/placement.hpp"
#include "simulator/policy.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
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

/// @brief Saturation, as mcb-sim tests it: the waiting jobs (local jobs, and global jobs not
/// yet run) grew over the measured window by more than max(kBacklogFloor, kBacklogShare x the
/// jobs that arrived in it). The limit on jobs in the system stops a run that grows far past it.
constexpr double kBacklogFloor = 50;
constexpr double kBacklogShare = 0.01;

/// @brief One queue per site; a local job joins its own site's queue, the copy k of a global
/// job the site ranked k-th when its first copy arrived. A pass starts, in every queue, what
/// the discipline allows; the first copy of a global job to start wins and every later one
/// is a redundant allocation that ends after the cancellation cost.
class GridPolicy final : public sim::Policy {
 public:
  GridPolicy(GridState& state, Ranker& ranker, std::vector<CopyRecord>* records)
      : state_(state),
        ranker_(ranker),
        ties_(derive_seed(state.config().seed, 7)),
        records_(records) {}
  void attach(const sim::Sim& sim) { sim_ = &sim; }

  std::string_view name() const override { return "redundant-grid"; }
  int queue_count() const override { return static_cast<int>(state_.config().sites.size()); }
  std::string queue_name(int q) const override { return sim::local_queue_name(q); }

  void admit(sim::Job& job, const sim::MachineSpec&, Rng&) const override {
    int site = job.home;
    if (job.app == kGlobalJob) {
      Group& g = state_.groups()[static_cast<size_t>(job.id)];
      const bool coalloc = state_.config().sync != Sync::none;
      if (job.line == 0) {
        rank({coalloc ? g.upper / 2 : job.req.total, job.price.requested, job.price.runtime});
        if (coalloc) choose_part(g);
      }
      // A resubmitted or woken part (line -1) goes back to its own site.
      if (job.line >= 0) site = state_.ranking()[static_cast<size_t>(job.line)];
      if (coalloc) set_part(job, g);
    }
    job.queue = site;
    job.allowed = sim::ClusterMask{1} << site;
  }
  void on_arrival(int, bool) override {}
  void on_departure() override {}
  void schedule(sim::Sim& sim) override;

 private:
  /// Eligible sites (large enough), best first; ties broken at random.
  void rank(const RankedJob& job) const;
  /// Processors per part, from the idle processors of the two best-ranked sites.
  void choose_part(Group& g) const;
  /// A co-allocated copy asks for its group's part, its runtime scaled to it.
  static void set_part(sim::Job& job, const Group& g);
  /// What the copy does (win, run, hold, release, redundant); sets its runtime and records it.
  PartDecision before_start(sim::Job& job, int site, Time now);
  /// Starts a holder's partner with it, or registers a holder; queues a resubmission.
  void after_start(sim::Sim& sim, sim::JobId id, const PartDecision& d);
  /// Hibernates or withdraws the parts allocated this instant whose partner was not.
  void release_lone_holders(sim::Sim& sim);
  /// @brief Hibernation: starts the woken parts now, beside their holding partners, on
  /// processors taken from local jobs by preemption (preemption_victims).
  void wake_parts(sim::Sim& sim);
  /// Starts the woken part @p id of group @p g at @p site now if preemption can free room.
  bool wake(sim::Sim& sim, sim::JobId id, Group& g, int site);
  /// Suspends the local job @p id now.
  void suspend(sim::Sim& sim, sim::JobId id);

  GridState& state_;
  Ranker& ranker_;
  mutable Rng ties_;
  std::vector<CopyRecord>* records_;
  const sim::Sim* sim_ = nullptr;
  std::vector<size_t> new_holders_;  //!< groups whose part started holding this pass
  /// Hibernated parts woken this instant (group, site), not yet started.
  std::vector<std::pair<size_t, int>> wakes_;
};

void GridPolicy::rank(const RankedJob& job) const {
  struct Entry {
    double score, tie;
    int site;
  };
  std::vector<Entry> entries;
  const auto& sites = state_.config().sites;
  for (int s = 0; s < static_cast<int>(sites.size()); ++s) {
    if (sites[static_cast<size_t>(s)] < job.size) continue;
    entries.push_back({ranker_.score(*sim_, state_, s, job), ties_.uniform(), s});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.score != b.score ? a.score < b.score : a.tie < b.tie;
  });
  auto& ranking = state_.ranking();
  ranking.clear();
  for (const Entry& e : entries) ranking.push_back(e.site);
}

void GridPolicy::choose_part(Group& g) const {
  const auto& ranking = state_.ranking();
  const auto idle = [&](size_t k) {
    return k < ranking.size() ? sim_->machine().idle(ranking[k]) : 0;
  };
  g.part = part_size(g, idle(0), idle(1));
  if ((g.part * 2 < g.lower || g.part * 2 > g.upper) && state_.violation.empty()) {
    state_.violation = "a co-allocated job's parts are outside its bounds";
  }
}

void GridPolicy::set_part(sim::Job& job, const Group& g) {
  // Work is conserved: a part given fewer processors than the upper bound runs longer.
  const int high = g.upper / 2;  // a part's upper bound (processors)
  const double stretch = static_cast<double>(high) / g.part;
  job.req.sizes = {g.part};
  job.req.total = g.part;
  job.price.runtime = g.runtime * stretch;
  job.price.requested = g.requested * stretch;
}

PartDecision GridPolicy::before_start(sim::Job& job, int site, Time now) {
  PartDecision d;
  if (job.app == kGlobalJob) {
    Group& g = state_.groups()[static_cast<size_t>(job.id)];
    ++g.started;
    ++state_.copies_started;
    const Sync sync = state_.config().sync;
    if (sync != Sync::none) {
      d = decide_part(g, site, sync);
    } else if (g.winner >= 0) {
      d.role = PartRole::redundant;
    } else {
      g.winner = site;
      g.won = now;
    }
    if (d.role == PartRole::redundant) {
      ++state_.redundant_allocations;
      job.price.runtime = state_.config().cancel_cost;
    }
  }
  if (records_ != nullptr) {
    const std::int64_t index =
        job.app == kGlobalJob ? state_.groups()[static_cast<size_t>(job.id)].index : job.id;
    const double run = job.left >= 0 ? job.left : job.price.runtime;  // a resumed job: its rest
    const Time end = d.role == PartRole::hold ? sim::kNever : now + run;
    records_->push_back(
        {index, site, now, end, d.role == PartRole::redundant, d.role, job.req.total});
  }
  return d;
}

void GridPolicy::after_start(sim::Sim& sim, sim::JobId id, const PartDecision& d) {
  const sim::Job& job = sim.job(id);
  if (job.app != kGlobalJob) return;
  const auto group = static_cast<size_t>(job.id);
  Group& g = state_.groups()[group];
  const Time now = sim.now();
  if (d.role == PartRole::hold) {
    g.holder = id;
    g.holder_site = job.queue;
    g.hold_from = now;
    g.holder_record = records_ != nullptr ? static_cast<std::int64_t>(records_->size()) - 1 : -1;
    if (releases_holder(g, state_.config().sync)) new_holders_.push_back(group);
  } else if (d.partner != sim::kNoJob) {
    // The requirement is met: the holding part computes from now, with this one.
    const double hold = now - g.hold_from;
    if (hold < 0 && state_.violation.empty()) state_.violation = "a part held for negative time";
    g.held = hold * g.part;
    sim.close_end(d.partner, job.end - now);
    if (sim.job(d.partner).end != job.end && state_.violation.empty()) {
      state_.violation = "the two parts of a co-allocated job did not run together";
    }
    if (g.holder_record >= 0) (*records_)[static_cast<size_t>(g.holder_record)].end = job.end;
    g.holder = sim::kNoJob;
    g.winner = job.queue;
    g.won = now;
  }
  if (d.resubmit_site >= 0) {
    ++g.copies;
    state_.resubmits.push_back({static_cast<std::int64_t>(group), d.resubmit_site, now});
    wakes_.emplace_back(group, d.resubmit_site);
  }
}

void GridPolicy::release_lone_holders(sim::Sim& sim) {
  const Sync sync = state_.config().sync;
  const Time now = sim.now();
  const double cost = state_.config().cancel_cost;
  for (const size_t group : new_holders_) {
    Group& g = state_.groups()[group];
    if (!releases_holder(g, sync)) continue;  // its partner was allocated in the same pass
    sim.close_end(g.holder, cost);
    if (g.holder_record >= 0) {
      CopyRecord& rec = (*records_)[static_cast<size_t>(g.holder_record)];
      rec.role = PartRole::release;
      rec.end = now + cost;
    }
    ++state_.releases;
    g.released = true;
    // Hibernation keeps the part bound and wakes it when a partner is allocated; resubmission
    // terminates it and sends its request back to the same site at once.
    if (sync == Sync::resubmission) {
      ++g.copies;
      state_.resubmits.push_back({static_cast<std::int64_t>(group), g.holder_site, now});
    } else {
      g.released_site = g.holder_site;
    }
    g.holder = sim::kNoJob;
    g.holder_site = -1;
  }
  new_holders_.clear();
}

void GridPolicy::suspend(sim::Sim& sim, sim::JobId id) {
  const sim::Job& j = sim.job(id);
  const Time now = sim.now();
  if (j.preemptions == 0) ++state_.preempted_jobs;
  ++state_.preemptions;
  state_.ran[j.id] += now - j.start;
  if (records_ != nullptr) {
    for (auto it = records_->rbegin(); it != records_->rend(); ++it) {
      if (it->job != j.id || it->site != j.queue) continue;
      it->end = now;
      it->preempted = true;
      break;
    }
  }
  sim.preempt(id);
}

bool GridPolicy::wake(sim::Sim& sim, sim::JobId id, Group& g, int site) {
  const int need = sim.job(id).req.total;
  const int short_by = need - sim.machine().idle(site);
  const std::vector<sim::JobId> victims =
      short_by > 0 ? preemption_victims(sim, site, short_by) : std::vector<sim::JobId>{};
  if (short_by > 0 && victims.empty()) return false;
  for (const sim::JobId v : victims) suspend(sim, v);
  std::vector<int> alloc(state_.config().sites.size());
  alloc[static_cast<size_t>(site)] = need;
  const Time now = sim.now();
  const PartDecision d = before_start(sim.job(id), site, now);
  if (d.role != PartRole::run || now != g.hold_from) {
    if (state_.violation.empty()) state_.violation = "a woken part did not start with its partner";
  }
  sim.start(id, alloc);
  after_start(sim, id, d);
  return true;
}

void GridPolicy::wake_parts(sim::Sim& sim) {
  std::vector<std::pair<size_t, int>> later;
  for (const auto& [group, site] : wakes_) {
    Group& g = state_.groups()[group];
    // A duplicate has run the job, or the partner no longer holds since this instant.
    if (g.winner >= 0 || g.holder == sim::kNoJob || g.hold_from != sim.now()) continue;
    sim::JobId id = sim.queue(site).front();
    while (id != sim::kNoJob) {
      const sim::Job& j = sim.job(id);
      if (j.app == kGlobalJob && j.id == static_cast<std::int64_t>(group) && j.line < 0) break;
      id = j.next;
    }
    // Not admitted yet (it is, later in this instant), or no room: it waits in its queue.
    if (id == sim::kNoJob) {
      later.emplace_back(group, site);
    } else {
      wake(sim, id, g, site);
    }
  }
  wakes_ = std::move(later);
}

void GridPolicy::schedule(sim::Sim& sim) {
  wake_parts(sim);
  std::vector<int> alloc(state_.config().sites.size());
  bool progress = true;
  while (progress) {
    progress = false;
    for (int q = 0; q < sim.queue_count(); ++q) {
      if (sim.queue(q).empty()) continue;
      sim::JobId id = sim::kNoJob;
      if (!sim.discipline().select(sim, q, id, alloc)) continue;
      const PartDecision d = before_start(sim.job(id), q, sim.now());
      sim.start(id, alloc, d.role == PartRole::hold);
      after_start(sim, id, d);
      progress = true;
    }
  }
  release_lone_holders(sim);
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
  /// The measured window opens at the first measured global job's arrival and closes at the
  /// last arrival of the workload; the jobs waiting at both ends tell whether it saturated.
  void on_arrival(const sim::Job& job, const sim::Sim& sim) override {
    if (closed_ || job.submit < state_.measure_from) return;
    const bool new_job = job.app == kLocalJob || job.line == 0;  // not a further copy
    if (!open_) {
      open_ = true;
      waiting_at_start_ = waiting_jobs(sim) - (new_job ? 1 : 0);  // before this job joined
    }
    window_arrivals_ += new_job;
  }
  void on_arrivals_end(const sim::Sim& sim) override {
    closed_ = true;
    waiting_at_end_ = waiting_jobs(sim);
    if (!open_) waiting_at_start_ = waiting_at_end_;
  }
  /// @brief Jobs waiting: local jobs in the queues and global jobs not yet run, each once
  /// (counting copies would make one burst of flooded jobs look like a growing backlog).
  std::uint64_t waiting_jobs(const sim::Sim& sim) const {
    std::uint64_t n = 0;
    for (int q = 0; q < sim.queue_count(); ++q) {
      for (sim::JobId id = sim.queue(q).front(); id != sim::kNoJob; id = sim.job(id).next) {
        n += sim.job(id).app == kLocalJob;
      }
    }
    for (const Group& g : state_.groups()) n += g.winner < 0;
    return n;
  }
  void on_start(const sim::Job& job, const sim::Sim& sim) override {
    started_ += job.preemptions == 0;
    if (job.start < job.submit && state_.violation.empty()) {
      state_.violation = "a job started before it was submitted";
    }
    check_sites(sim);
    if (job.preemptions > 0) {  // resumed: its time suspended counts as waiting
      if (job.submit >= state_.measure_from) {
        local_sum_[static_cast<size_t>(job.queue)] += sim.now() - job.suspended;
      }
      return;
    }
    if (job.app == kLocalJob) {
      if (job.submit < state_.measure_from) return;
      local_sum_[static_cast<size_t>(job.queue)] += sim.now() - job.submit;
      ++local_count_[static_cast<size_t>(job.queue)];
    }
  }
  void on_departure(const sim::Job& job, const sim::Sim& sim) override {
    state_.note_departure(job.queue, sim.now());
    if (job.preemptions == 0) return;
    // A suspended job ends only once its runs add up to its whole runtime.
    const auto it = state_.ran.find(job.id);
    const double ran = (it != state_.ran.end() ? it->second : 0.0) + (sim.now() - job.start);
    if (std::abs(ran - job.price.runtime) > 1e-6 * std::max(1.0, job.price.runtime) &&
        state_.violation.empty()) {
      state_.violation = "a preempted job did not run its whole runtime";
    }
    if (it != state_.ran.end()) state_.ran.erase(it);
    ++state_.preempted_done;
  }
  /// No site has more processors allocated than it has.
  void check_sites(const sim::Sim& sim) {
    const auto& sites = state_.config().sites;
    for (size_t s = 0; s < sites.size(); ++s) {
      const int idle = sim.machine().idle(static_cast<int>(s));
      if ((idle < 0 || idle > sites[s]) && state_.violation.empty()) {
        state_.violation = "a site's processors were oversubscribed";
      }
    }
  }
  void fill(GridResult& r) const {
    for (size_t s = 0; s < local_sum_.size(); ++s) {
      r.local_wait_mean.push_back(local_count_[s] ? local_sum_[s] / local_count_[s] : 0.0);
      r.local_measured.push_back(local_count_[s]);
    }
    r.jobs_simulated = started_;
    r.backlog_growth =
        static_cast<double>(waiting_at_end_) - static_cast<double>(waiting_at_start_);
    r.backlog_limit =
        std::max(kBacklogFloor, kBacklogShare * static_cast<double>(window_arrivals_));
  }

 private:
  GridState& state_;
  std::vector<double> local_sum_;
  std::vector<std::uint64_t> local_count_;
  std::uint64_t started_ = 0;
  bool open_ = false, closed_ = false;
  std::uint64_t waiting_at_start_ = 0, waiting_at_end_ = 0;
  std::uint64_t window_arrivals_ = 0;  //!< local and global jobs arrived in the window
};

/// Checks the run's invariants; returns "" when they hold.
std::string verify(const GridState& state, const sim::RunEnd& end, const GridResult& r) {
  if (end.stopped_early) return "saturated: the jobs in the system passed the limit";
  if (!state.violation.empty()) return state.violation;
  const bool coalloc = state.config().sync != Sync::none;
  // Every copy ends as a run, a release or a redundant allocation: one run per job, two when
  // it is co-allocated.
  std::uint64_t runs = 0, copies = 0;
  for (const Group& g : state.groups()) {
    if (g.winner < 0) {
      return coalloc ? "a co-allocated job never got both parts (its parts waited on each other)"
                     : "a global job's copies did not all end";
    }
    if (g.started != g.copies) return "a global job's copies did not all end";
    runs += coalloc ? 2 : 1;
    copies += static_cast<std::uint64_t>(g.copies);
  }
  if (copies != runs + state.redundant_allocations + state.releases) {
    return "redundant allocations miscounted";
  }
  if (state.preempted_done != state.preempted_jobs) return "a preempted job never completed";
  // After the deadlock check: the jobs that pile up behind a deadlock are its symptom.
  if (r.backlog_growth > r.backlog_limit) {
    return "saturated: the waiting jobs grew by " + std::to_string(std::lround(r.backlog_growth)) +
           " over the measured window (limit " + std::to_string(std::lround(r.backlog_limit)) + ")";
  }
  if (r.global_measured == 0) return "no global job measured";
  return "";
}

/// Global jobs' waits (co-allocation times when co-allocated), idle holding and part sizes,
/// and the mean wait over all measured jobs.
void summarize(const GridState& state, GridResult& r) {
  double sum = 0, held = 0, parts = 0;
  for (const Group& g : state.groups()) {
    if (g.winner < 0) continue;
    ++r.global_done;
    if (!g.measured) continue;
    sum += g.won - g.submit;
    held += g.held;
    parts += g.part;
    ++r.global_measured;
  }
  const auto n = static_cast<double>(r.global_measured);
  r.global_wait_mean = n > 0 ? sum / n : 0.0;
  r.coalloc_hold_mean = n > 0 ? held / n : 0.0;
  r.part_mean = n > 0 ? parts / n : 0.0;
  double all = sum, count = n;
  for (size_t s = 0; s < r.local_wait_mean.size(); ++s) {
    all += r.local_wait_mean[s] * static_cast<double>(r.local_measured[s]);
    count += static_cast<double>(r.local_measured[s]);
  }
  r.all_wait_mean = count > 0 ? all / count : 0.0;
}

GridResult run_with(const GridConfig& config, WorkloadGenerator& generator,
                    std::vector<CopyRecord>* records) {
  const auto t0 = std::chrono::steady_clock::now();
  GridState state(config);
  auto ranker = make_ranker(config.ranker, derive_seed(config.seed, 8));
  auto owned = std::make_unique<GridPolicy>(state, *ranker, records);
  GridPolicy& policy = *owned;
  sim::MachineSpec machine{config.sites, std::vector<double>(config.sites.size(), 1.0), {}};
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
  summarize(state, r);
  r.redundant_allocations = state.redundant_allocations;
  r.releases = state.releases;
  r.preemptions = state.preemptions;
  r.saturated = end.stopped_early || r.backlog_growth > r.backlog_limit;
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
