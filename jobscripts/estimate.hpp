#pragma once
/// @file
/// @brief The campaign's time estimated from earlier records of the same configurations, for
/// `dry-run`. A planned run and a record are the same configuration when the record is a valid
/// run of the same application, on as many processes (config.total_size) over as many clusters
/// (config.components), given the same options: the option/value pairs of its
/// env.command_line, in any order, without those that only name or place the run and do not
/// change its work (run_options_ignored()). The estimate of a run is the mean result.wall_time
/// of its earlier records.

#include "jobscripts/expansion.hpp"
#include "jobscripts/spec.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief Options that name the run (--run-id, --campaign, --repetition), say where its record
/// goes (--output), seed it (--seed: repetitions differ in seed) or label its ranks' clusters
/// (--cluster-map: the count of clusters is compared instead).
const std::set<std::string>& run_options_ignored();

/// @brief A run's options as compared: (option, value) pairs sorted, without the ignored ones.
/// @p words are options as a command line has them ("--grid", "32" or "--grid=32").
std::vector<std::pair<std::string, std::string>> compared_options(
    const std::vector<std::string>& words);

/// @brief One planned run's estimate.
struct RunEstimate {
  std::string id;
  std::optional<double> seconds;  //!< mean wall time of the earlier records; none without
  std::size_t records = 0;        //!< earlier records it comes from
};

/// @brief The whole estimate.
struct CampaignEstimate {
  std::vector<RunEstimate> runs;     //!< plan order
  std::vector<std::string> sources;  //!< files read
  std::size_t valid_records = 0;     //!< valid records read (any configuration)
  double total = 0;                  //!< sum of the runs' estimates
  std::size_t without = 0;           //!< runs without an earlier record
  double timeout = 0;                //!< spec timeout, the most a run without a record takes
};

/// @brief Estimates @p plan from the records in @p sources: each a JSON Lines file or a folder
/// (every *.jsonl directly inside; a campaign folder's records.jsonl). Missing sources are
/// skipped; a torn last line is ignored with its notice on @p notices. A record seen twice
/// (same run_id) counts once. @throws mcb::UsageError "<file>:<line>: ..." for a line that is
/// not a record.
CampaignEstimate estimate_campaign(const CampaignSpec& spec, const Plan& plan,
                                   const std::vector<std::string>& sources, std::ostream* notices);

/// @brief "est. 12.3 s (3 records)" or "no earlier record".
std::string estimate_text(const RunEstimate& e);
/// @brief The closing lines: the total, the runs without a record and where records came from.
void print_estimate_total(std::ostream& out, const CampaignEstimate& e);
/// @brief {"total_s", "runs_with_estimate", "runs_without": [ids], "sources", "runs": [{"id",
/// "estimate_s", "records"}]}
nlohmann::json estimate_json(const CampaignEstimate& e);

}  // namespace mcb::campaign
