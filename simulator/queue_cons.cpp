/// @file
/// @brief Conservative backfilling: every job gets a reservation when it arrives (the earliest
/// time the placement rule fits it for its planned time, around the running jobs and all
/// earlier reservations) and starts when its reservation is due. When a job ends before its
/// requested time (with --compress-at every-end: whenever a job ends) the plan is compressed,
/// at once, before an arrival of the same instant is placed: in arrival order (Mu'alem and
/// Feitelson 2001; or, with --compression reservation, in order of their reservations), jobs are
/// taken out and put back no later than before (a fresh placement if one fits earlier, else the
/// same processors earlier), so no reservation is ever delayed. A reservation a policy does not let
/// start when due (LP's global queue waiting for an empty local queue) is planned again.
/// A job that runs past its planned end (a part of a co-allocated job holding its processors
/// with an open end) holds them in the plan from then on until its end is known, and a job that
/// fits nowhere in the plan waits without a reservation until processors come back.
#include "simulator/discipline.hpp"
#include "simulator/engine.hpp"
#include "simulator/profile.hpp"

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

namespace mcb::sim {
namespace {

struct Key {
  Time t;
  std::uint64_t seq;
  JobId id;
  bool operator<(const Key& o) const { return std::tie(t, seq) < std::tie(o.t, o.seq); }
};

class Conservative final : public QueueDiscipline {
 public:
  Conservative(Compression order, CompressAt at) : order_(order), at_(at) {}
  std::string_view name() const override { return "cons"; }
  bool backfilling() const override { return true; }

  void on_arrival(Sim& sim, JobId id) override {
    prepare(sim);
    settle(sim);
    // Departures of this instant come first: the plan is compressed before the arrival is
    // placed, so it cannot take processors freed early ahead of a job already waiting.
    compress_pending(sim);
    place(sim, id);
  }

  void on_start(Sim& sim, JobId id) override {
    Job& j = sim.job(id);
    plan_.erase(Key{j.res_start, j.seq, id});
    std::erase(unplaced_, id);
    if (j.end > j.expected_end) overruns_.push_back({id, false, kNever});
    if (j.res_start <= sim.now()) {  // at (or after) its reservation, as planned
      if (j.expected_end < j.res_end) give_back(j.expected_end, j.res_end, j.alloc);
      return;
    }
    // Started by the policy before its reservation (on processors a preemption freed): the
    // plan may now overlap it and is made again.
    prepare(sim);
    give_back(std::max(sim.now(), j.res_start), j.res_end, j.res_alloc);
    profile_.reserve(sim.now(), j.expected_end, j.alloc);
    replan_ = true;
  }

  void on_preempt(Sim& sim, JobId id) override {
    prepare(sim);
    const Job& j = sim.job(id);
    give_back(sim.now(), j.expected_end, j.alloc);
    suspended_.push_back(id);
    replan_ = true;
  }

  void on_departure(Sim& sim, JobId id) override {
    const Job& j = sim.job(id);
    if (j.end < j.expected_end) {
      give_back(sim.now(), j.expected_end, j.alloc);
      compress_ = true;
    }
    if (at_ == CompressAt::kEveryEnd) compress_ = true;
    const auto it = std::find_if(overruns_.begin(), overruns_.end(),
                                 [&](const Overrun& o) { return o.id == id; });
    if (it == overruns_.end()) return;
    if (it->held && it->until > sim.now()) {  // ended before its end was seen
      give_back(sim.now(), it->until, j.alloc);
      compress_ = true;
    }
    overruns_.erase(it);
  }

  void begin_pass(Sim& sim) override {
    prepare(sim);
    settle(sim);
    compress_pending(sim);
    while (!plan_.empty() && plan_.begin()->t < sim.now()) {
      const Key key = *plan_.begin();
      plan_.erase(plan_.begin());
      Job& j = sim.job(key.id);
      give_back(sim.now(), j.res_end, j.res_alloc);
      place(sim, key.id);
    }
  }

  bool select(Sim& sim, int q, JobId& id, std::span<int> alloc) override {
    settle(sim);
    for (auto it = plan_.begin(); it != plan_.end() && it->t <= sim.now(); ++it) {
      const Job& j = sim.job(it->id);
      if (j.queue != q) continue;
      bool fits = true;
      for (size_t c = 0; c < alloc.size(); ++c) {
        fits = fits && j.res_alloc[c] <= sim.machine().idle(static_cast<int>(c));
      }
      if (!fits) continue;
      std::copy(j.res_alloc.begin(), j.res_alloc.end(), alloc.begin());
      id = it->id;
      return true;
    }
    return false;
  }

  Time next_wakeup(const Sim& sim) const override {
    auto it = plan_.upper_bound(Key{sim.now(), ~std::uint64_t{0}, kNoJob});
    return it == plan_.end() ? kNever : it->t;
  }

 private:
  void prepare(Sim& sim) {
    if (!started_) {
      started_ = true;
      profile_.reset(sim.now(), sim.machine().idle());
      rigid_single_ = places_by_size(sim);
    }
    profile_.advance(sim.now());
    hold_overruns(sim);
  }

  /// @brief Gives processors back to the plan and notes the gain: a reservation can only move
  /// earlier where the plan gained processors since it was made (movable()).
  void give_back(Time t0, Time t1, std::span<const int> procs) {
    if (!(t1 > t0)) return;
    profile_.release(t0, t1, procs);
    ++gain_stamp_;
    // Suffix minima of the gains' starts: a gain hidden by a later one starting no later is
    // never the earliest start after any stamp.
    while (!gains_.empty() && gains_.back().from >= t0) gains_.pop_back();
    gains_.push_back({gain_stamp_, t0});
    if (gains_.size() > kMaxGains) forget_gains(gain_stamp_);  // memory stays bounded
  }

  /// @brief Forgets the gains up to @p stamp: a job checked before it counts as movable.
  void forget_gains(std::uint64_t stamp) {
    gains_.erase(gains_.begin(),
                 std::upper_bound(gains_.begin(), gains_.end(), stamp,
                                  [](std::uint64_t s, const Gain& g) { return s < g.stamp; }));
    gain_floor_ = stamp;
  }

  /// @brief Whether re-inserting a waiting job may give it another reservation. With one
  /// cluster and a rigid request a placement is the job's size, and whether it fits only grows
  /// with the free processors; the job's reservation is the earliest start that fitted when it
  /// was last placed (or checked), and the plan has since only lost processors before its end
  /// unless a gain starting before then came after that: without one, re-inserting it puts it
  /// back where it is.
  bool movable(const Sim& sim, JobId id) const {
    const Job& j = sim.job(id);
    if (!reserved_by_size(j)) return true;
    const std::uint64_t checked = id < checked_.size() ? checked_[id] : 0;
    if (checked < gain_floor_) return true;
    const auto after =
        std::upper_bound(gains_.begin(), gains_.end(), checked,
                         [](std::uint64_t stamp, const Gain& g) { return stamp < g.stamp; });
    return after != gains_.end() && after->from < j.res_end;
  }

  /// @brief Whether @p j fits exactly when its size is free (places_by_size()).
  bool by_size(const Job& j) const { return rigid_single_ && rigid_on_first_cluster(j); }
  /// Whether @p j fits by its size and holds its size on the one cluster.
  bool reserved_by_size(const Job& j) const {
    return by_size(j) && j.res_alloc.size() == 1 && j.res_alloc[0] == j.req.total;
  }

  /// @brief Whether @p j's reservation is the one reserve_fresh() makes for it: its size on the
  /// one cluster, for its planned time (earliest_one_before_own() can then search for it).
  bool stays_single(const Job& j) const {
    return reserved_by_size(j) && j.res_end == j.res_start + j.plan;
  }

  /// Notes that @p id's reservation is the one re-inserting would give it now.
  void mark_checked(JobId id) {
    if (id >= checked_.size()) checked_.resize(static_cast<size_t>(id) + 1, 0);
    checked_[id] = gain_stamp_;
  }

  /// @brief A running job past its planned end (a holding part) keeps its processors: the
  /// plan holds them until its end, for ever while the end is open. Otherwise the plan
  /// counts them free, the reservations placed on them come due and cannot start, and every
  /// pass re-plans them from now, so wake-ups follow one another with nothing starting (with
  /// the holder waiting on a job that can never start, for ever).
  void hold_overruns(Sim& sim) {
    const Time now = sim.now();
    for (Overrun& o : overruns_) {
      const Job& j = sim.job(o.id);
      if (!o.held && j.expected_end <= now && j.end > now) {
        o.held = true;
        o.until = j.end;  // kNever while the end is open
        profile_.reserve(now, o.until, j.alloc);
        replan_ = true;  // reservations may lie on those processors
      } else if (o.held && o.until == kNever && j.end != kNever) {
        o.until = std::max(now, j.end);
        give_back(o.until, kNever, j.alloc);
        compress_ = true;
      }
    }
  }

  /// Reserves the earliest fresh placement from now, or parks the job when none fits.
  void place(Sim& sim, JobId id) {
    if (reserve_fresh(sim, id, sim.now(), kNever)) return;
    Job& j = sim.job(id);
    j.res_start = j.res_end = kNever;
    if (std::find(unplaced_.begin(), unplaced_.end(), id) == unplaced_.end()) {
      unplaced_.push_back(id);
    }
  }

  /// After processors came back to the plan: the parked jobs, in arrival order, where they fit.
  void place_unplaced(Sim& sim) {
    std::vector<JobId> parked;
    parked.swap(unplaced_);
    std::sort(parked.begin(), parked.end(),
              [&](JobId x, JobId y) { return sim.job(x).seq < sim.job(y).seq; });
    for (const JobId id : parked) place(sim, id);
  }

  /// @brief After a preemption or an early start the plan is made again from now: every
  /// reservation is taken out, the suspended jobs are put back first (they were at the head
  /// of their queues) and then the others in the order of their reservations.
  void settle(Sim& sim) {
    if (!replan_) return;
    replan_ = false;
    prepare(sim);
    const std::vector<Key> order(plan_.begin(), plan_.end());
    for (const Key& key : order) {
      const Job& j = sim.job(key.id);
      give_back(std::max(sim.now(), j.res_start), j.res_end, j.res_alloc);
    }
    plan_.clear();
    // The last suspended is at the head of its queue.
    for (auto it = suspended_.rbegin(); it != suspended_.rend(); ++it) place(sim, *it);
    suspended_.clear();
    for (const Key& key : order) place(sim, key.id);
    place_unplaced(sim);
  }

  // Earliest start in [from, until] with a fresh placement; reserves it. False if none.
  bool reserve_fresh(Sim& sim, JobId id, Time from, Time until) {
    Job& j = sim.job(id);
    const size_t clusters = static_cast<size_t>(sim.machine().clusters());
    int buf[kMaxClusters];
    std::span<int> alloc(buf, clusters);
    if (by_size(j)) {
      const Time t = profile_.earliest_one(from, j.plan, until, j.req.total);
      if (t == kNever) return false;
      j.res_alloc.assign(1, j.req.total);
      put(sim, id, t);
      return true;
    }
    const Time t = profile_.earliest(from, j.plan, until, [&](std::span<int> w) {
      for (size_t c = 0; c < clusters; ++c) {
        if (!(j.allowed >> c & 1)) w[c] = 0;
      }
      return sim.placement().place(j.req, w, alloc);
    });
    if (t == kNever) return false;
    j.res_alloc.assign(alloc.begin(), alloc.end());
    put(sim, id, t);
    return true;
  }

  void put(Sim& sim, JobId id, Time t) {
    Job& j = sim.job(id);
    j.res_start = t;
    j.res_end = t + j.plan;
    if (j.first_reservation == kNever) j.first_reservation = t;
    profile_.reserve(t, j.res_end, j.res_alloc);
    plan_.insert(Key{t, j.seq, id});
    mark_checked(id);
  }

  void compress_pending(Sim& sim) {
    if (!compress_) return;
    compress_ = false;
    compress(sim);
  }

  void compress(Sim& sim) {
    std::vector<Key> order(plan_.begin(), plan_.end());
    // Arrival order lets an earlier arrival take a hole first even when a later arrival's
    // reservation is earlier; reservation order keeps the plan's own order.
    if (order_ == Compression::kArrival) {
      std::sort(order.begin(), order.end(),
                [](const Key& a, const Key& b) { return a.seq < b.seq; });
    }
    const Time now = sim.now();
    const std::uint64_t first = gain_stamp_;  // every job in the plan is checked after it
    for (const Key& key : order) {
      Job& j = sim.job(key.id);
      if (j.res_start >= now && !movable(sim, key.id)) {  // it would be put back where it is
        mark_checked(key.id);
        continue;
      }
      if (j.res_start >= now && stays_single(j)) {
        // Where putting it back would take it, found without taking it out: most stay.
        const Time t = profile_.earliest_one_before_own(now, j.plan, j.res_start, j.req.total);
        if (t == kNever) {
          mark_checked(key.id);
          continue;
        }
        plan_.erase(key);
        give_back(j.res_start, j.res_end, j.res_alloc);
        put(sim, key.id, t);
        continue;
      }
      plan_.erase(key);
      give_back(std::max(now, j.res_start), j.res_end, j.res_alloc);
      const Time old_start = j.res_start;
      if (old_start < now) {  // due earlier but held back by the policy: plan it again
        place(sim, key.id);
        continue;
      }
      const Counts old_alloc(j.res_alloc.begin(), j.res_alloc.end());
      if (reserve_fresh(sim, key.id, now, old_start)) continue;
      Time t = profile_.earliest(now, j.plan, old_start, [&](std::span<int> w) {
        for (size_t c = 0; c < w.size(); ++c) {
          if (w[c] < old_alloc[c]) return false;
        }
        return true;
      });
      if (t == kNever) t = old_start;
      j.res_alloc.assign(old_alloc.begin(), old_alloc.end());
      put(sim, key.id, t);
    }
    forget_gains(first);
    place_unplaced(sim);
  }

  Compression order_;
  CompressAt at_;
  Profile profile_;
  std::set<Key> plan_;
  std::vector<JobId> suspended_;  //!< suspended since the last replan, in that order
  /// A running job that may run past its planned end (its end is open or later).
  struct Overrun {
    JobId id;
    bool held;   //!< past its planned end: the plan holds its processors
    Time until;  //!< until then (kNever: its end is not known yet)
  };
  std::vector<Overrun> overruns_;
  std::vector<JobId> unplaced_;  //!< waiting without a reservation (none fits), in arrival order
  bool compress_ = false;
  bool replan_ = false;
  bool started_ = false;
  bool rigid_single_ = false;  //!< one cluster, placed by size: movable() can rule jobs out
  /// A gain of processors in the plan from a time on, numbered in order (give_back()).
  struct Gain {
    std::uint64_t stamp;
    Time from;
  };
  std::vector<Gain> gains_;  //!< suffix minima of the gains' starts, stamps increasing
  std::uint64_t gain_stamp_ = 0;
  std::uint64_t gain_floor_ = 0;  //!< gains up to it are forgotten
  static constexpr size_t kMaxGains = 4096;
  std::vector<std::uint64_t> checked_;  //!< by job: the last gain when it was placed or checked
};

}  // namespace

std::unique_ptr<QueueDiscipline> make_conservative(Compression order, CompressAt at) {
  return std::make_unique<Conservative>(order, at);
}

}  // namespace mcb::sim
