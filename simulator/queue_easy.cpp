/// @file
/// @brief EASY backfilling: the head of a queue starts if it fits; if it does not, it gets a
/// reservation (the earliest time the placement rule fits it, planning with the running jobs'
/// requested end times), and a job behind it may start now only if it fits and delays no
/// reservation. Every queue's blocked head holds a reservation in one system-wide plan, made in
/// queue order; a reservation lasts the job's planned (longest requested) time.
#include "simulator/discipline.hpp"
#include "simulator/engine.hpp"
#include "simulator/moldable.hpp"
#include "simulator/policy.hpp"
#include "simulator/profile.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <vector>

namespace mcb::sim {
namespace {

class Easy final : public QueueDiscipline {
 public:
  std::string_view name() const override { return "easy"; }
  bool backfilling() const override { return true; }

  bool select(Sim& sim, int q, JobId& id, std::span<int> alloc) override {
    const JobId head = sim.queue(q).front();
    if (head == kNoJob) return false;
    const size_t clusters = alloc.size();
    int now_buf[kMaxClusters], window_buf[kMaxClusters];
    const std::span<int> now_room(now_buf, clusters), window(window_buf, clusters);
    if (sim.placement().place(sim.job(head).req, sim.avail_now(sim.job(head), now_room), alloc)) {
      id = head;
      return true;
    }
    if (sim.job(head).next == kNoJob) return false;
    ensure_profile(sim, q);
    // Necessary conditions from the idle processors, and the shapes already found not to fit:
    // a job with the same request, clusters and planned time cannot fit either.
    long long idle_total = 0;
    int idle_max = 0;
    for (int c = 0; c < sim.machine().clusters(); ++c) {
      idle_total += sim.machine().idle(c);
      idle_max = std::max(idle_max, sim.machine().idle(c));
    }
    const bool single = sim.machine().clusters() == 1;
    failed_.clear();
    const std::uint64_t depth = sim.limits().backfill_depth;
    const Waiting& waiting = queue_copy(sim, q);
    if (waiting.ids.empty() || waiting.ids.front() != head) {
      throw std::logic_error("easy: the waiting jobs' copy is not the queue");
    }
    // The jobs behind the head up to the depth (0: all of them).
    const size_t end =
        depth == 0 ? waiting.ids.size()
                   : static_cast<size_t>(std::min<std::uint64_t>(waiting.ids.size(), depth + 1));
    const int* smallest = waiting.smallest.data();
    const int limit = static_cast<int>(std::min<long long>(idle_total, INT_MAX));
    for (size_t k = first_within(smallest, 1, end, limit); k < end;
         k = first_within(smallest, k + 1, end, limit)) {
      const JobId j = waiting.ids[k];
      const Job& job = sim.job(j);
      if (one_plan_ && rigid_on_first_cluster(job)) {
        // Its window is a comparison or two: less than looking up the shapes that failed.
        window[0] = std::min(one_.min_free(sim.now(), job.plan), sim.avail_now(job, now_room)[0]);
        if (sim.placement().place(job.req, window, alloc)) {
          id = j;
          return true;
        }
        continue;
      }
      const bool moldable = job.req.type == RequestType::kMoldable;
      // With one cluster the idle maximum is the total, and no component exceeds the job.
      if (!single && job.req.type != RequestType::kFlexible &&
          (moldable ? job.req.min_size : job.req.sizes.front()) > idle_max) {
        continue;
      }
      bool known = false;
      for (const Job* f : failed_) known = known || same_shape(*f, job);
      if (known) continue;
      const auto now_avail = sim.avail_now(job, now_room);
      if (!profile_built_) build_profile(sim, q);  // a job of another shape behind the head
      profile_.min_free(sim.now(), sim.now() + job.plan, window);
      for (size_t c = 0; c < clusters; ++c) window[c] = std::min(window[c], now_avail[c]);
      if (sim.placement().place(job.req, window, alloc)) {
        id = j;
        return true;
      }
      if (failed_.size() < kShapes) failed_.push_back(&job);
    }
    return false;
  }

  void on_arrival(Sim& sim, JobId id) override {
    const Job& job = sim.job(id);
    Waiting& w = queue_copy(sim, job.queue);
    w.ids.push_back(id);
    w.smallest.push_back(smallest_size(job));
  }
  void on_departure(Sim& sim, JobId id) override { forget_return(sim.job(id)); }
  void on_preempt(Sim& sim, JobId id) override {
    const Job& job = sim.job(id);
    forget_return(job);
    Waiting& w = queue_copy(sim, job.queue);
    w.ids.insert(w.ids.begin(), id);
    w.smallest.insert(w.smallest.begin(), smallest_size(job));
  }
  void on_start(Sim& sim, JobId id) override {
    const Job& job = sim.job(id);
    const Profile::Return back{job.expected_end, job.alloc.data()};
    returns_.insert(std::upper_bound(returns_.begin(), returns_.end(), back, earlier), back);
    Waiting& w = queue_copy(sim, job.queue);
    // Nearly always the head, or close behind it.
    const auto at = std::find(w.ids.begin(), w.ids.end(), id);
    if (at == w.ids.end()) return;
    w.smallest.erase(w.smallest.begin() + (at - w.ids.begin()));
    w.ids.erase(at);
  }

 private:
  // The waiting jobs of a queue in its order, and beside them the processors each needs at
  // least: the pass over the jobs behind a blocked head skips most of them by this alone,
  // without reading their records in the job store (a cache miss each, most of an EASY run on a
  // long queue), and the sizes side by side are compared eight at a time.
  struct Waiting {
    std::vector<JobId> ids;
    std::vector<int> smallest;
  };
  static int smallest_size(const Job& job) {
    return job.req.type == RequestType::kMoldable ? job.req.min_size : job.req.total;
  }
  /// First k in [k, end) with smallest[k] <= limit, or end: blocks of eight with no such size
  /// are passed over with one test (a loop without an early exit, which the compiler vectorizes).
  static size_t first_within(const int* smallest, size_t k, size_t end, int limit) {
    constexpr size_t kBlock = 8;
    for (; k + kBlock <= end; k += kBlock) {
      bool any = false;
      for (size_t i = 0; i < kBlock; ++i) any |= smallest[k + i] <= limit;
      if (any) break;
    }
    while (k < end && smallest[k] > limit) ++k;
    return k;
  }
  Waiting& queue_copy(const Sim& sim, int q) {
    if (waiting_.size() < static_cast<size_t>(sim.queue_count())) {
      waiting_.resize(static_cast<size_t>(sim.queue_count()));
    }
    return waiting_[static_cast<size_t>(q)];
  }

  // The plan: idle processors now, running jobs' processors back at their requested end, and
  // a reservation for the head of every queue that cannot start it now (@p blocked's head was
  // just found not to fit). One queue on one cluster with a head placed by its size plans with
  // one OneReservation; the Profile is built only when a job of another shape asks.
  void ensure_profile(Sim& sim, int blocked) {
    if (built_ == sim.version() && built_at_ == sim.now()) return;
    built_ = sim.version();
    built_at_ = sim.now();
    profile_built_ = false;
    one_plan_ = false;
    if (sim.queue_count() == 1 && places_by_size(sim) && sim.policy().may_start(blocked, sim)) {
      Job& head = sim.job(sim.queue(blocked).front());
      if (rigid_on_first_cluster(head)) {
        one_ = OneReservation::plan(sim.now(), sim.machine().idle(0), returns_, head.req.total,
                                    head.plan);
        one_plan_ = true;
        if (one_.start != kNever) hold(head, one_.start);
        return;
      }
    }
    build_profile(sim, blocked);
  }
  // Records @p job's reservation from @p t.
  static void hold(Job& job, Time t) {
    job.res_start = t;
    job.res_end = t + job.plan;
    if (job.first_reservation == kNever) job.first_reservation = t;
  }
  void build_profile(Sim& sim, int blocked) {
    profile_built_ = true;
    const Time now = sim.now();
    profile_.reset_with_returns(now, sim.machine().idle(), returns_);
    const size_t clusters = static_cast<size_t>(sim.machine().clusters());
    int buf[kMaxClusters], alloc_buf[kMaxClusters];
    std::span<int> room(buf, clusters), alloc(alloc_buf, clusters);
    for (int q = 0; q < sim.queue_count(); ++q) {
      const JobId head = sim.queue(q).front();
      if (head == kNoJob || !sim.policy().may_start(q, sim)) continue;
      Job& job = sim.job(head);
      if (q != blocked) {
        if (sim.placement().place(job.req, sim.avail_now(job, room), alloc)) continue;  // starts
      }
      const bool by_size = places_by_size(sim) && rigid_on_first_cluster(job);
      if (by_size) alloc[0] = job.req.total;
      const Time t = by_size ? profile_.earliest_one(now, job.plan, kNever, job.req.total)
                             : profile_.earliest(now, job.plan, kNever, [&](std::span<int> w) {
                                 for (size_t c = 0; c < clusters; ++c) {
                                   if (!(job.allowed >> c & 1)) w[c] = 0;
                                 }
                                 return sim.placement().place(job.req, w, alloc);
                               });
      if (t == kNever) continue;
      profile_.reserve(t, t + job.plan, alloc);
      hold(job, t);
    }
  }

  static bool earlier(const Profile::Return& a, const Profile::Return& b) { return a.t < b.t; }
  /// Takes @p job's processors out of the running jobs' ends (it departs or is suspended).
  void forget_return(const Job& job) {
    auto at = std::lower_bound(returns_.begin(), returns_.end(),
                               Profile::Return{job.expected_end, nullptr}, earlier);
    while (at != returns_.end() && at->procs != job.alloc.data()) ++at;
    if (at == returns_.end()) throw std::logic_error("easy: a running job's end is not kept");
    returns_.erase(at);
  }

  static bool same_shape(const Job& a, const Job& b) {
    return a.plan == b.plan && a.allowed == b.allowed && a.req.type == b.req.type &&
           a.req.total == b.req.total && a.req.sizes == b.req.sizes &&
           a.req.clusters == b.req.clusters && a.req.min_component == b.req.min_component &&
           a.req.max_component == b.req.max_component &&
           a.req.max_components == b.req.max_components &&
           a.req.allowed_counts == b.req.allowed_counts && a.req.min_size == b.req.min_size &&
           a.req.power == b.req.power;
  }

  std::vector<Waiting> waiting_;  //!< per queue
  static constexpr size_t kShapes = 64;
  std::vector<const Job*> failed_;
  Profile profile_;
  bool profile_built_ = false;  //!< profile_ is this instant's plan
  OneReservation one_;          //!< the plan, when one_plan_
  bool one_plan_ = false;
  /// The running jobs' ends in time order, kept as jobs start and end: each plan built starts
  /// from them without a sort.
  std::vector<Profile::Return> returns_;
  std::uint64_t built_ = ~std::uint64_t{0};
  Time built_at_ = -1;
};

}  // namespace

std::unique_ptr<QueueDiscipline> make_easy() { return std::make_unique<Easy>(); }

}  // namespace mcb::sim
