#pragma once
/// @file
/// @brief The built-in check of every run: the first analysis against a frozen reference, then
/// the experiment against its truth and the filter's own claims about its errors. VALID when
/// all hold:
///  - the first analysis agrees with the reference analysis (reference_analysis.hpp) to
///    round-off: the filter computes what the textbook says, whatever sampling noise does;
///  - every error and spread is finite (the model and the filter did not diverge);
///  - spread-skill: sqrt(sum spread^2 / sum RMSE^2) over the analyses, and over the forecasts
///    after the first analysis (the first only compares the one truth draw with the initial
///    ensemble's distribution), lies in [kSpreadSkillLow, kSpreadSkillHigh]: the ensemble's
///    spread says how large its error is;
///  - innovation chi-square (innovations.hpp), averaged over the analyses, lies in
///    [kChiSquareLow, kChiSquareHigh];
///  - observation-error consistency (Desroziers), averaged over the analyses, lies in
///    [kConsistencyLow, kConsistencyHigh]: the analysis drew as close to the observations as R
///    and the forecast spread say it should;
///  - rank histogram: the share of observations outside the ensemble (the two outer bins),
///    over the analyses, divided by the 2 / (M + 1) of a reliable ensemble, lies in
///    [kOuterBinLow, kOuterBinHigh]; the band is lopsided because one truth draw that happens
///    to be small makes a dome (few outliers) without any fault of the filter, while a
///    collapsed ensemble makes a U (many);
///  - analysis beats forecast: at every analysis the analysis MSE is at most the forecast MSE
///    times (1 + kNoiseMargin), and over all analyses the analysis removes at least half the
///    share c = 1 - sum spread_a^2 / sum spread_f^2 of the forecast variance the ensemble
///    claims to have removed (less the noise margin): an analysis with uninformative
///    observations (c near 0) passes by changing little and fails by getting worse;
///  - the assimilating ensemble ends with an MSE below the free run's (same initial ensemble, no
///    analyses) plus the same noise margin, when the free run was made.
/// Errors are RMSE of the ensemble-mean sea-surface height over the basin, with the ensemble
/// spread. The statistical bands are wide enough for the sampling noise of two analyses of 200
/// correlated observations: they judge the experiment's consistency; whether the algebra is
/// right is the reference's to judge.
///
/// A run stopped at a checkpoint (--stop-at-day D) is judged on days 1 to D: the same checks
/// over the analyses made so far (the restart file carries every point, innovation and the
/// reference comparison since day 0, so a segment judges the run up to its day, not its own
/// days alone), without the final error and the free run, which only the last day has; no
/// analysis is required before the first analysis day. The run that reaches the last day is
/// judged by every check, so its verdict is the whole run's.

#include "apps/ensflow/diagnostics.hpp"
#include "apps/ensflow/innovations.hpp"
#include "apps/ensflow/reference_analysis.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::ensflow {

/// Correct filters at the defaults end at spread / RMSE 0.78-1.11 for M = 12-60 (README).
inline constexpr double kSpreadSkillLow = 0.6;
inline constexpr double kSpreadSkillHigh = 2.0;
inline constexpr double kChiSquareLow = 0.33;
inline constexpr double kChiSquareHigh = 3.0;
inline constexpr double kConsistencyLow = 0.5;
inline constexpr double kConsistencyHigh = 2.0;
inline constexpr double kOuterBinLow = 0.1;
inline constexpr double kOuterBinHigh = 3.0;
inline constexpr double kNoiseMargin = 0.05;
/// The statistical checks (spread-skill, delivered against claimed reduction, chi-square,
/// Desroziers, rank histogram) need at least this many members and observations over all
/// analyses; smaller runs are judged on the other checks alone (`checks.statistics_judged`).
inline constexpr int kStatisticsMembers = 10;
inline constexpr long kStatisticsObservations = 50;

struct Verdict {
  bool valid = false;
  std::string reason;      //!< why not valid (empty when valid)
  nlohmann::json details;  //!< the values checked, for the record's verdict block
};

/// @brief How far the judged run went: to its last day, or stopped at a checkpoint.
struct JudgedSpan {
  int stopped_at_day = 0;      //!< --stop-at-day D; 0 when the run reached its last day
  int first_analysis_day = 0;  //!< no analysis is due before it (a stopped run)
  std::string stopped_by = "--stop-at-day";  //!< the option that stopped it, for the reason
};

/// @brief Judges the points and innovation statistics of a run and its first analysis against
/// the reference analysis (see the file comment). @p free_run says whether the free run was
/// made (its points are then required); @p span whether the run stopped at a checkpoint.
Verdict judge(const std::vector<DiagnosticPoint>& points,
              const std::vector<InnovationStatistics>& innovations, bool free_run,
              const ReferenceCheck& reference, const JudgedSpan& span = {});

}  // namespace mcb::ensflow
