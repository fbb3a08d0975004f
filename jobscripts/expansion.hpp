#pragma once
/// @file
/// @brief A spec expanded into its runs: every combination of the swept option values (the
/// configurations, numbered in a fixed order so ids stay stable), each checked by the
/// application itself (jobscripts/app_check.hpp) and against the executor, times the repetitions.

#include "jobscripts/app_check.hpp"
#include "jobscripts/spec.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief One combination of option values.
struct Configuration {
  int index = 0;  //!< 1-based position in the full cross product (invalid ones keep theirs)
  std::vector<std::pair<std::string, std::string>> values;  //!< key, value; axis order
  int ranks = 0;
  int clusters = 1;
  std::vector<std::string> app_args;  //!< the application's options for this configuration
  std::string invalid;                //!< why it cannot run; "" when it can

  /// @brief "grid=32 procs=2x2 counters=''" for messages: the values, quoted where needed.
  std::string describe() const;
};

/// @brief One run: a valid configuration and a repetition.
struct PlannedRun {
  std::size_t configuration = 0;  //!< position in Plan::configurations
  int repetition = 1;
  std::string id;   //!< "<campaign>-<index>-r<repetition>", the record's run_id
  std::string key;  //!< "<index>-r<repetition>", names the run's files
};

/// @brief The whole expansion.
struct Plan {
  std::vector<Configuration> configurations;  //!< all, valid or not, in index order
  std::vector<PlannedRun> runs;               //!< valid ones, repetition by repetition

  const Configuration& of(const PlannedRun& run) const { return configurations[run.configuration]; }
  std::size_t invalid_count() const;
  /// @brief The plan as JSON (configurations with values, args, ranks, clusters, invalid; runs).
  nlohmann::json to_json(const CampaignSpec& spec) const;
};

/// @brief Expands @p spec, asking @p check about each combination. A combination the
/// application cannot run is invalid (skipped or refused per on-invalid); a value it refuses on
/// its own refuses the spec. @throws mcb::UsageError "<spec>:<line>: <key>: ..." for reserved
/// keys and values the application refuses.
Plan expand(const CampaignSpec& spec, const Checker& check);

/// @brief With on-invalid = refuse and invalid combinations, the one-line refusal. "" otherwise.
std::string refusal(const CampaignSpec& spec, const Plan& plan);

}  // namespace mcb::campaign
