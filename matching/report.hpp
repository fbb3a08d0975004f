#pragma once
/// @file
/// @brief A match as JSON (mcb-match's output), and the row of the study's matches.csv.

#include "matching/matcher.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::matching {

/// @brief {"matcher", "status", "hit_time_limit", "valid", "check", "seconds", "cpu_seconds",
/// "variables", "constraints", "objective", "sp", "sc", "time", "saturated", "nodes": [[k...] per
/// cluster]}.
nlohmann::json to_json(const MatchResult& r);

/// @brief "VALID", "INVALID", "INFEASIBLE" or "TIME-LIMIT" (no solution before the limit).
std::string verdict(const MatchResult& r);

}  // namespace mcb::matching
