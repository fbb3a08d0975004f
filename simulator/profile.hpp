#pragma once
/// @file
/// @brief Free processors per cluster as a step function of future time: what backfilling
/// plans with (running jobs until their requested end, and reservations).

#include "simulator/types.hpp"

#include <algorithm>
#include <span>
#include <vector>

namespace mcb::sim {

/// @brief Free processors of each cluster over [now, infinity), piecewise constant.
class Profile {
 public:
  explicit Profile(int clusters = 0) : clusters_(clusters) {}

  /// Starts over: @p free processors per cluster from @p now on.
  void reset(Time now, std::span<const int> free);
  /// Processors given back for good at @p t (a running job's requested end).
  struct Return {
    Time t;
    const int* procs;  //!< one count per cluster
  };
  /// @brief Starts over as reset(now, free) then release(r.t, kNever, r.procs) for each of
  /// @p returns, with one sort instead of an insertion each: the same free counts from @p now on
  /// (a return before @p now counts from @p now; the plan keeps nothing before it). Sorts
  /// @p returns by time.
  void reset_with_returns(Time now, std::span<const int> free, std::span<Return> returns);
  /// Forgets everything before @p now.
  void advance(Time now);
  /// Takes @p procs over [t0, t1) (t1 may be kNever).
  void reserve(Time t0, Time t1, std::span<const int> procs) { add(t0, t1, procs, -1); }
  /// Gives @p procs back over [t0, t1).
  void release(Time t0, Time t1, std::span<const int> procs) { add(t0, t1, procs, +1); }
  /// Smallest free count of each cluster over [t0, t1) (the segment at t0 when t1 <= t0).
  void min_free(Time t0, Time t1, std::span<int> out) const;

  /// @brief Earliest t in [from, until] at which @p fits accepts the free counts over
  /// [t, t + length); candidates are @p from and the later breakpoints. kNever if none.
  /// @p fits(std::span<int> window) may modify the window it is given. The window minimum
  /// slides along the breakpoints (a monotone queue per cluster), so a search costs
  /// O(breakpoints x clusters) plus the calls to @p fits.
  template <class Fits>
  Time earliest(Time from, Time length, Time until, Fits&& fits) const {
    const size_t n = times_.size();
    const auto c_count = static_cast<size_t>(clusters_);
    queue_.resize(n * c_count);
    size_t head[kMaxClusters], tail[kMaxClusters];
    for (size_t c = 0; c < c_count; ++c) head[c] = tail[c] = 0;
    int window[kMaxClusters];
    std::span<int> w(window, c_count);
    size_t i = segment(from);
    size_t next = i;  // first segment not yet in the queues
    Time t = from;
    while (t <= until) {
      const Time end = t + length;
      while (next < n && (next == i || times_[next] < end)) {
        const int* f = at(next);
        for (size_t c = 0; c < c_count; ++c) {
          size_t* q = queue_.data() + c * n;
          while (tail[c] > head[c] && at(q[tail[c] - 1])[c] >= f[c]) --tail[c];
          q[tail[c]++] = next;
        }
        ++next;
      }
      for (size_t c = 0; c < c_count; ++c) {
        const size_t* q = queue_.data() + c * n;
        while (q[head[c]] < i) ++head[c];
        w[c] = at(q[head[c]])[c];
      }
      if (fits(w)) return t;
      ++i;
      if (i >= n) break;
      t = times_[i];
    }
    return kNever;
  }

  /// @brief earliest() for one cluster and a placement that fits when @p need processors are
  /// free: the same answer, without the window minima. A segment short of @p need rules out
  /// every candidate up to it (their windows all reach it), so the next candidate is the
  /// breakpoint after it: one look at each segment up to the answer.
  Time earliest_one(Time from, Time length, Time until, int need) const {
    const size_t n = times_.size();
    size_t i = segment(from);
    Time t = from;
    while (t <= until) {
      const Time end = t + length;
      size_t k = i;
      while (k < n && (k == i || times_[k] < end) && at(k)[0] >= need) ++k;
      if (k == n || (k > i && !(times_[k] < end))) return t;
      i = k + 1;  // segment k is short: the next candidate is after it
      if (i >= n) break;
      t = times_[i];
    }
    return kNever;
  }

  /// @brief For a job holding @p need processors (one cluster) over [@p own_start, @p own_start
  /// + @p length): its earliest start before own_start were that reservation given back, found
  /// without giving it back (kNever: none, and putting it back would leave it where it is). A
  /// window starting before own_start ends before the reservation does, so the job's own
  /// processors count in every segment that starts at own_start or later; the candidates
  /// before own_start are the same either way.
  Time earliest_one_before_own(Time from, Time length, Time own_start, int need) const {
    const size_t n = times_.size();
    size_t i = segment(from);
    Time t = from;
    while (t < own_start) {
      const Time end = t + length;
      size_t k = i;
      while (k < n && (k == i || times_[k] < end) &&
             (at(k)[0] >= need || (times_[k] >= own_start && at(k)[0] >= 0))) {
        ++k;
      }
      if (k == n || (k > i && !(times_[k] < end))) return t;
      i = k + 1;  // segment k is short: the next candidate is after it
      if (i >= n) break;
      t = times_[i];
    }
    return kNever;
  }

  size_t breakpoints() const { return times_.size(); }
  int clusters() const { return clusters_; }

 private:
  void add(Time t0, Time t1, std::span<const int> procs, int sign);
  /// Index of the segment holding t (t >= the first breakpoint).
  size_t segment(Time t) const;
  /// Makes t a breakpoint; returns its index.
  size_t split(Time t);
  /// Whether segments @p i and @p j have the same free counts (a loop the compiler unrolls: a
  /// call to memcmp costs more than the one to four counts compared).
  bool same_free(size_t i, size_t j) const {
    const int* a = at(i);
    const int* b = at(j);
    for (int c = 0; c < clusters_; ++c) {
      if (a[c] != b[c]) return false;
    }
    return true;
  }
  int* at(size_t i) { return free_.data() + i * static_cast<size_t>(clusters_); }
  const int* at(size_t i) const { return free_.data() + i * static_cast<size_t>(clusters_); }

  int clusters_;
  std::vector<Time> times_;            //!< segment i is [times_[i], times_[i+1])
  std::vector<int> free_;              //!< clusters_ counts per segment
  mutable std::vector<size_t> queue_;  //!< earliest(): monotone queues, one per cluster
};

/// @brief EASY's plan on one cluster with one reservation, as numbers instead of a Profile.
/// Without reservations the free count never falls from now on (running jobs only give
/// processors back), so the earliest start of a job of @p need processors is the first return
/// that brings the count to @p need, and with that reservation taken the least free count over
/// a window from now is at now or at the reservation's start. plan() and min_free() give what
/// Profile::reset_with_returns, earliest_one, reserve and min_free give, without building the
/// plan: a scan of the returns up to the start, then one comparison per job asked about.
struct OneReservation {
  Time start = kNever;  //!< the reservation is [start, end); kNever: none
  Time end = kNever;
  int free_now = 0;       //!< the plan's free count at now, before the reservation
  int free_at_start = 0;  //!< its free count at start, less the reservation

  /// @p returns: the running jobs' ends in time order (one count each), as reset_with_returns
  /// takes them; a reservation of @p need processors for @p length at the earliest start.
  static OneReservation plan(Time now, int idle, std::span<const Profile::Return> returns, int need,
                             Time length);
  /// Profile::min_free(now, now + length) of that plan with the reservation taken.
  int min_free(Time now, Time length) const {
    const bool reserved = start < end;  // reserve() takes nothing over an empty interval
    if (reserved && (start == now || start < now + length))
      return std::min(free_now, free_at_start);
    return free_now;
  }
};

}  // namespace mcb::sim
