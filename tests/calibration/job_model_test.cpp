// Seed 002's job model fitted to made-up runs whose times follow eq. 1 exactly: the fit must
// give back T^p, T^c and PNBW, and SP and SC of every run.
#include "calibration/job_model.hpp"
#include "common/errors.hpp"
#include "common/node_load.hpp"
#include "tests/calibration/record_builder.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mcb::calib {
namespace {

using nlohmann::json;

constexpr double kTp = 2.0;
constexpr double kTc = 1.0;
constexpr double kPnbw = 3.0;  // MB/s per node

// A run of 4 ranks on @p clusters (2 + 2 when 2) under a CPU load of @p cpu percent over a link
// of @p bandwidth MB/s, its wall time eq. 1's: SP = 1 / (1 - cpu), SC = max(1, PNBW x 4/3 / B).
json run(const std::string& id, int clusters, int cpu, double bandwidth) {
  const double sp = 1.0 / (1.0 - cpu / 100.0);
  const double sc = clusters == 1 ? 1.0 : std::max(1.0, kPnbw * (2.0 * 2.0 / 3.0) / bandwidth);
  json wan =
      clusters == 1
          ? json(nullptr)
          : json{{"latency", 0.001},
                 {"bandwidth", bandwidth},
                 {"links",
                  {{{"clusters", {"0", "1"}}, {"latency", 0.001}, {"bandwidth", bandwidth}}}}};
  return {{"run_id", id},
          {"app", "synth"},
          {"status", "valid"},
          {"config",
           {{"problem", "nearest-m65536"},
            {"total_size", 4},
            {"iterations", 10},
            {"seed", id.size()},  // seeds differ between repetitions; the fit pools them
            {"cluster_map", clusters == 1 ? json{0, 0, 0, 0} : json{0, 0, 1, 1}},
            {"node_load", cpu == 0 ? "none" : "cpu=" + std::to_string(cpu) + "%"},
            {"wan", wan}}},
          {"result",
           {{"wall_time", kTp * sp + kTc * sc},
            {"compute_time", {{"avg", kTp * 0.75}}},
            {"check_time", {{"avg", kTp * 0.25}}}}}};
}

TEST(JobModel, RecoversTpTcAndPnbwFromRunsThatFollowEquationOne) {
  std::vector<json> docs = {run("a", 1, 0, 0), run("ab", 1, 0, 0), run("c", 1, 25, 0),
                            run("d", 1, 50, 0)};
  for (int cpu : {0, 25, 50}) {
    for (double bw : {1.0, 2.0, 100.0}) docs.push_back(run("x" + std::to_string(cpu), 2, cpu, bw));
  }
  for (std::size_t i = 0; i < docs.size(); ++i) docs[i]["run_id"] = "r" + std::to_string(i);
  const std::vector<Record> records = test::as_records(docs);
  const JobModelFit fit = fit_job_models(test::pointers(records), "where");
  ASSERT_EQ(fit.models.rows.size(), 1u);
  const JobModelRow& m = fit.models.rows.front();
  EXPECT_EQ(m.app, "synth");
  EXPECT_EQ(m.total_size, 4);
  EXPECT_NEAR(m.tp, kTp, 1e-12);
  EXPECT_NEAR(m.tc, kTc, 1e-12);
  EXPECT_NEAR(m.pnbw, kPnbw, 1e-9);
  EXPECT_EQ(m.dedicated_runs, 2);
  EXPECT_EQ(m.fitted_runs, 9);
  EXPECT_NEAR(m.median_abs_relative_error, 0, 1e-9);
  ASSERT_EQ(fit.runs.size(), docs.size());
  for (const ModelRun& r : fit.runs) EXPECT_NEAR(r.relative_error(), 0, 1e-9) << r.run_id;
  EXPECT_NEAR(fit.runs[3].sp, 2.0, 1e-12);  // 50% of the CPU: A = 0.5
  EXPECT_NEAR(fit.runs[4].sc, 4.0, 1e-9);   // 3 MB/s x 4/3 on a 1 MB/s link
  EXPECT_NEAR(fit.runs[5].sc, 2.0, 1e-9);
  EXPECT_NEAR(fit.runs[6].sc, 1.0, 1e-12);  // an unsaturated link does not speed it up
  ASSERT_EQ(fit.classes.size(), 4u);
  EXPECT_EQ(fit.classes[0].link_class, "intra");
  EXPECT_EQ(fit.classes[0].runs, 4u);
  EXPECT_EQ(fit.classes[1].link_class, "1ms/100MB/s");
  EXPECT_EQ(fit.classes[3].link_class, "1ms/1MB/s");
  EXPECT_EQ(fit.classes[3].runs, 3u);
}

TEST(JobModel, TakesTheAvailabilityTheLoadReachedNotTheOneAskedFor) {
  json loaded = run("b", 1, 50, 0);
  NodeLoadAchieved reached;
  reached.host = "node1";
  reached.seconds = 2;
  reached.cpu_threads = 2;
  reached.cpu_seconds = 1;  // a quarter of two cores for two seconds
  loaded["env"] = {
      {"node_load", {{"hosts", {node_load_summary(parse_node_load("cpu=50%"), reached)}}}}};
  const std::vector<Record> records =
      test::as_records({run("a", 1, 0, 0), loaded, run("c", 2, 0, 100.0)});
  const JobModelFit fit = fit_job_models(test::pointers(records), "where");
  ASSERT_EQ(fit.runs.size(), 3u);
  EXPECT_DOUBLE_EQ(fit.runs[1].cpu_share_asked, 0.5);
  EXPECT_DOUBLE_EQ(fit.runs[1].cpu_share, 0.25);
  EXPECT_DOUBLE_EQ(fit.runs[1].sp, 1 / 0.75);
}

TEST(JobModel, FitsPnbwByRelativeLeastSquares) {
  // No point saturates at any PNBW when nothing crosses a link, and none needs T^c.
  EXPECT_EQ(fit_pnbw(1.0, {{2.0, 0.0, 3.0}}), 0.0);
  EXPECT_EQ(fit_pnbw(0.0, {{2.0, 1.0, 5.0}}), 0.0);
  // Runs faster than T^p + T^c: no saturation explains them, so the least PNBW.
  EXPECT_EQ(fit_pnbw(1.0, {{2.0, 1.0, 2.5}}), 0.0);
  // Two runs at crossing 1 (SC = PNBW past 1) measuring 4 and 6 with T^p SP = 2, T^c = 1:
  // PNBW minimises ((2 + p)/4 - 1)^2 + ((2 + p)/6 - 1)^2, so 2 + p = (1/4 + 1/6) / (1/16 + 1/36).
  const double p = fit_pnbw(1.0, {{2.0, 1.0, 4.0}, {2.0, 1.0, 6.0}});
  EXPECT_NEAR(p, (1.0 / 4 + 1.0 / 6) / (1.0 / 16 + 1.0 / 36) - 2, 1e-12);
}

TEST(JobModel, SkipsJobsWithoutADedicatedOrCoAllocatedRun) {
  std::vector<json> docs = {run("a", 1, 25, 0), run("b", 2, 0, 2.0)};
  json other = run("c", 1, 0, 0);
  other["config"]["total_size"] = 8;  // another job, never co-allocated
  other["config"]["cluster_map"] = {0, 0, 0, 0, 0, 0, 0, 0};
  docs.push_back(other);
  const std::vector<Record> records = test::as_records(docs);
  const JobModelFit fit = fit_job_models(test::pointers(records), "where");
  EXPECT_TRUE(fit.models.rows.empty());
  ASSERT_EQ(fit.skipped.size(), 2u);
  EXPECT_EQ(fit.skipped[0].what, "job synth,nearest-m65536,4");
  EXPECT_EQ(fit.skipped[0].reason,
            "no run on one cluster without a load (T^p and T^c are measured there)");
  EXPECT_EQ(fit.skipped[1].reason, "no co-allocated run to fit PNBW to");
}

TEST(JobModel, RefusesRunsOfOneJobThatDifferAndLoadsItCannotRead) {
  json a = run("a", 1, 0, 0);
  json b = run("b", 2, 0, 2.0);
  b["config"]["iterations"] = 20;
  std::vector<Record> records = test::as_records({a, b});
  EXPECT_THROW(fit_job_models(test::pointers(records), "where"), UsageError);
  a["config"]["node_load"] = "cpu=150%";
  records = test::as_records({a});
  try {
    fit_job_models(test::pointers(records), "where");
    FAIL() << "a load past 100% was taken";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("test.jsonl:1: config.node_load 'cpu=150%': ", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace mcb::calib
