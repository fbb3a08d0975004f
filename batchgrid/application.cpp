#include "batchgrid/application.hpp"

#include <algorithm>
#include <limits>

namespace mcb::batchgrid {

AppModel ccsm_model() {
  // Seed 003 fits a + b / P per phase on its clusters but prints no coefficients. These are
  // chosen to have CCSM's shape: the atmosphere dominates and couples hourly, the ocean couples
  // daily and has the largest restart dump (T42_gx1v3-sized fields and dumps).
  AppModel m;
  m.components = {
      {"atm", 10, 3200, 24, 0.66e6, 150e6},
      {"ocn", 5, 1200, 1, 1.2e6, 300e6},
      {"ice", 3, 500, 24, 0.33e6, 60e6},
      {"lnd", 2, 150, 24, 0.16e6, 30e6},
  };
  return m;
}

double day_seconds(const AppModel& m, const std::vector<int>& procs, const std::vector<int>& site,
                   double bandwidth) {
  double slowest = 0;
  for (size_t i = 0; i < m.components.size(); ++i) {
    const Component& c = m.components[i];
    const bool remote = site[i] != site[0];  // the coupler sits with the first component
    const double message = remote ? m.wan_latency + 8 * c.bytes_per_coupling / bandwidth
                                  : 8 * c.bytes_per_coupling / m.local_bandwidth;
    const double t = c.a + c.b / procs[i] + c.couplings_per_day * 2 * message;
    slowest = std::max(slowest, t);
  }
  return slowest;
}

double move_seconds(const AppModel& m, const Schedule& from, const std::vector<int>& site,
                    double bandwidth) {
  if (!from.valid()) return 0;
  double t = 0;
  for (size_t i = 0; i < m.components.size(); ++i) {
    if (from.site[i] != site[i]) t += 8 * m.components[i].restart_bytes / bandwidth;
  }
  return t;
}

namespace {

// Calls f(procs) for every vector of sizes picked from options[i].
template <typename F>
void each_allocation(const std::vector<std::vector<int>>& options, std::vector<int>& procs,
                     size_t i, F&& f) {
  if (i == options.size()) {
    f(procs);
    return;
  }
  for (int p : options[i]) {
    procs[i] = p;
    each_allocation(options, procs, i + 1, f);
  }
}

}  // namespace

Schedule best_single(const AppModel& m, int total) {
  const size_t n = m.components.size();
  std::vector<std::vector<int>> options(n);
  for (auto& o : options) {
    for (int p = 1; p <= total; p *= 2) o.push_back(p);
  }
  Schedule best;
  double best_time = std::numeric_limits<double>::infinity();
  std::vector<int> procs(n), site(n, 0);
  each_allocation(options, procs, 0, [&](const std::vector<int>& p) {
    int sum = 0;
    for (int x : p) sum += x;
    if (sum > total) return;
    const double t = day_seconds(m, p, site, m.local_bandwidth);
    if (t < best_time) {
      best_time = t;
      best = {p, site, t, 0};
    }
  });
  return best;
}

namespace {

// The best allocation with each component a power of two from base / shrink to 2 x base, and
// its mapping onto the active sites.
Schedule best_within(const AppModel& m, const std::vector<int>& base,
                     const std::vector<int>& capacity, const Schedule& previous, double bandwidth,
                     int shrink) {
  const size_t n = m.components.size();
  std::vector<std::vector<int>> options(n);
  for (size_t i = 0; i < n; ++i) {
    for (int p = std::max(1, base[i] / shrink); p <= 2 * base[i]; p *= 2) options[i].push_back(p);
  }
  std::vector<int> active;
  for (size_t q = 0; q < capacity.size(); ++q) {
    if (capacity[q] > 0) active.push_back(static_cast<int>(q));
  }
  Schedule best;
  if (active.empty()) return best;
  double best_cost = std::numeric_limits<double>::infinity();
  std::vector<int> procs(n), site(n), used(capacity.size());
  const size_t k = active.size();
  size_t mappings = 1;
  for (size_t i = 0; i < n; ++i) mappings *= k;
  each_allocation(options, procs, 0, [&](const std::vector<int>& p) {
    for (size_t code = 0; code < mappings; ++code) {
      std::fill(used.begin(), used.end(), 0);
      size_t c = code;
      bool fits = true;
      for (size_t i = 0; i < n && fits; ++i, c /= k) {
        site[i] = active[c % k];
        used[static_cast<size_t>(site[i])] += p[i];
        fits = used[static_cast<size_t>(site[i])] <= capacity[static_cast<size_t>(site[i])];
      }
      if (!fits) continue;
      const double day = day_seconds(m, p, site, bandwidth);
      const double move = move_seconds(m, previous, site, bandwidth);
      const double cost = m.plan_days * day + move;
      if (cost < best_cost) {
        best_cost = cost;
        best = {p, site, day, move};
      }
    }
  });
  return best;
}

}  // namespace

Schedule best_schedule(const AppModel& m, const std::vector<int>& base,
                       const std::vector<int>& capacity, const Schedule& previous,
                       double bandwidth) {
  Schedule best = best_within(m, base, capacity, previous, bandwidth, 8);
  // Seed 003 runs on any active subset ("can proceed when at least one of the clusters become
  // available"): when nothing near the base fits, the components shrink as far as they must.
  if (!best.valid()) {
    int largest = 1;
    for (int b : base) largest = std::max(largest, b);
    best = best_within(m, base, capacity, previous, bandwidth, largest);
  }
  return best;
}

}  // namespace mcb::batchgrid
