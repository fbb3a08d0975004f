#include "redundant/ranker.hpp"

#include "simulator/profile.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace mcb::redundant {

const std::vector<std::string>& ranker_names() {
  static const std::vector<std::string> names = {"random", "qlen", "workload", "est-qt",
                                                 "ideal-min"};
  return names;
}

std::unique_ptr<Ranker> make_ranker(std::string_view name, std::uint64_t seed) {
  if (name == "random") return make_random_ranker(seed);
  if (name == "qlen") return make_qlen_ranker();
  if (name == "workload") return make_workload_ranker();
  if (name == "est-qt") return make_est_qt_ranker();
  if (name == "ideal-min") return make_ideal_min_ranker();
  throw std::invalid_argument("unknown ranker '" + std::string(name) + "'");
}

namespace {

using Procs = std::array<int, 1>;

// A job in a site's forecast: its processors, the length the site reserves and the one it runs.
struct Planned {
  int procs = 0;
  double requested = 0, runtime = 0;
  Time start = sim::kNever;  // its reservation
};

// Processors that the site's plan holds until @p requested but that come free at @p actual.
struct EarlyEnd {
  Time actual = 0, requested = 0;
  int procs = 0;
};

// Earliest start from @p from at which @p procs fit for @p length in @p plan.
Time earliest_fit(const sim::Profile& plan, Time from, double length, int procs) {
  return plan.earliest(from, length, sim::kNever,
                       [procs](std::span<int> free) { return free[0] >= procs; });
}

// Conservative backfilling played forward through the early ends it does not know of: the
// site reserves requested times, and at each end before the request it re-inserts the jobs
// still waiting, in order, each at its earliest slot (never later: its own slot is free).
// @p plan holds the running jobs until their requested ends, @p ends their actual ones;
// @p queue is in queue order, the job being ranked last. Returns that job's start.
Time conservative_start(sim::Profile& plan, Time now, std::vector<EarlyEnd> ends,
                        std::vector<Planned>& queue) {
  for (Planned& j : queue) {
    j.start = earliest_fit(plan, now, j.requested, j.procs);
    plan.reserve(j.start, j.start + j.requested, Procs{j.procs});
  }
  std::vector<bool> started(queue.size(), false);
  Time t = now;
  for (;;) {
    // Jobs whose reservation has come start; their early ends join the running jobs'.
    Time next_start = sim::kNever;
    for (size_t k = 0; k < queue.size(); ++k) {
      const Planned& j = queue[k];
      if (started[k]) continue;
      if (j.start > t) {
        next_start = std::min(next_start, j.start);
        continue;
      }
      if (k + 1 == queue.size()) return j.start;
      started[k] = true;
      ends.push_back({j.start + j.runtime, j.start + j.requested, j.procs});
    }
    Time next_end = sim::kNever;
    for (const EarlyEnd& e : ends) {
      if (e.actual > t && e.actual < e.requested) next_end = std::min(next_end, e.actual);
    }
    if (next_start <= next_end) {
      t = next_start;  // nothing ends early before the next reservation starts
      continue;
    }
    t = next_end;
    for (const EarlyEnd& e : ends) {
      if (e.actual == t) plan.release(e.actual, e.requested, Procs{e.procs});
    }
    for (size_t k = 0; k < queue.size(); ++k) {
      if (started[k]) continue;
      Planned& j = queue[k];
      plan.release(j.start, j.start + j.requested, Procs{j.procs});
      j.start = std::min(j.start, earliest_fit(plan, t, j.requested, j.procs));
      plan.reserve(j.start, j.start + j.requested, Procs{j.procs});
    }
  }
}

}  // namespace

double forecast_wait(const sim::Sim& sim, const GridState& state, int site, const RankedJob& job,
                     bool actual) {
  const Time now = sim.now();
  const auto s = static_cast<size_t>(site);
  const bool fcfs = !state.config().backfilling;
  sim::Profile plan(1);
  plan.reset(now, Procs{sim.machine().idle(site)});
  std::vector<EarlyEnd> ends;
  for (const sim::JobId id : sim.running()) {
    const sim::Job& j = sim.job(id);
    if (j.alloc.size() <= s || j.alloc[s] == 0) continue;
    // A part holding for its partner has no known end yet: its requested time stands in.
    const Time end =
        actual && j.end != sim::kNever ? std::min(j.end, j.expected_end) : j.expected_end;
    // FCFS with actual runtimes plans with the actual ends; the conservative replay learns
    // them as it goes.
    plan.release(actual && fcfs ? end : j.expected_end, sim::kNever, Procs{j.alloc[s]});
    ends.push_back({end, j.expected_end, j.alloc[s]});
  }
  std::vector<Planned> queue;
  for (sim::JobId id = sim.queue(site).front(); id != sim::kNoJob; id = sim.job(id).next) {
    const sim::Job& j = sim.job(id);
    const double requested = std::max(j.price.requested, j.price.runtime);
    queue.push_back({j.req.total, requested, std::min(state.actual_runtime(j), requested)});
  }
  const double requested = std::max(job.requested, job.runtime);
  queue.push_back({job.size, requested, std::min(job.runtime, requested)});
  if (actual && !fcfs) return conservative_start(plan, now, std::move(ends), queue) - now;
  // The plan as it stands: FCFS starts no job before the one ahead of it (with actual runtimes
  // this is the start the job gets); conservative backfilling gives each job the earliest slot
  // that leaves earlier reservations alone, for its requested time.
  Time previous = now;
  for (const Planned& j : queue) {
    const double length = actual ? j.runtime : j.requested;
    previous = earliest_fit(plan, fcfs ? previous : now, length, j.procs);
    plan.reserve(previous, previous + length, Procs{j.procs});
  }
  return previous - now;
}

}  // namespace mcb::redundant
