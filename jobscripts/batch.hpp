#pragma once
/// @file
/// @brief What the Slurm and PBS executors share: jobscripts for groups of runs, submission
/// that skips what is recorded or queued, and collection of the records runs wrote into the
/// campaign folder, with a failure record for every run whose job ended without one.

#include "jobscripts/campaign_folder.hpp"
#include "jobscripts/expansion.hpp"
#include "jobscripts/spec.hpp"

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief Runs that go into one jobscript: same process count and clusters.
struct JobBatch {
  std::string name;  //!< file stem and job name suffix, e.g. "3-r1"
  std::vector<const PlannedRun*> runs;
  int ranks = 0;
  int clusters = 1;
};

/// @brief A job as the batch system lists it.
struct JobState {
  std::string state;              //!< the system's word: PENDING, RUNNING, Q, R, COMPLETED, ...
  std::string nodes;              //!< its hosts as the system writes them ("" while queued)
  std::optional<double> elapsed;  //!< seconds it has run (none when not known)
  bool active = true;             //!< queued or running (accounting lists ended jobs too)
};

/// @brief A batch system as the executors use it. Every jobscript is the system's template with
/// its directives, followed by the run section all systems share (jobscripts/templates/).
class BatchSystem {
 public:
  BatchSystem(const CampaignSpec& spec, const Plan& plan, const CampaignFolder& folder)
      : spec_(spec), plan_(plan), folder_(folder) {}
  virtual ~BatchSystem() = default;
  virtual std::string name() const = 0;                   //!< "slurm", "pbs"
  virtual std::string script_extension() const = 0;       //!< ".sbatch", ".pbs"
  int group_size() const { return spec_.batch().group; }  //!< runs per jobscript
  /// @brief The jobscript of @p batch. @throws mcb::UsageError when the settings cannot
  /// express it.
  std::string render(const JobBatch& batch) const;
  /// @brief Submits @p script from the campaign folder; returns the job id.
  /// @throws std::runtime_error with the submitter's message.
  virtual std::string submit(const std::string& script) const = 0;
  /// @brief Job id -> state of the jobs queued or running (squeue, qstat). @throws
  /// std::runtime_error when the queue cannot be read (then nothing may be declared ended).
  virtual std::map<std::string, JobState> active_jobs() const = 0;
  /// @brief Job id -> state of @p ids as the system's accounting knows them (sacct), queued,
  /// running or ended; for status when the queue cannot be read. @throws std::runtime_error
  /// when the accounting cannot be read or the system has none.
  virtual std::map<std::string, JobState> accounted_jobs(const std::vector<std::string>& ids) const;
  /// @brief How an ended job ended, as the batch system still knows it ("" when it forgot).
  virtual std::string final_state(const std::string& job_id) const = 0;

 protected:
  virtual const std::string& jobscript_template() const = 0;
  /// @brief The #SBATCH / #PBS lines of @p batch, each ending in a newline.
  /// @throws mcb::UsageError when the settings cannot express it.
  virtual std::string directives(const JobBatch& batch) const = 0;
  /// @brief The lines that start @p run of @p batch, ending in a newline.
  virtual std::string run_lines(const JobBatch& batch, const PlannedRun& run) const = 0;

  /// @brief The application's words for @p run: binary, its options, the campaign's options
  /// and @p extra (e.g. the cluster map), its record in runs/<key>.jsonl.
  std::vector<std::string> app_command(const PlannedRun& run,
                                       const std::vector<std::string>& extra) const;
  /// @brief "mcb_run KEY LIMIT LINGER TASKS" with the spec's limit and linger; TASKS is the
  /// number of tasks that report their exit code (0 when the launcher's own end is to be
  /// trusted).
  std::string run_prefix(const PlannedRun& run, int tasks) const;
  /// @brief Seconds a jobscript of @p batch may need: its runs' timeouts plus margins.
  double job_seconds(const JobBatch& batch) const;
  /// @brief What @p argv (sbatch, squeue, qsub, qstat) printed on stdout.
  /// @throws std::runtime_error "<failure>: <why>" when it does not answer in 120 s or fails
  /// (with the first line it wrote on stderr), "cannot run ..." when it cannot start.
  static std::string queue_command(const std::vector<std::string>& argv, const std::string& cwd,
                                   const std::string& failure);
  /// @brief The first non-empty line of @p text, without blanks at either end.
  static std::string first_line(const std::string& text);

  const CampaignSpec& spec_;
  const Plan& plan_;
  const CampaignFolder& folder_;
};

std::unique_ptr<BatchSystem> make_slurm_system(const CampaignSpec& spec, const Plan& plan,
                                               const CampaignFolder& folder);
std::unique_ptr<BatchSystem> make_pbs_system(const CampaignSpec& spec, const Plan& plan,
                                             const CampaignFolder& folder);
std::unique_ptr<BatchSystem> make_batch_system(const CampaignSpec& spec, const Plan& plan,
                                               const CampaignFolder& folder);

/// @brief Renders every jobscript of @p plan without writing anything.
/// @throws UsageError naming the spec line for a spec the batch system cannot run (the same
/// check `scripts` and `run` make, so that `dry-run` refuses what they would refuse).
void check_jobscripts(const CampaignSpec& spec, const Plan& plan);

struct BatchOptions {
  bool retry_failed = false;
  bool submit = true;     //!< false: write the jobscripts only
  bool wait = false;      //!< collect: until no job of the campaign is queued
  double wait_limit = 0;  //!< seconds; 0: no limit
  double poll_seconds = 2;
};

/// @brief Collects, then writes and (unless options.submit is false) submits jobscripts for
/// every run with neither a record nor a job in the queue. Returns 0, or 1 when a submission
/// failed (the runs not submitted stay so).
int submit_campaign(const CampaignSpec& spec, const Plan& plan, const BatchOptions& options,
                    std::ostream& out);

/// @brief Merges finished runs' records into records.jsonl, records failures of runs whose job
/// ended without a record, prints the summary. With options.wait, repeats until no job of the
/// campaign is queued. Returns 0 when every run is valid, 1 otherwise (or on a wait limit).
int collect_campaign(const CampaignSpec& spec, const Plan& plan, const BatchOptions& options,
                     std::ostream& out);

/// @brief Prints where each run stands: recorded, queued or running, ended and not collected,
/// not submitted; one row per run (status_table.hpp), as a table or, with @p as_json, as JSON.
/// When the queue cannot be read (squeue or qstat unreachable), the states come from the
/// accounting (sacct), else from the records and the jobs list, and the output says which;
/// that is not an error.
int batch_status(const CampaignSpec& spec, const Plan& plan, std::ostream& out, bool as_json);

}  // namespace mcb::campaign
