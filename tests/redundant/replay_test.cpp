// A recorded workload (mcb-load's per-system SWF files and a requests file) replayed on the
// grid: the files land on one clock, and a hand-worked stop-and-wait schedule comes out of the
// library and out of the program.
#include "redundant/replay.hpp"
#include "common/errors.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace mcb::testing {
namespace {

using redundant::kGlobalJob;
using redundant::kLocalJob;

constexpr const char* kLine = " -1 -1 %d %g -1 %d -1 -1 -1 -1 %d -1 -1\n";

// One SWF job line: submit, run, processors (fields 5 and 8), requested time, status.
std::string job(int n, double submit, double run, int procs, double req, int status = 1) {
  char text[200];
  std::snprintf(text, sizeof text, "%d %g 0 %g %d", n, submit, run, procs);
  std::string line = text;
  std::snprintf(text, sizeof text, kLine, procs, req, status, 1);
  return line + text;
}

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = (dir.path() / name).string();
  std::ofstream(path) << text;
  return path;
}

// Site 0 (4 processors) is full from 0 to 10 with a local job; site 1 is idle. A request of
// 2 + 2 processors arrives at 1 and runs 5 s. Stop-and-wait: its part at site 1 starts at 1
// and holds 2 processors idle until the part at site 0 starts at 10.
struct Workload {
  TempDir dir;
  std::string a, b, requests;
  Workload() {
    a = write(dir, "a.swf",
              "; UnixStartTime: 1000\n; MaxProcs: 4\n" + job(1, 0, 10, 4, 30) +
                  // cancelled while waiting: never ran, left out
                  "2 3 -1 -1 -1 -1 -1 2 30 -1 5 -1 -1 -1 -1 1 -1 -1\n");
    b = write(dir, "b.swf", "; UnixStartTime: 1000\n; MaxProcs: 4\n");
    // Its own clock starts a second later: submit 0 is 1 s after the sites' 0.
    requests = write(dir, "r.swf", "; UnixStartTime: 1001\n" + job(1, 0, 5, 4, 5));
  }
};

TEST(Replay, FilesLandOnOneClock) {
  const Workload w;
  const redundant::Replay r = redundant::read_replay({w.a, w.b}, w.requests);
  EXPECT_EQ(r.sites, (std::vector<int>{4, 4}));
  ASSERT_EQ(r.jobs.size(), 2U);
  EXPECT_EQ(r.locals, 1U);
  EXPECT_EQ(r.globals, 1U);
  EXPECT_EQ(r.skipped, 1U);
  EXPECT_EQ(r.origin_unix, 1000);
  EXPECT_EQ(r.jobs[0].kind, kLocalJob);
  EXPECT_EQ(r.jobs[0].site, 0);
  EXPECT_EQ(r.jobs[0].requested, 30);
  EXPECT_EQ(r.jobs[1].kind, kGlobalJob);
  EXPECT_EQ(r.jobs[1].submit, 1);
  EXPECT_EQ(r.jobs[1].size, 4);
  EXPECT_EQ(r.jobs[1].runtime, 5);
}

TEST(Replay, StopAndWaitHoldsTheEarlyPart) {
  const Workload w;
  const redundant::Replay r = redundant::read_replay({w.a, w.b}, w.requests);
  redundant::GridConfig c;
  c.sites = r.sites;
  c.backfilling = true;
  c.sync = redundant::Sync::stop_and_wait;
  c.ranker = "qlen";
  c.global_jobs = r.globals;
  c.warmup_jobs = 0;
  const redundant::GridResult g = redundant::run_listed(c, r.jobs);
  ASSERT_TRUE(g.valid) << g.verdict;
  EXPECT_DOUBLE_EQ(g.global_wait_mean, 9);
  EXPECT_DOUBLE_EQ(g.coalloc_hold_mean, 18);
}

TEST(Replay, ProgramWritesTheHandWorkedTable) {
  const Workload w;
  const auto out = w.dir.path() / "out";
  const auto r = run_command(bin("mcb-redundant") + " --site-trace " + quote(w.a) +
                             " --site-trace " + quote(w.b) + " --requests " + quote(w.requests) +
                             " --sync stop-and-wait --rankers qlen --duplicates 0:1 --queue cons"
                             " --replications 1 --output " +
                             quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = slurp(out / "redundant.csv");
  // Both rows: with two sites a duplicate has nowhere to go, so d = 1 is the same schedule.
  EXPECT_NE(csv.find(",qlen,0,0,1,1,9,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",qlen,1,0,1,1,9,"), std::string::npos) << csv;
  EXPECT_NE(slurp(out / "redundant.json").find("\"requests_count\": 1"), std::string::npos);
}

TEST(Replay, BadFileIsOneLine) {
  const Workload w;
  const std::string bad =
      write(w.dir, "bad.swf", "; UnixStartTime: 1000\n; MaxProcs: 4\n" + job(1, 0, 10, 8, 30));
  EXPECT_THROW(redundant::read_replay({bad, w.b}, w.requests), UsageError);
  const auto r = run_command(bin("mcb-redundant") + " --site-trace " + quote(bad) +
                             " --site-trace " + quote(w.b) + " --requests " + quote(w.requests) +
                             " --sync stop-and-wait --output " + quote(w.dir.path() / "o"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "mcb-redundant: --site-trace: " + bad + ":3: processors '8' do not fit the " +
                       "site's 4\n");
  EXPECT_FALSE(std::filesystem::exists(w.dir.path() / "o"));
}

}  // namespace
}  // namespace mcb::testing
