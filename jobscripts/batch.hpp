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

/// @brief A batch system as the executors use it.
class BatchSystem {
 public:
  virtual ~BatchSystem() = default;
  virtual std::string name() const = 0;              //!< "slurm", "pbs"
  virtual std::string script_extension() const = 0;  //!< ".sbatch", ".pbs"
  virtual int group_size() const = 0;                //!< runs per jobscript
  /// @brief The jobscript of @p batch. @throws mcb::UsageError when the settings cannot
  /// express it.
  virtual std::string render(const JobBatch& batch) const = 0;
  /// @brief Submits @p script from the campaign folder; returns the job id.
  /// @throws std::runtime_error with the submitter's message.
  virtual std::string submit(const std::string& script) const = 0;
  /// @brief Job id -> state of the jobs queued or running. @throws std::runtime_error when the
  /// queue cannot be read (then nothing may be declared ended).
  virtual std::map<std::string, std::string> active_jobs() const = 0;
  /// @brief How an ended job ended, as the batch system still knows it ("" when it forgot).
  virtual std::string final_state(const std::string& job_id) const = 0;
};

std::unique_ptr<BatchSystem> make_slurm_system(const CampaignSpec& spec, const Plan& plan,
                                               const CampaignFolder& folder);
std::unique_ptr<BatchSystem> make_pbs_system(const CampaignSpec& spec, const Plan& plan,
                                             const CampaignFolder& folder);
std::unique_ptr<BatchSystem> make_batch_system(const CampaignSpec& spec, const Plan& plan,
                                               const CampaignFolder& folder);

/// @brief The application's words for one run in a jobscript: binary, its options, the
/// campaign's options and @p extra (e.g. the cluster map), its record in runs/<key>.jsonl.
std::vector<std::string> batch_app_command(const CampaignSpec& spec, const Plan& plan,
                                           const PlannedRun& run, const CampaignFolder& folder,
                                           const std::vector<std::string>& extra);

/// @brief "mcb_run KEY LIMIT LINGER TASKS" with the limit from the spec; TASKS is the number of
/// tasks that report their exit code (0 when the launcher's own end is to be trusted).
std::string mcb_run_prefix(const CampaignSpec& spec, const PlannedRun& run, double linger,
                           int tasks);

/// @brief Seconds a jobscript of @p runs runs may need: their timeouts plus margins.
double batch_seconds(const CampaignSpec& spec, std::size_t runs, double linger);

/// @brief Exported variables for a jobscript ("export NAME='value'" lines).
std::string export_lines(const CampaignSpec& spec);
/// @brief ". 'setup-file'" or a comment.
std::string setup_line(const std::string& setup);

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
/// not submitted.
int batch_status(const CampaignSpec& spec, const Plan& plan, std::ostream& out);

}  // namespace mcb::campaign
