#pragma once
/// @file
/// @brief The files a study writes: summary.json for one point (with jobs.csv), or sweep.csv
/// and sweep.json for many, with the saturation point of each curve located.

#include "simulator/study.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::sim {

/// Columns of sweep.csv, in order.
extern const std::vector<std::string> kSweepCsvColumns;

/// @brief Combines the replications of one point: means over replications, intervals from
/// the replications (or the single run's batch means), saturated if any replication was.
nlohmann::json aggregate(const std::vector<nlohmann::json>& runs);

/// @brief summary.json for a one-point study; @p results holds every replication in order.
nlohmann::json summary_document(const Study& study, const std::vector<nlohmann::json>& results,
                                const nlohmann::json& env);

/// @brief sweep.csv text and sweep.json document for a study; @p results holds every item in
/// order.
std::string sweep_csv(const Study& study, const std::vector<nlohmann::json>& results);
nlohmann::json sweep_document(const Study& study, const std::vector<nlohmann::json>& results,
                              const nlohmann::json& env);

}  // namespace mcb::sim
