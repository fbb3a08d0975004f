#include "apps/ensflow/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
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

std::string number(double value, const char* unit = "") {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.4g%s", value, unit);
  return buffer;
}

json pair_json(const std::optional<DiagnosticPoint>& p) {
  if (!p) return {{"rmse", nullptr}, {"spread", nullptr}};
  return {{"rmse", p->rmse}, {"spread", p->spread}};
}

json band_json(double value, double low, double high) {
  return {{"value", value}, {"band", {low, high}}, {"pass", value >= low && value <= high}};
}

std::string outside(const std::string& what, double value, double low, double high) {
  return what + " " + number(value) + " is outside [" + number(low) + ", " + number(high) + "]";
}

// Squared errors and spreads summed over the analyses (`later`: forecasts after the first).
struct Sums {
  double f_mse, f_var, a_mse, a_var, later_mse, later_var;
};

// Delivered against claimed error reduction, and spread-skill of forecasts and analyses.
void check_spread(const Sums& t, json& checks,
                  const std::function<void(const std::string&)>& fail) {
  if (t.f_var > 0 && t.f_mse > 0) {
    // Over all analyses the analysis must deliver at least half the share of the forecast
    // variance the ensemble claims to have removed.
    const double claimed = std::max(1 - t.a_var / t.f_var, 0.0);
    const double delivered = 1 - t.a_mse / t.f_mse;
    checks["claimed_reduction"] = claimed;
    checks["delivered_reduction"] = delivered;
    if (!(delivered >= 0.5 * claimed - kNoiseMargin)) {
      fail("the analyses removed " + number(100 * delivered, "%") +
           " of the forecast error variance where the ensemble claims " +
           number(100 * claimed, "%") + " (at least half is required)");
    }
  }
  if (t.later_mse > 0) {
    const double forecast_ratio = std::sqrt(t.later_var / t.later_mse);
    checks["spread_skill_forecast"] = band_json(forecast_ratio, kSpreadSkillLow, kSpreadSkillHigh);
    if (!checks["spread_skill_forecast"]["pass"].get<bool>())
      fail(outside("forecast spread / RMSE", forecast_ratio, kSpreadSkillLow, kSpreadSkillHigh));
  }
  if (t.a_mse > 0) {
    const double analysis_ratio = std::sqrt(t.a_var / t.a_mse);
    checks["spread_skill_analysis"] = band_json(analysis_ratio, kSpreadSkillLow, kSpreadSkillHigh);
    if (!checks["spread_skill_analysis"]["pass"].get<bool>())
      fail(outside("analysis spread / RMSE", analysis_ratio, kSpreadSkillLow, kSpreadSkillHigh));
  }
}

// Innovation chi-square, Desroziers consistency and the rank histogram's outer bins, pooled
// over the analyses.
void check_innovations(const std::vector<InnovationStatistics>& innovations, json& checks,
                       const std::function<void(const std::string&)>& fail) {
  if (innovations.empty()) return;
  double chi = 0, consistency = 0;
  std::vector<long> counts(innovations.front().rank_counts.size(), 0);
  long total = 0;
  for (const auto& s : innovations) {
    chi += s.chi_square;
    consistency += s.error_consistency;
    for (std::size_t b = 0; b < counts.size() && b < s.rank_counts.size(); ++b) {
      counts[b] += s.rank_counts[b];
      total += s.rank_counts[b];
    }
  }
  const double k = static_cast<double>(innovations.size());
  checks["chi_square"] = band_json(chi / k, kChiSquareLow, kChiSquareHigh);
  checks["error_consistency"] = band_json(consistency / k, kConsistencyLow, kConsistencyHigh);
  const double bins = static_cast<double>(counts.size());
  const double outer = total > 0 ? static_cast<double>(counts.front() + counts.back()) /
                                       static_cast<double>(total) / (2 / bins)
                                 : 0.0;
  checks["rank_outer_ratio"] = band_json(outer, kOuterBinLow, kOuterBinHigh);
  checks["rank_histogram"] = counts;
  if (!checks["chi_square"]["pass"].get<bool>())
    fail(outside("innovation chi-square", chi / k, kChiSquareLow, kChiSquareHigh));
  if (!checks["error_consistency"]["pass"].get<bool>())
    fail(outside("observation-error consistency (Desroziers)", consistency / k, kConsistencyLow,
                 kConsistencyHigh));
  if (!checks["rank_outer_ratio"]["pass"].get<bool>())
    fail(outside("rank histogram outer-bin share / 2/(M+1)", outer, kOuterBinLow, kOuterBinHigh));
}

}  // namespace

Verdict judge(const std::vector<DiagnosticPoint>& points,
              const std::vector<InnovationStatistics>& innovations, bool free_run,
              const ReferenceCheck& reference, const JudgedSpan& span) {
  Verdict v;
  std::string reason;
  const bool stopped = span.stopped_at_day > 0;
  auto fail = [&](const std::string& why) {
    if (reason.empty()) reason = why;
  };
  for (const auto& p : points) {
    if (!std::isfinite(p.rmse) || !std::isfinite(p.spread)) {
      fail("non-finite error or spread on day " + std::to_string(p.day) +
           " (the model or the filter diverged)");
    }
  }
  // The algebra of the first analysis, unless the run diverged (the reason above says so).
  if (reference.checked && !reference.pass) {
    fail("the first analysis differs from the reference analysis by " +
         number(reference.max_difference) + " (largest increment " +
         number(reference.increment_scale) + "; round-off allows " + number(reference.tolerance) +
         ")");
  }

  json analyses = json::array();
  double f_mse = 0, f_var = 0, a_mse = 0, a_var = 0, later_mse = 0, later_var = 0;
  for (const auto& a : points) {
    if (a.kind != "analysis") continue;
    const auto forecast = find(points, "forecast", a.day);
    const auto free = find(points, "free", a.day);
    if (!forecast) {
      fail("no forecast error recorded for the analysis on day " + std::to_string(a.day));
      continue;
    }
    f_mse += forecast->rmse * forecast->rmse;
    f_var += forecast->spread * forecast->spread;
    // The first forecast's spread-skill only says how the one truth draw compares with the
    // initial ensemble's distribution; the filter shapes the forecasts after it.
    if (!analyses.empty()) {
      later_mse += forecast->rmse * forecast->rmse;
      later_var += forecast->spread * forecast->spread;
    }
    a_mse += a.rmse * a.rmse;
    a_var += a.spread * a.spread;
    // Not worse than the forecast beyond the noise margin.
    const bool improved = a.rmse * a.rmse <= forecast->rmse * forecast->rmse * (1 + kNoiseMargin);
    if (!improved) {
      fail("analysis error " + number(a.rmse, " m") + " on day " + std::to_string(a.day) +
           " exceeds the forecast error " + number(forecast->rmse, " m") +
           " by more than the noise margin");
    }
    analyses.push_back({{"day", a.day},
                        {"forecast", pair_json(forecast)},
                        {"analysis", pair_json(a)},
                        {"free", pair_json(free)},
                        {"improved", improved}});
  }
  // A run stopped before its first analysis day has none due yet.
  if (analyses.empty() && (!stopped || span.stopped_at_day >= span.first_analysis_day))
    fail("no analysis was made");

  json checks = json::object();
  // Too few members or observations to judge the ensemble statistically: sampling noise alone
  // would fail a correct filter. The record says so.
  long sample = 0;
  for (const auto& s : innovations) sample += s.observations;
  const int members =
      innovations.empty() ? 0 : static_cast<int>(innovations.front().rank_counts.size()) - 1;
  const bool judged = members >= kStatisticsMembers && sample >= kStatisticsObservations;
  checks["statistics_judged"] = judged;
  checks["reference_analysis"] = reference.to_json();
  if (judged) {
    check_spread(Sums{f_mse, f_var, a_mse, a_var, later_mse, later_var}, checks, fail);
    check_innovations(innovations, checks, fail);
  }

  const DiagnosticPoint* final_point = nullptr;
  for (const auto& p : points) {
    if (p.kind == "final") final_point = &p;
  }
  std::optional<DiagnosticPoint> free_final;
  // The final error and the free run belong to the last day, which a stopped run never saw.
  if (stopped) {
    free_run = false;
  } else if (final_point == nullptr) {
    fail("no final error recorded");
  } else if (free_run) {
    free_final = find(points, "free", final_point->day);
    if (!free_final) {
      fail("no free-run error recorded for day " + std::to_string(final_point->day));
    } else if (!(final_point->rmse * final_point->rmse <=
                 free_final->rmse * free_final->rmse * (1 + kNoiseMargin))) {
      fail("final error " + number(final_point->rmse, " m") + " is not below the free run's " +
           number(free_final->rmse, " m"));
    }
  }

  std::optional<DiagnosticPoint> initial;
  for (const auto& p : points) {
    if (p.kind == "initial") initial = p;
  }
  v.valid = reason.empty();
  v.reason = stopped && !v.valid ? "up to day " + std::to_string(span.stopped_at_day) + " (" +
                                       span.stopped_by + "): " + reason
                                 : reason;
  v.details = {{"valid", v.valid},
               {"quantity", "sea-surface height, m"},
               {"initial", pair_json(initial)},
               {"analyses", analyses},
               {"checks", checks},
               {"final", final_point ? pair_json(*final_point) : pair_json(std::nullopt)},
               {"free_run", free_run},
               {"free_final", pair_json(free_final)}};
  if (stopped) v.details["stopped_at_day"] = span.stopped_at_day;
  return v;
}

}  // namespace mcb::ensflow
