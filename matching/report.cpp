#include "matching/report.hpp"

namespace mcb::matching {

nlohmann::json to_json(const MatchResult& r) {
  nlohmann::json j{{"matcher", to_string(r.matcher)},
                   {"status", to_string(r.status)},
                   {"verdict", verdict(r)},
                   {"hit_time_limit", r.hit_time_limit},
                   {"seconds", r.seconds},
                   {"cpu_seconds", r.cpu_seconds},
                   {"variables", r.variables},
                   {"constraints", r.constraints}};
  if (!r.found()) return j;
  j["valid"] = r.valid;
  j["check"] = r.check;
  j["objective"] = r.objective;
  j["sp"] = r.prediction.processing_slowdown;
  j["sc"] = r.prediction.communication_slowdown;
  j["time"] = r.prediction.time;
  j["saturated"] = r.prediction.saturated;
  j["nodes"] = r.assignment.nodes;
  return j;
}

std::string verdict(const MatchResult& r) {
  if (r.found()) return r.valid ? "VALID" : "INVALID";
  return r.status == MipStatus::kInfeasible ? "INFEASIBLE" : "TIME-LIMIT";
}

}  // namespace mcb::matching
