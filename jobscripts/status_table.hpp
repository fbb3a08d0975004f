#pragma once
/// @file
/// @brief `mcb-campaign status` as a batch user reads it: one row per run (id, state, batch job
/// id, node list, elapsed, verdict), as a table or as JSON with the same fields.

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief Where one run stands.
struct StatusRow {
  std::string id;
  std::string state;   //!< recorded, PENDING/RUNNING/... (the queue's word), ended, not submitted
  std::string job_id;  //!< batch job id ("" when none is known)
  std::string nodes;   //!< hosts it ran on, comma-separated ("" when not known)
  std::optional<double> elapsed;  //!< seconds (the record's wall time, or the launcher's)
  std::string verdict;            //!< valid, invalid, failed, or "" without a record
};

/// @brief The whole status: the rows and where the queue states came from.
struct StatusReport {
  std::string campaign;
  std::string executor;
  std::string queue_source;  //!< "squeue", "qstat", "records" (local), or why it fell back
  std::vector<StatusRow> runs;
};

/// @brief The table, one aligned line per run under a header; "-" for what is not known.
void print_status_table(std::ostream& out, const StatusReport& report);
/// @brief The same as JSON: {"campaign", "executor", "queue_source", "runs": [{"id", "state",
/// "batch_job_id", "nodes", "elapsed_s", "verdict"}]} (null for what is not known).
nlohmann::json status_json(const StatusReport& report);

}  // namespace mcb::campaign
