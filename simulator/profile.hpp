#pragma once
/// @file
/// @brief Free processors per cluster as a step function of future time: what backfilling
/// plans with (running jobs until their requested end, and reservations).

#include "simulator/types.hpp"

#include <span>
#include <vector>

namespace mcb::sim {

/// @brief Free processors of each cluster over [now, infinity), piecewise constant.
class Profile {
 public:
  explicit Profile(int clusters = 0) : clusters_(clusters) {}

  /// Starts over: @p free processors per cluster from @p now on.
  void reset(Time now, std::span<const int> free);
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
  /// @p fits(std::span<int> window) may modify the window it is given.
  template <class Fits>
  Time earliest(Time from, Time length, Time until, Fits&& fits) const {
    int window[kMaxClusters];
    std::span<int> w(window, static_cast<size_t>(clusters_));
    size_t i = segment(from);
    Time t = from;
    while (t <= until) {
      min_free(t, t + length, w);
      if (fits(w)) return t;
      ++i;
      if (i >= times_.size()) break;
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
  int* at(size_t i) { return free_.data() + i * static_cast<size_t>(clusters_); }
  const int* at(size_t i) const { return free_.data() + i * static_cast<size_t>(clusters_); }

  int clusters_;
  std::vector<Time> times_;  //!< segment i is [times_[i], times_[i+1])
  std::vector<int> free_;    //!< clusters_ counts per segment
};

}  // namespace mcb::sim
