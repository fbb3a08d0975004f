#include "simulator/site_selection.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <cmath>

namespace mcb::sim {

SiteSelection parse_site_selection(const std::string& text) {
  if (text == "idle") return SiteSelection::kIdle;
  if (text == "power") return SiteSelection::kPower;
  throw UsageError("--site-select: '" + text + "' is not idle or power");
}

std::string_view to_string(SiteSelection selection) {
  return selection == SiteSelection::kPower ? "power" : "idle";
}

int site_by_power(int size, std::span<const int> free, std::span<const int> taken, bool distinct,
                  std::span<const double> speeds) {
  int best = -1;
  double best_power = 0;
  for (size_t c = 0; c < free.size(); ++c) {
    if ((distinct && taken[c] > 0) || free[c] < size) continue;
    const double power = free[c] * speed_of(speeds, c);
    if (best < 0 || power > best_power) {
      best = static_cast<int>(c);
      best_power = power;
    }
  }
  return best;
}

namespace {

// The most idle site that holds the smallest size; the job takes what it asked for or less.
bool place_by_idle(const Request& req, int least, std::span<const int> avail, std::span<int> out) {
  int best = -1;
  for (size_t c = 0; c < avail.size(); ++c) {
    if (avail[c] >= least && (best < 0 || avail[c] > avail[static_cast<size_t>(best)])) {
      best = static_cast<int>(c);
    }
  }
  if (best < 0) return false;
  out[static_cast<size_t>(best)] = std::min(req.total, avail[static_cast<size_t>(best)]);
  return true;
}

}  // namespace

bool place_moldable(const Request& req, std::span<const int> avail, std::span<const double> speeds,
                    SiteSelection selection, std::span<int> out) {
  std::fill(out.begin(), out.end(), 0);
  const int least = std::clamp(req.min_size, 1, req.total);
  if (selection == SiteSelection::kIdle) return place_by_idle(req, least, avail, out);

  const double need = req.power > 0 ? req.power : req.total;  // required computing power
  // Processors the job takes on cluster c: the fewest that give its required power, within
  // its smallest size, its requested size and the idle processors.
  const auto procs = [&](size_t c) {
    const int hi = std::min(req.total, avail[c]);
    const double exact = need / speed_of(speeds, c);
    const int enough = static_cast<int>(std::ceil(exact - 1e-9 * exact));
    return std::clamp(enough, least, hi);
  };
  int best = -1;
  bool best_full = false;
  double best_power = 0;
  for (size_t c = 0; c < avail.size(); ++c) {
    if (avail[c] < least) continue;
    const double speed = speed_of(speeds, c);
    const bool full = procs(c) * speed >= need * (1 - 1e-12);
    const double power = avail[c] * speed;  // the site's free computing power
    if (best < 0 || (full && !best_full) || (full == best_full && power > best_power)) {
      best = static_cast<int>(c);
      best_full = full;
      best_power = power;
    }
  }
  if (best < 0) return false;
  out[static_cast<size_t>(best)] = procs(static_cast<size_t>(best));
  return true;
}

}  // namespace mcb::sim
