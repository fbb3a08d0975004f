#pragma once
/// @file
/// @brief Scheduling policies: which queues a system has, which queue an arriving job joins,
/// which clusters it may use, and in what order queues are visited. One file per policy:
/// GS, LS and LP (DAS-2 paper section 2.4), independent clusters and the load-sharing grid
/// (001 section VI).

#include "common/rng.hpp"
#include "simulator/job.hpp"
#include "simulator/machine.hpp"
#include "simulator/placement.hpp"

#include <array>
#include <memory>
#include <string>
#include <string_view>

namespace mcb::sim {

class Sim;

/// @brief A scheduling policy.
class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const = 0;
  virtual int queue_count() const = 0;
  /// "global", "local0", ...
  virtual std::string queue_name(int q) const = 0;

  /// @brief Chooses the job's queue and the clusters it may use; policies without
  /// co-allocation turn the request into one component. A job without a home cluster gets one
  /// drawn with probability proportional to cluster size among those that can hold it.
  virtual void admit(Job& job, const MachineSpec& machine, Rng& rng) const = 0;

  /// @brief Empty if a job with this request (and home, -1 if none) can run on the empty
  /// system under this policy; else why not.
  virtual std::string never_runs(const Request& req, int home, const MachineSpec& machine,
                                 const PlacementRule& placement) const;

  /// A job joined queue @p q. With @p backfilling a disabled queue is enabled again, since a
  /// new job may be started behind a head that does not fit.
  virtual void on_arrival(int q, bool backfilling) = 0;
  /// A job departed: disabled queues are enabled again.
  virtual void on_departure() = 0;
  /// A reservation is due (conservative backfilling): as a departure.
  virtual void on_timer() { on_departure(); }
  /// One scheduling pass at the current time.
  virtual void schedule(Sim& sim) = 0;
  /// Whether queue @p q may start jobs now (LP: the global queue waits for an empty local one).
  virtual bool may_start(int /*q*/, const Sim& /*sim*/) const { return true; }
};

/// @brief When LP visits its global queue after a local queue gets empty during a round (the
/// paper: it is "added to the list of queues which are visited").
enum class GlobalVisit {
  kNextRound,  //!< appended to the visiting order, so visited from the next round on
  kThisRound,  //!< also visited at the end of the round in progress
  kAtOnce,     //!< visited right after the local queue that got empty
};

/// @brief next-round, this-round or at-once. @throws std::invalid_argument otherwise.
GlobalVisit parse_global_visit(std::string_view name);

/// @brief The policy named gs, ls, lp, ic or grid (@p visit: LP only). @throws
/// std::invalid_argument otherwise.
std::unique_ptr<Policy> make_policy(std::string_view name, int clusters,
                                    GlobalVisit visit = GlobalVisit::kNextRound);

/// @brief Enabled and disabled queues in the order the paper's LS and LP keep them: a queue
/// whose visit starts nothing is disabled, and disabled queues are enabled again in the order
/// they were disabled.
class QueueRing {
 public:
  explicit QueueRing(int queues = 0);
  bool is_enabled(int q) const { return state_[static_cast<size_t>(q)] == kEnabled; }
  bool is_disabled(int q) const { return state_[static_cast<size_t>(q)] == kDisabled; }
  /// Disables an enabled queue (appended to the disabled order).
  void disable(int q);
  /// Takes an enabled queue out without disabling it (LP's blocked global queue).
  void withdraw(int q);
  /// Enables @p q (appended to the enabled order) if it is not enabled.
  void enable(int q);
  /// Enables every disabled queue, in the order they were disabled.
  void enable_disabled();
  /// The enabled queues in visiting order.
  int enabled_count() const { return enabled_count_; }
  int enabled_at(int i) const { return enabled_[static_cast<size_t>(i)]; }
  /// Puts @p q first in the enabled order (enabling it if needed).
  void enable_first(int q);

  /// @brief The rounds of a pass: each round visits the enabled queues in order and starts at
  /// most one job from each; a non-empty queue from which nothing starts is disabled. The pass
  /// ends when a round starts nothing.
  void rounds(Sim& sim);

 private:
  enum State : unsigned char { kEnabled, kDisabled, kOut };
  /// Disables the queue at position @p i of the enabled order.
  void disable_at(int i);
  std::array<int, kMaxClusters + 1> enabled_{};
  std::array<int, kMaxClusters + 1> disabled_{};
  std::array<State, kMaxClusters + 1> state_{};
  int enabled_count_ = 0;
  int disabled_count_ = 0;
};

/// @brief A policy whose queues are visited in the rounds of @ref QueueRing: a queue whose head
/// does not fit is disabled until the next departure (GS, LS, IC and the grid).
class RoundRobinPolicy : public Policy {
 public:
  explicit RoundRobinPolicy(int queues) : queues_(queues), ring_(queues) {}
  int queue_count() const override { return queues_; }
  void on_arrival(int q, bool backfilling) override {
    if (backfilling) ring_.enable(q);
  }
  void on_departure() override { ring_.enable_disabled(); }
  void schedule(Sim& sim) override { ring_.rounds(sim); }

 private:
  int queues_;
  QueueRing ring_;
};

/// @brief Draws a home cluster, proportional to size, among clusters of at least @p need
/// processors. -1 if none. @p rng must draw homes only: with one cluster nothing is drawn.
int draw_home(const MachineSpec& machine, int need, Rng& rng);

/// "local0", "local1", ...: the queue of a cluster's local scheduler.
std::string local_queue_name(int cluster);

/// @brief Whether @p req is one component of given size (not flexible), which LS and LP keep
/// on its home cluster.
bool single_component(const Request& req);

/// @brief Admission of LS and LP: a single-component job gets the cluster it names (fixed) or
/// its home cluster (drawn if it has none) and may run only there; any other job may be
/// co-allocated over the whole system. Sets home and allowed; returns whether the job is
/// single-component.
bool admit_local_or_system(Job& job, const MachineSpec& machine, Rng& rng);

/// @brief Empty if @p req fits the empty system under @p placement; else why not (the default
/// never_runs).
std::string never_fits_empty_system(const Request& req, const MachineSpec& machine,
                                    const PlacementRule& placement);

/// @brief never_runs for LS and LP: a single-component job that is not fixed must fit its home
/// cluster (any cluster if it has none); any other job must fit the empty system.
std::string never_runs_local_or_system(const Request& req, int home, const MachineSpec& machine,
                                       const PlacementRule& placement);

/// @brief Empty if a job of @p total processors fits whole on its home cluster, or with no
/// home (-1) on the largest cluster; else why not, ending in @p why.
std::string too_large_for_one_cluster(int total, int home, const MachineSpec& machine,
                                      std::string_view why = {});

/// @brief Turns @p req into one unordered component of its total size (policies without
/// co-allocation).
void make_one_component(Request& req);

}  // namespace mcb::sim
