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

double forecast_wait(const sim::Sim& sim, const GridState& state, int site, int size, bool actual) {
  const Time now = sim.now();
  const auto s = static_cast<size_t>(site);
  sim::Profile plan(1);
  const std::array<int, 1> idle{sim.machine().idle(site)};
  plan.reset(now, idle);
  for (const sim::JobId id : sim.running()) {
    const sim::Job& j = sim.job(id);
    if (j.alloc.size() <= s || j.alloc[s] == 0) continue;
    const std::array<int, 1> procs{j.alloc[s]};
    // A part holding for its partner has no known end yet: its requested time stands in.
    const Time end = actual && j.end != sim::kNever ? j.end : j.expected_end;
    plan.release(end, sim::kNever, procs);
  }
  // Replays the queue in order: FCFS starts no job before the one ahead of it; conservative
  // backfilling gives each the earliest slot that leaves earlier reservations alone.
  const bool fcfs = !state.config().backfilling;
  Time previous = now;
  const auto place = [&](int procs, double length) {
    const Time from = fcfs ? previous : now;
    const Time t = plan.earliest(from, length, sim::kNever,
                                 [procs](std::span<int> free) { return free[0] >= procs; });
    const std::array<int, 1> take{procs};
    plan.reserve(t, t + length, take);
    previous = t;
    return t;
  };
  for (sim::JobId id = sim.queue(site).front(); id != sim::kNoJob; id = sim.job(id).next) {
    const sim::Job& j = sim.job(id);
    const double length =
        actual ? state.actual_runtime(j) : std::max(j.price.requested, j.price.runtime);
    place(j.req.total, length);
  }
  return place(size, 1.0) - now;
}

}  // namespace mcb::redundant
