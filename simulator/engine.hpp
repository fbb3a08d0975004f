#pragma once
/// @file
/// @brief The discrete-event engine: arrivals streamed from a workload, departures from a
/// heap, and after the events of each instant one scheduling pass of the policy, whose queues
/// pick their jobs with the queue discipline and place them with the placement rule.
/// Departures at an instant are processed before arrivals and before any start.

#include "common/rng.hpp"
#include "simulator/job.hpp"
#include "simulator/machine.hpp"
#include "simulator/placement.hpp"
#include "simulator/service.hpp"

#include <cstdint>
#include <memory>
#include <queue>
#include <span>
#include <string>
#include <vector>

namespace mcb::sim {

class Sim;
class Policy;
class QueueDiscipline;

/// @brief Where jobs come from, in submit order. Fills a job's workload fields (id, submit,
/// app, req, home, price, line).
class JobSource {
 public:
  virtual ~JobSource() = default;
  /// False at the end of the workload.
  virtual bool next(Job& job) = 0;
  /// @brief A job that became known after the pending one was drawn (a resubmission decided by
  /// the run itself) and is due before it: the source puts it in @p pending, keeping the other,
  /// and returns true. @p have_pending is false once next() has returned false (the
  /// observer has then had on_arrivals_end already).
  virtual bool earlier(Job& /*pending*/, bool /*have_pending*/) { return false; }
};

/// @brief Watches a run (statistics, per-job output).
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_arrival(const Job&, const Sim&) {}
  virtual void on_start(const Job&, const Sim&) {}
  virtual void on_departure(const Job&, const Sim&) {}
  /// The last job has arrived (or the run stops early).
  virtual void on_arrivals_end(const Sim&) {}
};

/// @brief Storage for the jobs in the system; slots are reused, references stay valid.
/// Slots come in chunks of a fixed power of two, so a job is found with a shift and a mask
/// (a std::deque of jobs this large keeps one per node and indexes through its map).
class JobStore {
 public:
  /// A free slot: the one last removed (inline, a run takes one per job), else a new one.
  JobId add() {
    if (free_.empty()) return add_new();
    const JobId id = free_.back();
    free_.pop_back();
    return id;
  }
  void remove(JobId id) { free_.push_back(id); }
  Job& operator[](JobId id) { return chunks_[id >> kShift][id & kMask]; }
  const Job& operator[](JobId id) const { return chunks_[id >> kShift][id & kMask]; }
  size_t capacity() const { return size_; }

 private:
  static constexpr unsigned kShift = 6;  // 64 jobs (24 KB) a chunk
  static constexpr JobId kMask = (JobId{1} << kShift) - 1;
  JobId add_new();
  std::vector<std::unique_ptr<Job[]>> chunks_;
  size_t size_ = 0;  //!< slots handed out
  std::vector<JobId> free_;
};

/// @brief A FIFO queue of jobs threaded through the job store (removal anywhere is O(1)).
class JobQueue {
 public:
  JobId front() const { return head_; }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  void push_back(JobStore& store, JobId id);
  void push_front(JobStore& store, JobId id);
  void remove(JobStore& store, JobId id);

 private:
  JobId head_ = kNoJob, tail_ = kNoJob;
  size_t size_ = 0;
};

/// @brief Limits of one run.
struct RunLimits {
  std::uint64_t warmup_jobs = 0;         //!< first jobs (arrival order) left out of statistics
  std::uint64_t max_in_system = 200000;  //!< stop (saturated) past this many jobs in the system
  std::uint64_t backfill_depth = 0;  //!< jobs behind a head a backfilling queue may try (0: all)
  std::uint64_t routing_seed = 1;    //!< home clusters of jobs that have none
  /// An instant with arrivals but no departure gets a scheduling pass (else only departures,
  /// due reservations and an idle system do).
  bool arrival_pass = true;
  /// Home clusters of jobs that have none are dealt in turn (each job to the next cluster that
  /// can hold it) instead of drawn at random, proportional to size.
  bool home_in_turn = false;
};

/// @brief How a run ended.
struct RunEnd {
  bool stopped_early = false;  //!< jobs in the system passed max_in_system
  Time time = 0;               //!< time of the last event
  std::uint64_t arrivals = 0;
  std::uint64_t max_in_system = 0;  //!< most jobs held at once (memory is bounded by it)
};

/// @brief One simulation: a machine, a policy with its queues, a discipline, a placement rule.
class Sim {
 public:
  Sim(MachineSpec machine, std::unique_ptr<Policy> policy,
      std::unique_ptr<QueueDiscipline> discipline, std::unique_ptr<PlacementRule> placement,
      ServiceModel service, RunLimits limits);
  ~Sim();
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  /// Runs the workload to its end (every job departed) or until it saturates.
  RunEnd run(JobSource& source, Observer& observer);

  // --- What policies and disciplines use.
  Time now() const { return now_; }
  const Machine& machine() const { return machine_; }
  const PlacementRule& placement() const { return *placement_; }
  const ServiceModel& service() const { return service_; }
  Policy& policy() { return *policy_; }
  const Policy& policy() const { return *policy_; }
  QueueDiscipline& discipline() { return *discipline_; }
  Job& job(JobId id) { return store_[id]; }
  const Job& job(JobId id) const { return store_[id]; }
  JobQueue& queue(int q) { return queues_[static_cast<size_t>(q)]; }
  const JobQueue& queue(int q) const { return queues_[static_cast<size_t>(q)]; }
  int queue_count() const { return static_cast<int>(queues_.size()); }
  std::span<const JobId> running() const { return running_; }
  std::uint64_t waiting() const { return waiting_; }
  const RunLimits& limits() const { return limits_; }
  /// Changes whenever a job arrives, starts or departs.
  std::uint64_t version() const { return version_; }

  /// Idle processors now in the clusters @p job may use (0 elsewhere): the machine's own counts
  /// when it may use every cluster, else a copy with the others at 0, written into @p room (one
  /// entry a cluster).
  /// Inline: the disciplines ask it for nearly every job they look at.
  std::span<const int> avail_now(const Job& job, std::span<int> room) const {
    const auto idle = machine_.idle();
    if ((~job.allowed & machine_.spec().all()) == 0) return idle;  // no copy: every job of GS
    for (size_t c = 0; c < idle.size(); ++c) room[c] = (job.allowed >> c & 1) ? idle[c] : 0;
    return room.first(idle.size());
  }
  /// Asks the discipline for a job of queue @p q that can start now and starts it.
  bool try_start(int q);
  /// @brief Starts job @p id now on @p alloc (processors per cluster). With @p open_end its
  /// end is not known yet: it holds the processors (planned with its requested time) until
  /// close_end() sets it.
  void start(JobId id, std::span<const int> alloc, bool open_end = false);
  /// @brief Ends the open-ended running job @p id @p remaining seconds from now.
  /// @throws std::logic_error if the job is not running with an open end.
  void close_end(JobId id, double remaining);
  /// @brief Suspends the running job @p id now: its processors are given back, its departure
  /// is cancelled, and it goes back to the head of its queue; when started again it runs for
  /// the time it had left (and plans the requested time it had left). Only the FCFS and
  /// conservative disciplines follow a preemption (QueueDiscipline::on_preempt).
  /// @throws std::logic_error if the job is not running with a set end.
  void preempt(JobId id);
  /// Requested duration of @p job on @p alloc, in seconds.
  double requested_duration(const Job& job, std::span<const int> alloc) const;

 private:
  struct Departure {
    Time time;
    std::uint64_t order;
    JobId id;
    bool operator>(const Departure& o) const {
      return time != o.time ? time > o.time : order > o.order;
    }
  };
  void admit(JobId id);
  void depart(JobId id);
  void push_departure(JobId id);

  Machine machine_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<QueueDiscipline> discipline_;
  std::unique_ptr<PlacementRule> placement_;
  ServiceModel service_;
  RunLimits limits_;
  Rng routing_;

  JobStore store_;
  std::vector<JobQueue> queues_;
  std::vector<JobId> running_;
  std::priority_queue<Departure, std::vector<Departure>, std::greater<>> departures_;
  Observer* observer_ = nullptr;
  Time now_ = 0;
  std::uint64_t version_ = 0;
  std::uint64_t starts_ = 0;
  std::uint64_t waiting_ = 0;
  std::uint64_t arrivals_ = 0;
  int next_home_ = 0;  //!< home_in_turn: the cluster the next job without a home tries first
};

}  // namespace mcb::sim
