#include "batchgrid/grid.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/rng.hpp"
#include "common/text.hpp"
#include "simulator/swf.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

namespace mcb::batchgrid {
namespace {

double parse_number(const std::string& option, const std::string& text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || !(v >= 0)) {
    throw UsageError(option + ": '" + text + "' is not a non-negative number");
  }
  return v;
}

std::vector<std::string> split_on(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

std::vector<QueueConfig> parse_queues(const std::string& text) {
  std::vector<QueueConfig> queues;
  for (const std::string& item : split_on(text, ',')) {
    auto parts = split_on(item, ':');
    QueueConfig q;
    if (parts.size() >= 3 && parts.back().rfind("limit=", 0) == 0) {
      const std::string text = parts.back().substr(6);
      q.limit = parse_number("--queues", text);
      if (!(q.limit > 0) || !std::isfinite(q.limit) || q.limit > cli::kMaxSeconds) {
        throw UsageError("--queues: limit '" + text + "' is not a positive number of seconds");
      }
      parts.pop_back();
    }
    if (parts.size() < 2 || parts.size() > 3) {
      throw UsageError("--queues: '" + item +
                       "' is not SIZE:DISCIPLINE[:MIX|trace=FILE][:limit=S]");
    }
    const double size = parse_number("--queues", parts[0]);
    // Range first: converting a double past INT_MAX to int is undefined.
    if (!(size >= 1 && size <= cli::kMaxCount) || size != std::floor(size)) {
      throw UsageError("--queues: size '" + parts[0] + "' is not a whole number from 1 to 1e9");
    }
    q.size = static_cast<int>(size);
    const auto discipline = sim::find_discipline(parts[1]);
    if (!discipline) {
      throw UsageError("--queues: discipline '" + parts[1] + "' is not " + sim::discipline_names());
    }
    q.discipline = *discipline;
    if (parts.size() == 3 && parts[2].rfind("trace=", 0) == 0) {
      q.trace = parts[2].substr(6);
    } else if (parts.size() == 3) {
      const auto w = split_on(parts[2], '/');
      if (w.size() != kClasses) {
        throw UsageError("--queues: mix '" + parts[2] + "' is not 5 weights m/s/l/n/w");
      }
      for (size_t i = 0; i < w.size(); ++i) q.mix[i] = parse_number("--queues", w[i]);
      if (std::accumulate(q.mix.begin(), q.mix.end(), 0.0) <= 0) {
        throw UsageError("--queues: mix '" + parts[2] + "' sums to 0");
      }
    }
    if (q.trace.empty() && q.size < 16) {
      throw UsageError("--queues: size '" + parts[0] + "' is below 16 (the model's wide jobs)");
    }
    queues.push_back(q);
  }
  return queues;
}

AppModel parse_app(const std::string& text) {
  const auto parts = split_on(text, ':');
  if (parts.size() != 3) throw UsageError("--app: '" + text + "' is not A:B:BYTES");
  Component c{"app", parse_number("--app", parts[0]), parse_number("--app", parts[1]), 0,
              0,     parse_number("--app", parts[2])};
  if (!std::isfinite(c.a) || !std::isfinite(c.b) || !std::isfinite(c.restart_bytes) ||
      !(c.a + c.b > 0)) {
    throw UsageError("--app: '" + text + "' needs finite A, B, BYTES and A + B > 0");
  }
  AppModel m;
  m.components = {c};
  return m;
}

std::vector<int> parse_requests(const std::string& text, const std::vector<QueueConfig>& queues) {
  const auto parts = split_on(text, ',');
  if (parts.size() != queues.size()) {
    throw UsageError("--requests: '" + text + "' has " + std::to_string(parts.size()) +
                     " sizes for " + std::to_string(queues.size()) + " queues");
  }
  std::vector<int> out;
  for (size_t q = 0; q < parts.size(); ++q) {
    const double p = parse_number("--requests", parts[q]);
    // Range first: converting a double past INT_MAX to int is undefined.
    if (!(p >= 1 && p <= queues[q].size) || p != std::floor(p)) {
      throw UsageError("--requests: '" + parts[q] + "' is not a whole number from 1 to queue " +
                       std::to_string(q) + "'s size (" + std::to_string(queues[q].size) + ")");
    }
    out.push_back(static_cast<int>(p));
  }
  return out;
}

std::vector<ExternalJob> queue_workload(const QueueConfig& q, double interarrival,
                                        std::uint64_t seed, double until) {
  std::vector<ExternalJob> jobs;
  if (!q.trace.empty()) {
    sim::SwfReader reader(q.trace, "--queues");  // the option that named the trace
    sim::SwfRecord r;
    while (reader.next(r)) {
      const long long procs = r.procs > 0 ? r.procs : r.req_procs;
      if (procs <= 0 || r.run < 0) continue;  // unknown size or runtime: not a job to replay
      jobs.push_back({r.submit, static_cast<int>(procs), r.run, r.req_time});
    }
    return jobs;
  }
  LublinSpec spec;
  spec.max_size = q.size;
  spec.mean_interarrival = interarrival;
  spec.mix = q.mix;
  spec.seed = seed;
  LublinGenerator gen(spec);
  while (true) {
    const LublinJob j = gen.next();
    if (j.submit > until) break;
    // The model has no user estimates: backfilling plans with the runtime (exact estimates).
    jobs.push_back({j.submit, j.size, j.runtime, j.runtime});
  }
  return jobs;
}

std::vector<int> split_request(const std::vector<int>& base, const std::vector<QueueConfig>& qs) {
  std::vector<int> sizes = base;
  std::sort(sizes.rbegin(), sizes.rend());
  std::vector<int> requests(qs.size(), 0);
  for (int p : sizes) {
    // The largest queue without a component that holds this one, else the queue with the most
    // room left (the largest queue holds the rest, since the base allocation fits in it).
    int pick = -1, best_room = -1;
    for (size_t q = 0; q < qs.size(); ++q) {
      if (requests[q] == 0 && qs[q].size >= p &&
          (pick < 0 || qs[q].size > qs[static_cast<size_t>(pick)].size)) {
        pick = static_cast<int>(q);
      }
    }
    for (size_t q = 0; q < qs.size() && pick < 0; ++q) {
      const int room = qs[q].size - requests[q];
      if (room >= p && room > best_room) best_room = room;
    }
    for (size_t q = 0; q < qs.size() && pick < 0; ++q) {
      if (best_room >= 0 && qs[q].size - requests[q] == best_room) pick = static_cast<int>(q);
    }
    if (pick < 0) {
      throw UsageError("--request: a component of " + std::to_string(p) +
                       " processors fits in no queue");
    }
    requests[static_cast<size_t>(pick)] += p;
  }
  return requests;
}

namespace {

double mean_wait(const std::vector<AppSubmission>& subs, double horizon) {
  double sum = 0;
  int n = 0;
  for (const AppSubmission& s : subs) {
    if (s.submit >= horizon) continue;
    // A submission still waiting at the horizon counts with its wait so far.
    sum += (s.start >= 0 ? std::min(s.start, horizon) : horizon) - s.submit;
    ++n;
  }
  return n ? sum / n : 0;
}

}  // namespace

Comparison compare(const GridSpec& spec, std::vector<Event>* multi_events,
                   std::vector<Event>* single_events) {
  Comparison c;
  const auto& qs = spec.queues;
  if (qs.empty()) throw UsageError("--queues: no queue given");
  c.largest = static_cast<int>(
      std::max_element(qs.begin(), qs.end(),
                       [](const QueueConfig& a, const QueueConfig& b) { return a.size < b.size; }) -
      qs.begin());
  const int largest_size = qs[static_cast<size_t>(c.largest)].size;
  if (spec.request != 0 && (spec.request > largest_size ||
                            spec.request < static_cast<int>(spec.model.components.size()))) {
    throw UsageError("--request: '" + std::to_string(spec.request) + "' is not 0 or between " +
                     std::to_string(spec.model.components.size()) + " and the largest queue (" +
                     std::to_string(largest_size) + ")");
  }
  // Section 3.2: the single-system best schedule over all valid allocations on the largest
  // queue; its processors are the single execution's request.
  c.base = best_single(spec.model, spec.request ? spec.request : largest_size).procs;
  c.request = spec.request ? spec.request : std::accumulate(c.base.begin(), c.base.end(), 0);
  c.requests = spec.requests.empty() ? split_request(c.base, qs) : spec.requests;
  if (c.requests.size() != qs.size()) throw UsageError("--requests: not one size per queue");

  // The workloads run past the horizon by one limit, so the queues stay loaded to the end.
  std::vector<std::vector<AppSubmission>> multi(qs.size());
  std::vector<AppSubmission> single;
  for (size_t q = 0; q < qs.size(); ++q) {
    QueueSpec run;
    run.name = std::to_string(q);
    run.size = qs[q].size;
    run.discipline = qs[q].discipline;
    run.limit = qs[q].limit > 0 ? qs[q].limit : spec.limit;
    run.jobs = queue_workload(qs[q], spec.interarrival, derive_seed(spec.seed, q),
                              spec.horizon + run.limit);
    run.app_horizon = spec.horizon;
    run.app_request = c.requests[q];
    QueueRun r = run_queue(run);
    c.simulated_jobs += r.simulated_jobs;
    multi[q] = std::move(r.app);
    if (static_cast<int>(q) == c.largest) {
      run.app_request = c.request;
      QueueRun s = run_queue(run);
      c.simulated_jobs += s.simulated_jobs;
      single = std::move(s.app);
    }
  }
  c.multi_wait = mean_wait(multi[static_cast<size_t>(c.largest)], spec.horizon);
  c.single_wait = mean_wait(single, spec.horizon);

  for (size_t b = 0; b < spec.bandwidths.size(); ++b) {
    Outcome o;
    o.bandwidth = spec.bandwidths[b];
    ExecutionSpec m{spec.model, c.requests, multi, c.base, o.bandwidth, spec.horizon};
    o.multi = execute(m, b == 0 ? multi_events : nullptr);
    ExecutionSpec s{spec.model, {c.request}, {single}, c.base, o.bandwidth, spec.horizon};
    o.single = execute(s, b == 0 ? single_events : nullptr);
    c.outcomes.push_back(o);
  }
  return c;
}

GridSpec random_grid(std::uint64_t seed, const GridSpec& defaults) {
  Rng rng(seed);
  GridSpec g = defaults;
  g.seed = seed;
  g.queues.clear();
  // Section 4.1's draw, in the order its seeds were drawn in.
  using sim::Discipline;
  static constexpr Discipline kDrawn[] = {Discipline::kFcfs, Discipline::kCons, Discipline::kEasy};
  for (int q = 0; q < 4; ++q) {
    QueueConfig c;
    c.size = 32 << rng.below(5);
    c.discipline = kDrawn[rng.below(3)];
    // Random numbers of S, L, N and W jobs (section 4.1); no jobs of the untuned model.
    c.mix = {0, rng.uniform(), rng.uniform(), rng.uniform(), rng.uniform()};
    g.queues.push_back(c);
  }
  // Section 4.1 draws queues, sizes, workloads and policies, not the request: the application
  // asks for its single-system best schedule on the largest queue (section 3.2).
  g.request = 0;
  return g;
}

}  // namespace mcb::batchgrid
