// The verdict of a run stopped at a checkpoint (--stop-at-day): the checks over the days it
// reached, never the final error or the free run; an analysis required once its day has come;
// the reason says how far the judged run went. Hand-made points; no model runs.
#include <gtest/gtest.h>

#include "apps/ensflow/verdict.hpp"

namespace mcb::ensflow {
namespace {

std::vector<DiagnosticPoint> points_to(int last_day, bool final_point, double analysis_rmse) {
  std::vector<DiagnosticPoint> p = {{"initial", 0, 0.10, 0.10}};
  for (int day = 2; day <= last_day; day += 2) {
    p.push_back({"forecast", day, 0.05, 0.05});
    p.push_back({"analysis", day, analysis_rmse, 0.03});
  }
  if (final_point) p.push_back({"final", last_day, analysis_rmse, 0.03});
  return p;
}

TEST(JudgedSpan, AStoppedRunIsJudgedWithoutTheLastDaysChecks) {
  // Stopped at day 4 of a run with analyses every 2 days: no final point, no free run.
  const Verdict v = judge(points_to(4, false, 0.03), {}, true, {}, JudgedSpan{4, 2});
  EXPECT_TRUE(v.valid) << v.reason;
  EXPECT_EQ(v.details["stopped_at_day"], 4);
  EXPECT_EQ(v.details["analyses"].size(), 2u);
  EXPECT_FALSE(v.details["free_run"].get<bool>());
}

TEST(JudgedSpan, ARunThatReachedItsLastDayNeedsItsFinalError) {
  const Verdict v = judge(points_to(4, false, 0.03), {}, false, {});
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.reason, "no final error recorded");
  EXPECT_FALSE(v.details.contains("stopped_at_day"));
  EXPECT_TRUE(judge(points_to(4, true, 0.03), {}, false, {}).valid);
}

TEST(JudgedSpan, AnAnalysisIsDueOnlyOnceItsDayHasCome) {
  const std::vector<DiagnosticPoint> before = {{"initial", 0, 0.1, 0.1}};
  EXPECT_TRUE(judge(before, {}, false, {}, JudgedSpan{1, 2}).valid);
  const Verdict late = judge(before, {}, false, {}, JudgedSpan{3, 2});
  EXPECT_FALSE(late.valid);
  EXPECT_EQ(late.reason, "up to day 3 (--stop-at-day): no analysis was made");
}

TEST(JudgedSpan, AFailedCheckBeforeTheStopFailsTheSegment) {
  // The analysis ends worse than its forecast: as INVALID stopped as at the end.
  const Verdict v = judge(points_to(4, false, 0.08), {}, false, {}, JudgedSpan{4, 2});
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.reason.rfind("up to day 4 (--stop-at-day): analysis error 0.08 m on day 2", 0), 0u)
      << v.reason;
}

}  // namespace
}  // namespace mcb::ensflow
