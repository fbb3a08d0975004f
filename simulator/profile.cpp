#include "simulator/profile.hpp"

#include <algorithm>

namespace mcb::sim {

void Profile::reset(Time now, std::span<const int> free) {
  clusters_ = static_cast<int>(free.size());
  times_.assign(1, now);
  free_.assign(free.begin(), free.end());
}

void Profile::reset_with_returns(Time now, std::span<const int> free, std::span<Return> returns) {
  reset(now, free);
  const auto earlier = [](const Return& a, const Return& b) { return a.t < b.t; };
  if (!std::is_sorted(returns.begin(), returns.end(), earlier)) {  // kept in order by EASY
    std::sort(returns.begin(), returns.end(), earlier);
  }
  const auto c = static_cast<size_t>(clusters_);
  for (size_t k = 0; k < returns.size();) {
    const Time t = returns[k].t;
    if (!(t < kNever)) break;  // no end known: nothing comes back (release() skips it too)
    if (t > times_.back()) {   // a new step, from the previous one's counts
      times_.push_back(t);
      for (size_t i = 0; i < c; ++i) free_.push_back(free_[free_.size() - c]);
    }
    int* f = at(times_.size() - 1);
    for (; k < returns.size() && returns[k].t == t; ++k) {
      for (size_t i = 0; i < c; ++i) f[i] += returns[k].procs[i];
    }
  }
}

void Profile::advance(Time now) {
  if (times_.empty() || times_.front() >= now) return;
  size_t i = segment(now);
  if (i > 0) {
    times_.erase(times_.begin(), times_.begin() + static_cast<long>(i));
    free_.erase(free_.begin(), free_.begin() + static_cast<long>(i) * clusters_);
  }
  times_.front() = now;
}

size_t Profile::segment(Time t) const {
  // A binary search without branches on the comparisons (a conditional move each halving): a
  // long plan is searched on every reservation, and a branch there is mispredicted half the
  // time. @p base ends on the last breakpoint <= t, or on the first when none is.
  const Time* base = times_.data();
  for (size_t len = times_.size(); len > 1;) {
    const size_t half = len / 2;
    base = base[half] <= t ? base + half : base;
    len -= half;
  }
  return static_cast<size_t>(base - times_.data());
}

size_t Profile::split(Time t) {
  size_t i = segment(t);
  if (times_[i] == t) return i;
  if (t < times_[i]) {  // before the profile starts: extend the first segment back
    times_[i] = t;
    return i;
  }
  times_.insert(times_.begin() + static_cast<long>(i) + 1, t);
  const auto c = static_cast<size_t>(clusters_);
  if (c == 1) {  // one count: an insert of a value, not of a range of the vector itself
    const int f = free_[i];
    free_.insert(free_.begin() + static_cast<long>(i) + 1, f);
  } else {
    free_.insert(free_.begin() + static_cast<long>((i + 1) * c), at(i), at(i) + c);
  }
  return i + 1;
}

void Profile::add(Time t0, Time t1, std::span<const int> procs, int sign) {
  if (!(t1 > t0)) return;
  const size_t first = split(t0);
  const size_t last = t1 == kNever ? times_.size() : split(t1);
  for (size_t i = first; i < last; ++i) {
    int* f = at(i);
    for (int c = 0; c < clusters_; ++c) f[c] += sign * procs[static_cast<size_t>(c)];
  }
  // Merge equal neighbours around the touched range so the profile stays small.
  size_t lo = first > 0 ? first - 1 : 0;
  size_t hi = std::min(last + 1, times_.size());
  for (size_t i = hi; i-- > lo + 1;) {
    if (i < times_.size() && same_free(i, i - 1)) {
      times_.erase(times_.begin() + static_cast<long>(i));
      free_.erase(free_.begin() + static_cast<long>(i) * clusters_,
                  free_.begin() + static_cast<long>(i + 1) * clusters_);
    }
  }
}

void Profile::min_free(Time t0, Time t1, std::span<int> out) const {
  size_t i = segment(t0);
  std::copy(at(i), at(i) + clusters_, out.begin());
  for (++i; i < times_.size() && times_[i] < t1; ++i) {
    const int* f = at(i);
    for (int c = 0; c < clusters_; ++c)
      out[static_cast<size_t>(c)] = std::min(out[static_cast<size_t>(c)], f[c]);
  }
}

OneReservation OneReservation::plan(Time now, int idle, std::span<const Profile::Return> returns,
                                    int need, Time length) {
  OneReservation r;
  r.free_now = idle;
  size_t k = 0;
  for (; k < returns.size() && returns[k].t <= now; ++k) r.free_now += returns[k].procs[0];
  int free = r.free_now;
  Time t = now;
  while (free < need) {
    // No end known from here on: nothing more comes back (reset_with_returns stops there too).
    if (k == returns.size() || !(returns[k].t < kNever)) return r;
    t = returns[k].t;
    for (; k < returns.size() && returns[k].t == t; ++k) free += returns[k].procs[0];
  }
  r.start = t;
  r.end = t + length;
  r.free_at_start = free - need;
  return r;
}

}  // namespace mcb::sim
