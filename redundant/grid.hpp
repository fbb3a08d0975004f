#pragma once
/// @file
/// @brief Seed 004's grid (sections 2-3): sites, each one queue of its own processors with its
/// own local workload, and a global workload whose jobs go to the top-ranked site plus d
/// duplicates. The first copy to be allocated processors runs the job; every later allocation
/// is redundant and is released after the cancellation cost.

#include "simulator/engine.hpp"
#include "simulator/types.hpp"

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace mcb::redundant {

using sim::Time;

/// @brief What a job looks like. The paper gives no distributions; README "Defaults" argues
/// these.
struct WorkloadParams {
  std::vector<int> sizes = {1, 2, 4, 8, 16, 32};  //!< drawn uniformly
  double runtime_mean = 1800;                     //!< exponential runtimes (s)
  double estimate_max = 3;                        //!< requested time = runtime x U[1, estimate_max]
};

/// @brief How the two parts of a co-allocated global job wait for each other (section 2.1).
enum class Sync {
  none,           //!< no co-allocation: a global job runs whole at one site
  stop_and_wait,  //!< a part allocated first holds its processors idle until the other is
  hibernation,    //!< the first part releases its processors and is woken when the other is
  resubmission,   //!< the first part is terminated and its request resubmitted at once
};

/// The option spellings of Sync, in the enum's order.
const std::vector<std::string>& sync_names();
/// @throws std::invalid_argument for an unknown name.
Sync parse_sync(const std::string& name);
const std::string& to_string(Sync sync);

/// @brief One simulation of the grid.
struct GridConfig {
  std::vector<int> sites = std::vector<int>(8, 64);  //!< processors per site
  bool backfilling = false;                          //!< conservative backfilling, else FCFS
  double local_load = 0.6;                           //!< offered load of each site's own jobs
  double global_load = 0.4;                          //!< offered load of the global jobs
  bool global_load_of_grid = false;  //!< global load relative to the grid, else to one site
  std::string ranker = "random";
  int duplicates = 0;      //!< copies beyond the first (capped at the sites that can hold a job)
  double cancel_cost = 1;  //!< seconds a redundant allocation holds its processors
  double workload_period = 1800;  //!< the Workload ranker's "last time period" (s)
  std::uint64_t global_jobs = 5000;
  std::uint64_t warmup_jobs =
      500;  //!< first global jobs (and the local jobs before them) unmeasured
  std::uint64_t seed = 1;
  WorkloadParams work;
  /// Co-allocation: each global job is split in two equal parts at two sites.
  Sync sync = Sync::none;
  /// A co-allocated job's lower bound on its processors, as a fraction of its upper bound
  /// (twice the drawn size); each part takes between half of each.
  double coalloc_lower = 1;
};

/// @brief A global job: its copies and which one won.
struct Group {
  Time submit = 0;
  Time won = sim::kNever;  //!< start of the winning copy
  int winner = -1;         //!< site of the winning copy
  int copies = 0;          //!< copies submitted
  int started = 0;         //!< copies allocated so far (the winner and redundant ones)
  bool measured = false;
  std::int64_t index = 0;  //!< the job's number in its workload
  // Co-allocation (sync != none): the job runs when two parts at two sites hold processors.
  int lower = 0, upper = 0;           //!< bounds on the job's processors (both parts)
  int part = 0;                       //!< processors per part, chosen when the job is ranked
  double runtime = 0, requested = 0;  //!< at the upper bound
  sim::JobId holder = sim::kNoJob;    //!< the part holding its processors idle, if any
  int holder_site = -1;
  Time hold_from = sim::kNever;
  std::int64_t holder_record = -1;  //!< its entry in the copy records (tests)
  bool released = false;            //!< the one part that hibernated or was resubmitted
  int released_site = -1;
  double held = 0;  //!< processor-idle seconds: the holder's wait times its processors
};

/// @brief What the policy, the rankers and the statistics share during one run.
class GridState {
 public:
  GridState(const GridConfig& config);

  const GridConfig& config() const { return config_; }
  std::vector<Group>& groups() { return groups_; }
  const std::vector<Group>& groups() const { return groups_; }
  /// The sites, best first, chosen for the global job whose first copy arrives now.
  std::vector<int>& ranking() { return ranking_; }
  /// Runtime a queued copy will have if it is allocated now (the cost once its job runs).
  double actual_runtime(const sim::Job& job) const;
  /// Departures of site @p site within (now - period, now].
  int recent_departures(int site, Time now) const;
  void note_departure(int site, Time now);

  /// Time from which jobs are measured (the first measured global job's arrival).
  Time measure_from = sim::kNever;
  std::uint64_t redundant_allocations = 0;
  std::uint64_t copies_started = 0;
  std::uint64_t releases = 0;  //!< parts hibernated or withdrawn (co-allocation)
  // Hibernation: local jobs a woken part preempted.
  std::uint64_t preemptions = 0;     //!< suspensions
  std::uint64_t preempted_jobs = 0;  //!< jobs suspended at least once
  std::uint64_t preempted_done = 0;  //!< of those, jobs that ran their whole runtime and ended
  std::unordered_map<std::int64_t, double> ran;  //!< run so far of suspended jobs, by number
  /// @brief A request the run itself submits (a resubmitted or woken part).
  struct Resubmit {
    std::int64_t group = 0;
    int site = 0;
    Time at = 0;
  };
  std::deque<Resubmit> resubmits;
  std::string violation;  //!< first broken invariant ("" while none)

 private:
  GridConfig config_;
  std::vector<Group> groups_;
  std::vector<int> ranking_;
  std::vector<std::deque<Time>> departures_;
};

/// Job kinds, kept in sim::Job::app.
inline constexpr int kLocalJob = 0;
inline constexpr int kGlobalJob = 1;

/// @brief Measured results of one run.
struct GridResult {
  double global_wait_mean = 0;
  std::uint64_t global_measured = 0;
  std::vector<double> local_wait_mean;  //!< per site
  std::vector<std::uint64_t> local_measured;
  std::uint64_t jobs_simulated = 0;  //!< local jobs and every copy of the global jobs
  std::uint64_t redundant_allocations = 0;
  std::uint64_t global_done = 0;
  double coalloc_hold_mean = 0;   //!< mean processor-idle seconds per measured global job
  double all_wait_mean = 0;       //!< measured local and global jobs together
  double part_mean = 0;           //!< mean processors per part (co-allocation)
  std::uint64_t releases = 0;     //!< parts hibernated or withdrawn
  std::uint64_t preemptions = 0;  //!< local jobs suspended by woken parts (hibernation)
  double backlog_growth = 0;      //!< waiting jobs at the last arrival minus at the window's start
  double backlog_limit = 0;       //!< saturated past it (or past the limit on jobs in the system)
  bool saturated = false;
  bool valid = false;
  std::string verdict;  //!< why INVALID, or "VALID"
  double wall_seconds = 0;
};

/// @brief Runs one grid to the end of its workload. @throws UsageError for a bad config.
GridResult run_grid(const GridConfig& config);

/// @brief Runs a given list of jobs (tests: hand-worked schedules). Each entry: submit, size,
/// runtime, requested, kind and (local jobs) site; global jobs are ranked and duplicated as
/// the config says.
struct ListedJob {
  Time submit = 0;
  int size = 1;  //!< co-allocated global jobs: the upper bound over both parts
  double runtime = 1, requested = 1;
  int kind = kLocalJob;
  int site = 0;
  int min_size = 0;  //!< co-allocated global jobs: the lower bound (0: the config's fraction)
};
/// What an allocated copy of a global job does.
enum class PartRole {
  run,        //!< runs the job (a whole job, or a part whose partner holds)
  hold,       //!< a co-allocated part holding its processors idle for its partner
  release,    //!< hibernated or withdrawn: released after the cancellation cost
  redundant,  //!< allocated after the job started: released after the cancellation cost
};
/// Per-copy record of a listed run, for tests.
struct CopyRecord {
  std::int64_t job = 0;  //!< the job's number in its workload (a list: its index)
  int site = 0;
  Time start = 0, end = 0;  //!< a holding part's end is set when its partner starts
  bool redundant = false;
  PartRole role = PartRole::run;
  int procs = 0;
  bool preempted = false;  //!< suspended at its end (it resumes in a later record)
};
GridResult run_listed(const GridConfig& config, const std::vector<ListedJob>& jobs,
                      std::vector<CopyRecord>* copies = nullptr);

}  // namespace mcb::redundant
