// mcb-load's plan and outputs without a batch system: the trace window, the compression of
// arrivals and runtimes, the processors that fit each system, the seeded assignment, the jobs as
// they ran read back through the SWF owner, and the citation of a load summary.
#include "common/errors.hpp"
#include "jobscripts/load_output.hpp"
#include "jobscripts/load_plan.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

namespace {

using namespace mcb::load;
using mcb::sim::SwfRecord;
using mcb::testing::TempDir;

SwfRecord job(std::int64_t id, double submit, double run, long long procs, double req_time = -1) {
  SwfRecord r;
  r.job = id;
  r.submit = submit;
  r.run = run;
  r.procs = r.req_procs = procs;
  r.req_time = req_time;
  r.status = 1;
  return r;
}

std::string write_trace(const TempDir& dir, const std::vector<SwfRecord>& jobs,
                        const std::string& max_procs = "16") {
  std::string text =
      max_procs.empty() ? std::string() : mcb::sim::swf_header({{"MaxProcs", max_procs}});
  for (const SwfRecord& r : jobs) text += mcb::sim::swf_line(r) + "\n";
  std::string path = dir / "t.swf";
  std::ofstream(path) << text;
  return path;
}

// Six jobs; the third has no runtime, the fifth arrives before the fourth.
std::vector<SwfRecord> six_jobs() {
  return {job(1, 100, 50, 4, 200), job(2, 200, 30, 16), job(3, 250, -1, 2),
          job(4, 400, 10, 1, 5),   job(5, 300, 80, 32), job(6, 500, 20, 8)};
}

TEST(LoadWindow, FromAndCountTakeUsableJobsAndCountTheSkipped) {
  TempDir dir;
  LoadSpec spec;
  spec.trace = write_trace(dir, six_jobs());
  spec.window.from = 2;
  spec.window.count = 3;
  const TraceExcerpt e = read_excerpt(spec);
  ASSERT_EQ(e.jobs.size(), 3u);
  EXPECT_EQ(e.jobs[0].job, 2);
  EXPECT_EQ(e.jobs[1].job, 4);
  EXPECT_EQ(e.jobs[2].job, 5);
  EXPECT_EQ(e.skipped.at("no runtime (field 4)"), 1);
  EXPECT_EQ(e.span, 200);  // submits 200 .. 400
  EXPECT_EQ(e.header.max_procs, 16);
}

TEST(LoadWindow, TimeWindowIsHalfOpen) {
  TempDir dir;
  LoadSpec spec;
  spec.trace = write_trace(dir, six_jobs());
  spec.window.time = std::make_pair(200.0, 400.0);
  const TraceExcerpt e = read_excerpt(spec);
  ASSERT_EQ(e.jobs.size(), 2u);  // 2 and 5; 3 has no runtime, 4 is at the end
  EXPECT_EQ(e.jobs[0].job, 2);
  EXPECT_EQ(e.jobs[1].job, 5);
  EXPECT_EQ(e.span, 200);
}

TEST(LoadWindow, AnEmptyWindowNamesTheOption) {
  TempDir dir;
  LoadSpec spec;
  spec.trace = write_trace(dir, six_jobs());
  spec.window.from = 7;
  try {
    read_excerpt(spec);
    FAIL() << "no error";
  } catch (const mcb::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--from: '7+all' holds no job"), std::string::npos)
        << e.what();
  }
  spec.window = Window{};
  spec.window.time = std::make_pair(1000.0, 2000.0);
  EXPECT_THROW(read_excerpt(spec), mcb::UsageError);
}

TEST(LoadPlan, ArrivalsAndRuntimesAreCompressedInSubmitOrder) {
  TempDir dir;
  LoadSpec spec;
  spec.trace = write_trace(dir, six_jobs());
  spec.factor = 10;
  spec.slack = 2;
  const auto plan = plan_load(read_excerpt(spec), spec, {64});
  ASSERT_EQ(plan.size(), 5u);
  const std::vector<std::int64_t> order = {1, 2, 5, 4, 6};
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(plan[i].seq, i);
    EXPECT_EQ(plan[i].trace_job, order[i]);
  }
  EXPECT_DOUBLE_EQ(plan[0].at, 0);
  EXPECT_DOUBLE_EQ(plan[2].at, 20);  // (300 - 100) / 10
  EXPECT_DOUBLE_EQ(plan[2].runtime, 8);
  EXPECT_DOUBLE_EQ(plan[0].time_limit, 200 / 10.0 + 2);  // the requested time is larger
  EXPECT_DOUBLE_EQ(plan[3].time_limit, 10 / 10.0 + 2);   // the runtime is larger
}

TEST(LoadPlan, ProcessorsAreScaledRoundedAndCappedPerSystem) {
  TempDir dir;
  LoadSpec spec;
  spec.trace = write_trace(dir, six_jobs());
  spec.assign = Assign::every;
  spec.procs_scale.reset();  // auto: system / MaxProcs 16
  const auto plan = plan_load(read_excerpt(spec), spec, {4, 8});
  ASSERT_EQ(plan.size(), 10u);
  // Trace processors 4, 16, 32, 1, 8 in submit order, each on both systems.
  const std::vector<int> on_4 = {1, 4, 4, 1, 2}, on_8 = {2, 8, 8, 1, 4};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(plan[2 * i].system, 0u);
    EXPECT_EQ(plan[2 * i + 1].system, 1u);
    EXPECT_EQ(plan[2 * i].procs, on_4[i]) << i;
    EXPECT_EQ(plan[2 * i + 1].procs, on_8[i]) << i;
  }
  spec.procs_scale = 1;
  spec.max_procs = 3;
  for (const PlannedJob& p : plan_load(read_excerpt(spec), spec, {4, 8})) {
    EXPECT_EQ(p.procs, std::min<long long>(p.trace_procs, 3));
  }
}

TEST(LoadPlan, AutoScaleNeedsMaxProcs) {
  TempDir dir;
  LoadSpec spec;
  spec.trace = write_trace(dir, six_jobs(), "");
  spec.procs_scale.reset();
  EXPECT_THROW(processor_scale(spec, read_excerpt(spec).header, 4), mcb::UsageError);
}

TEST(LoadPlan, TheSeedDecidesTheAssignment) {
  TempDir dir;
  std::vector<SwfRecord> many;
  for (int i = 0; i < 200; ++i) many.push_back(job(i + 1, i * 10.0, 5, 1));
  LoadSpec spec;
  spec.trace = write_trace(dir, many);
  const TraceExcerpt e = read_excerpt(spec);
  const auto systems = [&](std::uint64_t seed) {
    spec.seed = seed;
    std::vector<std::size_t> s;
    for (const PlannedJob& p : plan_load(e, spec, {4, 4, 4})) s.push_back(p.system);
    return s;
  };
  const auto first = systems(7);
  EXPECT_EQ(systems(7), first);
  EXPECT_NE(systems(8), first);
  EXPECT_EQ(std::set<std::size_t>(first.begin(), first.end()).size(), 3u);
  EXPECT_EQ(load_id(spec), "t.swf#1+all/x1/random/seed8");
}

TEST(LoadOutput, JobsAsTheyRanReadBackThroughTheSwfOwner) {
  TempDir dir;
  RunResult result;
  result.origin = 1000;
  const auto ran = [&](std::size_t system, double issued, double started, double ended,
                       Outcome outcome, const std::string& id) {
    RanJob j;
    j.plan.system = system;
    j.plan.procs = 3;
    j.plan.time_limit = 12.5;
    j.id = id;
    j.issued = issued;
    j.started = started;
    j.ended = ended;
    j.outcome = outcome;
    result.jobs.push_back(j);
  };
  ran(0, 1.25, 2.5, 4.75, Outcome::completed, "11");
  ran(1, 2.0, 2.1, 3.0, Outcome::completed, "12");
  ran(0, 3.0, -1, -1, Outcome::cancelled, "13");
  ran(0, 3.5, -1, -1, Outcome::failed, "");  // never reached the system
  std::string text;
  for (const SwfRecord& r : ran_records(result, 0, 1)) text += mcb::sim::swf_line(r) + "\n";
  const std::string path = dir / "a.swf";
  std::ofstream(path) << text;
  mcb::sim::SwfReader reader(path);
  SwfRecord r;
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.job, 1);
  EXPECT_EQ(r.submit, 1.25);
  EXPECT_EQ(r.wait, 1.25);
  EXPECT_EQ(r.run, 2.25);
  EXPECT_EQ(r.procs, 3);
  EXPECT_EQ(r.req_time, 12.5);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.partition, 1);
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.job, 2);
  EXPECT_EQ(r.wait, -1);
  EXPECT_EQ(r.run, -1);
  EXPECT_EQ(r.procs, -1);
  EXPECT_EQ(r.req_procs, 3);
  EXPECT_EQ(r.status, 5);
  EXPECT_FALSE(reader.next(r));
}

TEST(LoadOutput, CitingRefusesWhatIsNotALoadSummary) {
  TempDir dir;
  const std::string path = dir / "load.json";
  std::ofstream(path) << R"({"schema": "mcb-redundant/1"})";
  EXPECT_THROW(cite_load(path), mcb::UsageError);
  std::ofstream(path) << R"({"schema": "mcb-load/1", "id": "x.swf#1+2/x3/random/seed4",
                             "trace": {"path": "/t/x.swf"}, "factor": 3, "seed": 4,
                             "systems": [{"name": "a"}, {"name": "b"}]})";
  const auto cited = cite_load(path);
  EXPECT_EQ(cited["id"], "x.swf#1+2/x3/random/seed4");
  EXPECT_EQ(cited["trace"], "/t/x.swf");
  EXPECT_EQ(cited["systems"], nlohmann::json::array({"a", "b"}));
  EXPECT_THROW(cite_load(dir / "none.json"), mcb::UsageError);
}

}  // namespace
