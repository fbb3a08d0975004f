#include "jobscripts/ensemble_mapping.hpp"

#include <algorithm>
#include <cmath>

namespace mcb::campaign {
using nlohmann::json;

namespace {

const EnsembleQueue* find_queue(const EnsembleSpec& spec, const std::string& name) {
  for (const EnsembleQueue& q : spec.queues) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

// s for @p bytes over the link, with its latency.
double over_link(const EnsembleSpec& spec, double bytes) {
  return spec.link_latency + (spec.link_bandwidth > 0 ? bytes / spec.link_bandwidth : 0);
}

// s left of the pilot of @p q at @p now.
double time_left(const EnsembleQueue& q, const EnsembleState& state, double now) {
  const EnsemblePilot* p = state.live_pilot(q.name);
  return q.time_limit - (now - *p->started);
}

// The choice of the set @p parts (part 0 first), or none (queue null) when it cannot run a day.
SegmentChoice choice_of_set(const EnsembleSpec& spec, const EnsembleState& state,
                            const std::vector<const EnsembleQueue*>& parts, double restart_bytes,
                            double now, const EnsembleShape& shape) {
  SegmentChoice c;
  std::vector<int> processors;
  for (const EnsembleQueue* q : parts) processors.push_back(q->processors);
  int p = 0;
  for (const int n : processors) p += n;
  double compute = 0;  // the slowest part's ranks set the pace
  for (const EnsembleQueue* q : parts) compute = std::max(compute, q->a + q->b / p);
  c.traffic = analysis_link_seconds(spec, shape, processors);
  c.per_day = compute + c.traffic;
  const EnsembleQueue& lead = *parts.front();
  if (state.day > 0) {
    if (lead.name != state.site) c.transfer += over_link(spec, restart_bytes);
    // The restart file's broadcast from rank 0 reaches every other site once.
    c.transfer += static_cast<double>(parts.size() - 1) * over_link(spec, restart_bytes);
  }
  // The checkpoint gathers the other sites' members to rank 0: their share of the file.
  const double remote = static_cast<double>(p - lead.processors) / p;
  c.transfer += over_link(spec, restart_bytes * remote);
  double left = 1e300;
  for (const EnsembleQueue* q : parts) left = std::min(left, time_left(*q, state, now));
  const int wanted = std::min(spec.checkpoint_every, spec.horizon - state.day);
  c.days = std::min(wanted, static_cast<int>(std::floor((left - c.transfer) / c.per_day)));
  if (c.days < 1) return {};
  c.queue = &lead;
  c.parts = parts;
  c.predicted = c.transfer + c.days * c.per_day;
  return c;
}

}  // namespace

int SegmentChoice::processors() const {
  int p = 0;
  for (const EnsembleQueue* q : parts) p += q->processors;
  return p;
}

std::optional<EnsembleShape> shape_of_record(const json& record) {
  if (!record.is_object() || !record.contains("config") || !record["config"].is_object()) {
    return std::nullopt;
  }
  const json& c = record["config"];
  EnsembleShape s;
  s.members = c.value("members", 0);
  s.observations = c.value("observations", 0);
  s.state_size = c.value("state_size", 0);
  s.analysis_every = c.value("analysis_every", 0);
  s.gathered = c.value("analysis_layout", "gathered") != "regional";
  if (s.members < 1 || s.state_size < 1 || s.analysis_every < 1) return std::nullopt;
  return s;
}

double analysis_link_seconds(const EnsembleSpec& spec, const EnsembleShape& shape,
                             const std::vector<int>& processors) {
  double p = 0, same_site_pairs = 0;
  for (const int n : processors) {
    p += n;
    same_site_pairs += static_cast<double>(n) * n;
  }
  // Ordered pairs of ranks at different sites; each such pair exchanges one message per channel.
  const double crossing = p * p - same_site_pairs;
  if (crossing <= 0) return 0;
  const double members = shape.members;
  // Per pair: the sender's m M/P doubles of HX (gather, gathered layout only) and n M/P^2 of psi
  // there and back (transpose, update); README "The distribution".
  double doubles = 2 * shape.state_size * members / (p * p);
  if (shape.gathered) doubles += shape.observations * members / p;
  const double bytes = 8 * crossing * doubles;
  const double channels = shape.gathered ? 3 : 2;
  const double per_analysis = (spec.link_bandwidth > 0 ? bytes / spec.link_bandwidth : 0) +
                              channels * (p - 1) * spec.link_latency;
  return per_analysis / shape.analysis_every;
}

SegmentChoice choose_queue(const EnsembleSpec& spec, const EnsembleState& state,
                           const std::vector<std::string>& active, double restart_bytes,
                           double now) {
  SegmentChoice best;
  double best_rate = 0;  // model days per predicted second
  const int wanted = std::min(spec.checkpoint_every, spec.horizon - state.day);
  for (const EnsembleQueue& q : spec.queues) {
    if (std::find(active.begin(), active.end(), q.name) == active.end()) continue;
    const double left = time_left(q, state, now);
    const double transfer =
        state.day > 0 && q.name != state.site ? over_link(spec, restart_bytes) : 0;
    const double per_day = q.seconds_per_day();
    const int fit = static_cast<int>(std::floor((left - transfer) / per_day));
    const int days = std::min(wanted, fit);
    if (days < 1) continue;
    const double predicted = transfer + days * per_day;
    const double rate = days / predicted;
    // Staying on the site that holds the restart file wins a tie.
    if (!best.queue || rate > best_rate * (1 + 1e-9) ||
        (rate >= best_rate * (1 - 1e-9) && q.name == state.site)) {
      best = {&q, {&q}, days, transfer, per_day, 0, predicted};
      best_rate = rate;
    }
  }
  return best;
}

SegmentChoice choose_mapping(const EnsembleSpec& spec, const EnsembleState& state,
                             const std::vector<std::string>& active, double restart_bytes,
                             double now, const std::optional<EnsembleShape>& shape) {
  SegmentChoice best = choose_queue(spec, state, active, restart_bytes, now);
  if (!spec.split || !shape || active.size() < 2 || active.size() > 16) return best;
  double best_rate = best.queue ? best.days / best.predicted : 0;
  std::vector<const EnsembleQueue*> queues;
  for (const std::string& name : active) {
    if (const EnsembleQueue* q = find_queue(spec, name)) queues.push_back(q);
  }
  for (unsigned set = 1; set < (1u << queues.size()); ++set) {
    std::vector<const EnsembleQueue*> parts;
    int p = 0;
    for (std::size_t i = 0; i < queues.size(); ++i) {
      if (!(set & (1u << i))) continue;
      // The site holding the restart file leads: its rank 0 reads the file where it lies.
      if (queues[i]->name == state.site) {
        parts.insert(parts.begin(), queues[i]);
      } else {
        parts.push_back(queues[i]);
      }
      p += queues[i]->processors;
    }
    if (parts.size() < 2 || shape->members % p != 0) continue;
    const SegmentChoice c = choice_of_set(spec, state, parts, restart_bytes, now, *shape);
    if (!c.queue) continue;
    const double rate = c.days / c.predicted;
    if (rate > best_rate * (1 + 1e-9)) {
      best = c;
      best_rate = rate;
    }
  }
  return best;
}

std::optional<MidSegmentRemap> mid_segment_remap(const EnsembleSpec& spec,
                                                 const EnsembleState& state,
                                                 const std::vector<std::string>& active,
                                                 int analysis_every, double restart_bytes,
                                                 double now,
                                                 const std::optional<EnsembleShape>& shape) {
  if (!state.running) return std::nullopt;
  const EnsembleSegment& s = *state.running;
  if (s.stop_asked || !s.stopping.empty() || s.per_day <= 0 || active == s.active) {
    return std::nullopt;
  }
  if (analysis_every < 1) return std::nullopt;  // where it could stop is unknown
  const int every = analysis_every;
  const double elapsed = std::max(0.0, now - s.began);
  const int done = static_cast<int>(
      std::min<double>(std::floor(elapsed / s.per_day), static_cast<double>(s.to - s.from)));
  MidSegmentRemap r;
  r.stop = (s.from + done) / every * every + every;
  if (r.stop >= s.to) return std::nullopt;  // it ends there anyway
  EnsembleState then = state;               // as it will be at that analysis
  then.running.reset();
  then.day = r.stop;
  then.site = s.queue;
  then.mapping.clear();
  for (const EnsemblePart& p : s.parts) then.mapping.push_back(p.queue);
  r.from = then.mapping;
  // The pilots' time left as it will be at the stop, as predicted.
  const double at = std::max(now, s.began + (r.stop - s.from) * s.per_day);
  r.choice = choose_mapping(spec, then, active, restart_bytes, at, shape);
  if (!r.choice.queue) return std::nullopt;
  for (const EnsembleQueue* q : r.choice.parts) r.to.push_back(q->name);
  if (r.to == r.from) return std::nullopt;
  r.days = std::min(s.to - r.stop, r.choice.days);
  r.stay = r.days * s.per_day;
  r.move = r.choice.transfer + r.days * r.choice.per_day;
  if (!(r.move < r.stay * (1 - 1e-9))) return std::nullopt;
  return r;
}

}  // namespace mcb::campaign
