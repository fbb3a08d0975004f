#pragma once
/// @file
/// @brief Scheduling policies: which queues a system has, which queue an arriving job joins,
/// which clusters it may use, and in what order queues are visited. One file per policy:
/// GS, LS and LP (DAS-2 paper section 2.4), independent clusters and the load-sharing grid
/// (001 section VI).

#include "simulator/job.hpp"
#include "simulator/machine.hpp"
#include "simulator/placement.hpp"
#include "simulator/rng.hpp"

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

/// @brief The policy named gs, ls, lp, ic or grid. @throws std::invalid_argument otherwise.
std::unique_ptr<Policy> make_policy(std::string_view name, int clusters);

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
  void erase_enabled(int q);
  std::array<int, kMaxClusters + 1> enabled_{};
  std::array<int, kMaxClusters + 1> disabled_{};
  std::array<State, kMaxClusters + 1> state_{};
  int enabled_count_ = 0;
  int disabled_count_ = 0;
};

/// @brief Draws a home cluster, proportional to size, among clusters of at least @p need
/// processors. -1 if none.
int draw_home(const MachineSpec& machine, int need, Rng& rng);

}  // namespace mcb::sim
