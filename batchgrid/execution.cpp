#include "batchgrid/execution.hpp"

#include <algorithm>

namespace mcb::batchgrid {
namespace {

void queue_events(const ExecutionSpec& spec, std::vector<Event>& events) {
  for (size_t q = 0; q < spec.runs.size(); ++q) {
    const int queue = static_cast<int>(q);
    for (const AppSubmission& s : spec.runs[q]) {
      if (s.submit >= spec.horizon) continue;
      events.push_back({s.submit, "submit", queue, {{"number", s.number}}});
      if (s.start < 0 || s.start >= spec.horizon) continue;
      events.push_back(
          {s.start, "activate", queue, {{"number", s.number}, {"wait", s.start - s.submit}}});
      if (s.end <= spec.horizon) events.push_back({s.end, "kill", queue, {{"number", s.number}}});
    }
  }
}

}  // namespace

ExecutionResult execute(const ExecutionSpec& spec, std::vector<Event>* events) {
  ExecutionResult result;
  const size_t queues = spec.runs.size();
  // Instants at which the active set may change.
  std::vector<double> cuts{0, spec.horizon};
  for (const auto& run : spec.runs) {
    for (const AppSubmission& s : run) {
      if (s.start < 0) continue;
      for (double t : {s.start, s.end}) {
        if (t > 0 && t < spec.horizon) cuts.push_back(t);
      }
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  std::vector<Event> log;
  // Which submission holds each queue (-1: none). A rescheduling point is any change of it, not
  // only of the processors: a submission killed at its limit whose successor starts at the same
  // instant in the same queue still ends the application's run there, which dumps and restarts
  // (section 2: rescheduled "upon the corresponding submission reaching its execution time
  // limit").
  std::vector<int> capacity(queues), holder(queues), previous_holder(queues, -2);
  Schedule current, last;  // last: where the restart files are
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    const double t0 = cuts[k], t1 = cuts[k + 1];
    for (size_t q = 0; q < queues; ++q) {
      capacity[q] = 0;
      holder[q] = -1;
      for (const AppSubmission& s : spec.runs[q]) {
        if (s.start >= 0 && s.start <= t0 && t0 < s.end) {
          capacity[q] = spec.requests[q];
          holder[q] = s.number;
        }
      }
    }
    double restart = 0;
    if (holder != previous_holder) {
      previous_holder = holder;
      current = best_schedule(spec.model, spec.base, capacity, last, spec.bandwidth);
      nlohmann::json active = nlohmann::json::array();
      for (size_t q = 0; q < queues; ++q) {
        if (capacity[q] > 0) active.push_back(q);
      }
      if (!current.valid()) {
        log.push_back({t0,
                       "idle",
                       -1,
                       {{"active", active},
                        {"reason", active.empty() ? "no queue active" : "no mapping fits"}}});
      } else {
        // A first start reads its files in place; every later one dumps, moves and restarts.
        restart = (last.valid() ? spec.model.restart_overhead : 0) + current.move_seconds;
        ++result.reschedulings;
        log.push_back({t0,
                       "remap",
                       -1,
                       {{"active", active},
                        {"procs", current.procs},
                        {"site", current.site},
                        {"day_seconds", current.day_seconds},
                        {"move_seconds", current.move_seconds},
                        {"restart_seconds", restart}}});
        last = current;
      }
    }
    if (!current.valid()) continue;
    const double length = t1 - t0;
    int procs = 0;
    for (int c : capacity) procs += c;
    result.rar += procs * length;
    result.active_seconds += length;
    const double spent = std::min(restart, length);
    result.restart_seconds += spent;
    result.simulated_days += (length - spent) / current.day_seconds;
  }
  result.rar /= spec.horizon;
  result.days_per_day = result.simulated_days / (spec.horizon / 86400);
  if (events) {
    queue_events(spec, *events);
    events->insert(events->end(), log.begin(), log.end());
    sort_events(*events);
  }
  return result;
}

}  // namespace mcb::batchgrid
