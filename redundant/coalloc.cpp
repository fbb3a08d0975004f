#include "redundant/coalloc.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mcb::redundant {

const std::vector<std::string>& sync_names() {
  static const std::vector<std::string> names = {"none", "stop-and-wait", "hibernation",
                                                 "resubmission"};
  return names;
}

Sync parse_sync(const std::string& name) {
  const auto& names = sync_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw std::invalid_argument("unknown synchronization '" + name + "'");
  return static_cast<Sync>(it - names.begin());
}

const std::string& to_string(Sync sync) { return sync_names()[static_cast<size_t>(sync)]; }

int lower_bound(int upper, double fraction) {
  // Equal parts: round the bound up to an even count, at least one processor per part.
  const int lower = static_cast<int>(std::ceil(fraction * upper - 1e-9));
  return std::clamp(lower + lower % 2, 2, upper);
}

int part_size(const Group& g, int idle_a, int idle_b) {
  const int low = (g.lower + 1) / 2, high = g.upper / 2;
  return std::clamp(std::min(idle_a, idle_b), low, high);
}

namespace {

/// No part holds processors: the allocated one holds. Under hibernation it also wakes the
/// hibernated part, which reclaims its processors at once by preemption when it can (the
/// grid's wake_parts); the holder then runs from the same instant.
PartDecision first_free_part(Group& g, int site, Sync sync) {
  PartDecision d;
  d.role = PartRole::hold;
  if (sync == Sync::hibernation && g.released_site >= 0 && g.released_site != site) {
    d.resubmit_site = g.released_site;
    g.released_site = -1;
  }
  return d;
}

}  // namespace

bool releases_holder(const Group& g, Sync sync) {
  return g.holder != sim::kNoJob && !g.released && sync != Sync::stop_and_wait;
}

PartDecision decide_part(Group& g, int site, Sync sync) {
  PartDecision d;
  if (g.winner >= 0 || site == g.holder_site) {
    d.role = PartRole::redundant;
    return d;
  }
  if (g.holder != sim::kNoJob) {
    d.role = PartRole::run;
    d.partner = g.holder;
    return d;
  }
  return first_free_part(g, site, sync);
}

std::vector<sim::JobId> preemption_victims(const sim::Sim& sim, int site, int need) {
  std::vector<sim::JobId> locals;
  for (const sim::JobId id : sim.running()) {
    const sim::Job& j = sim.job(id);
    if (j.app == kLocalJob && j.queue == site && j.end > sim.now() && j.end != sim::kNever) {
      locals.push_back(id);
    }
  }
  std::sort(locals.begin(), locals.end(), [&](sim::JobId a, sim::JobId b) {
    const sim::Job &x = sim.job(a), &y = sim.job(b);
    return x.start != y.start ? x.start > y.start : x.seq > y.seq;
  });
  std::vector<sim::JobId> victims;
  int freed = 0;
  for (size_t k = 0; k < locals.size() && freed < need; ++k) {
    victims.push_back(locals[k]);
    freed += sim.job(locals[k]).alloc[static_cast<size_t>(site)];
  }
  if (freed < need) victims.clear();
  return victims;
}

}  // namespace mcb::redundant
