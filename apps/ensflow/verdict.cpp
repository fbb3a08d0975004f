#include "apps/ensflow/verdict.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

namespace mcb::ensflow {
namespace {

using nlohmann::json;

std::optional<DiagnosticPoint> find(const std::vector<DiagnosticPoint>& points,
                                    const std::string& kind, int day) {
  for (const auto& p : points) {
    if (p.kind == kind && p.day == day) return p;
  }
  return std::nullopt;
}

std::string metres(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g m", value);
  return buffer;
}

json pair_json(const std::optional<DiagnosticPoint>& p) {
  if (!p) return {{"rmse", nullptr}, {"spread", nullptr}};
  return {{"rmse", p->rmse}, {"spread", p->spread}};
}

}  // namespace

Verdict judge(const std::vector<DiagnosticPoint>& points, bool free_run) {
  Verdict v;
  std::string reason;
  auto fail = [&](const std::string& why) {
    if (reason.empty()) reason = why;
  };
  for (const auto& p : points) {
    if (!std::isfinite(p.rmse) || !std::isfinite(p.spread)) {
      fail("non-finite error or spread on day " + std::to_string(p.day) +
           " (the model or the filter diverged)");
    }
  }

  json analyses = json::array();
  for (const auto& a : points) {
    if (a.kind != "analysis") continue;
    const auto forecast = find(points, "forecast", a.day);
    const auto free = find(points, "free", a.day);
    if (!forecast) {
      fail("no forecast error recorded for the analysis on day " + std::to_string(a.day));
      continue;
    }
    const bool improved = a.rmse < forecast->rmse;
    if (!improved) {
      fail("analysis error " + metres(a.rmse) + " is not below the forecast error " +
           metres(forecast->rmse) + " on day " + std::to_string(a.day));
    }
    analyses.push_back({{"day", a.day},
                        {"forecast", pair_json(forecast)},
                        {"analysis", pair_json(a)},
                        {"free", pair_json(free)},
                        {"improved", improved}});
  }
  if (analyses.empty()) fail("no analysis was made");

  const DiagnosticPoint* final_point = nullptr;
  for (const auto& p : points) {
    if (p.kind == "final") final_point = &p;
  }
  std::optional<DiagnosticPoint> free_final;
  if (final_point == nullptr) {
    fail("no final error recorded");
  } else if (free_run) {
    free_final = find(points, "free", final_point->day);
    if (!free_final) {
      fail("no free-run error recorded for day " + std::to_string(final_point->day));
    } else if (!(final_point->rmse < free_final->rmse)) {
      fail("final error " + metres(final_point->rmse) + " is not below the free run's " +
           metres(free_final->rmse));
    }
  }

  std::optional<DiagnosticPoint> initial;
  for (const auto& p : points) {
    if (p.kind == "initial") initial = p;
  }
  v.valid = reason.empty();
  v.reason = reason;
  v.details = {{"valid", v.valid},
               {"quantity", "sea-surface height, m"},
               {"initial", pair_json(initial)},
               {"analyses", analyses},
               {"final", final_point ? pair_json(*final_point) : pair_json(std::nullopt)},
               {"free_run", free_run},
               {"free_final", pair_json(free_final)}};
  return v;
}

}  // namespace mcb::ensflow
