#pragma once
/// @file
/// @brief The campaign's records as the executors see them: which runs have a finished record
/// (valid, invalid or failed), the failure records the executors write for runs that ended
/// without one, and the tally printed at the end.

#include "common/jsonl.hpp"
#include "jobscripts/campaign_folder.hpp"
#include "jobscripts/expansion.hpp"
#include "jobscripts/spec.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief What a record says about its run.
struct RecordEntry {
  std::string status;  //!< valid, invalid or failed
  std::string reason;
  std::string batch_job_id;         //!< env.batch_job_id ("" when not run in a batch job)
  std::string nodes;                //!< env.hosts, distinct, comma-separated
  std::optional<double> wall_time;  //!< result.wall_time (s)
};

/// @brief Run id -> status of the records in a JSON Lines file.
class RecordBook {
 public:
  /// @brief Reads @p path (a missing file is empty) with the suite's JSON Lines reader: a torn
  /// last line (no newline) is ignored, with its one-line notice written to @p notices when
  /// given (common/jsonl.hpp); each record's header is read as an mcb::RunRecord.
  /// @throws mcb::UsageError "<path>:<line>: ..." for a whole line that is not a record.
  static RecordBook read(const std::string& path, std::ostream* notices = nullptr);
  /// @brief Reads the whole lines appended to @p path since the last read (all of it again when
  /// the file is now shorter). A torn tail cut off by the next append is thereby never half-read.
  void read_more(const std::string& path);

  const RecordEntry* find(const std::string& run_id) const;
  std::size_t size() const { return entries_.size(); }

 private:
  jsonl::Contents scan(const std::string& path, jsonl::From from);
  std::map<std::string, RecordEntry> entries_;
  jsonl::From consumed_;  //!< where the whole lines read so far end
};

/// @brief The first whole record line in @p path whose run_id is @p run_id ("" if none).
std::string record_line_for(const std::string& path, const std::string& run_id);

/// @brief A record (docs/records.md) for a run that ended without writing one: status
/// "failed", the reason, what the run was given, and how it ended in @p details.
nlohmann::json failure_record(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                              const std::string& reason, const nlohmann::json& details,
                              const std::vector<std::string>& command);

/// @brief The part of a run's log that says why it failed: the application's own message
/// ("mcb-poisson: ..."), else the launcher's note on a crashed rank, else the last line.
std::string log_excerpt(const std::string& log_path, const std::string& program);

/// @brief Counts of the plan's runs by record status.
struct Tally {
  std::size_t valid = 0, invalid = 0, failed = 0, missing = 0;
  std::vector<std::pair<std::string, RecordEntry>> problems;  //!< invalid and failed, plan order
};
Tally tally(const Plan& plan, const RecordBook& book);

/// @brief "campaign X: 12 runs: 10 valid, 1 invalid, 1 failed, 0 to run" and the failures.
void print_summary(std::ostream& out, const CampaignSpec& spec, const Tally& t,
                   const CampaignFolder& folder);

/// @brief Moves the plan's "failed" records out of records.jsonl into failed-attempts.log, so
/// those runs run again. Returns the run ids moved.
std::vector<std::string> drop_failed_records(const Plan& plan, const CampaignFolder& folder);

}  // namespace mcb::campaign
