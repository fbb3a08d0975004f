#include "simulator/profile.hpp"

#include <algorithm>

namespace mcb::sim {

void Profile::reset(Time now, std::span<const int> free) {
  clusters_ = static_cast<int>(free.size());
  times_.assign(1, now);
  free_.assign(free.begin(), free.end());
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
  auto it = std::upper_bound(times_.begin(), times_.end(), t);
  return it == times_.begin() ? 0 : static_cast<size_t>(it - times_.begin()) - 1;
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
  free_.insert(free_.begin() + static_cast<long>((i + 1) * c), at(i), at(i) + c);
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
    if (i < times_.size() && std::equal(at(i), at(i) + clusters_, at(i - 1))) {
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

}  // namespace mcb::sim
