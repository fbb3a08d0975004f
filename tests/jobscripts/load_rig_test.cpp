// mcb-load against the real rig (jobscripts/testing/rig.sh: two Slurm instances and a Grid Engine
// cell, started once for this program): a load that runs to its end submits every job in the
// plan's order on its planned system and processors, every job runs and is recorded; a load
// interrupted by SIGTERM, or ended by its duration, cancels what it submitted and leaves no job
// in any queue and no process behind. Nothing is timed: waits are for files and states. Where
// the rig cannot start (not root, packages missing), every test is skipped and the program exits
// 77, which CTest reports as skipped.
#include "jobscripts/load_plan.hpp"
#include "jobscripts/queue.hpp"
#include "simulator/swf.hpp"
#include "tests/jobscripts/rig_support.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

namespace {

using namespace mcb::campaign;
using mcb::load::PlannedJob;
using mcb::sim::SwfRecord;
using mcb::testing::CommandResult;
using mcb::testing::quote;
using mcb::testing::run_command;
namespace fs = std::filesystem;
using nlohmann::json;

using mcb::testing::rig::state;
using mcb::testing::rig::wait_for;

// The test's own files (traces, outputs, logs), beside the rig the shared environment starts.
const fs::path& scratch() {
  static const mcb::testing::TempDir dir;
  return dir.path();
}

fs::path rig_env() { return state().dir / "rig.env"; }

// Processes whose command line or environment names @p text (the load's job scripts and their
// sleeps, which carry MCB_LOAD_JOB).
std::vector<pid_t> processes_naming(const std::string& text) {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string leaf = entry.path().filename().string();
    if (leaf.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(leaf));
    if (pid == ::getpid()) continue;
    const std::string seen = mcb::testing::slurp(entry.path() / "cmdline") +
                             mcb::testing::slurp(entry.path() / "environ");
    if (seen.find(text) != std::string::npos) pids.push_back(pid);
  }
  return pids;
}

using LoadRig = mcb::testing::rig::RigTest;

// A trace of @p n jobs (MaxProcs 8), one every 10 trace seconds, runtime runtime(i), procs 1..8.
std::string write_trace(const std::string& name, int n, double (*runtime)(int)) {
  std::string text = mcb::sim::swf_header({{"Version", "2.2"}, {"MaxProcs", "8"}});
  for (int i = 0; i < n; ++i) {
    SwfRecord r;
    r.job = i + 1;
    r.submit = 10.0 * i;
    r.run = runtime(i);
    r.procs = r.req_procs = 1 + (i * 3) % 8;
    r.status = 1;
    text += mcb::sim::swf_line(r) + "\n";
  }
  std::string path = (scratch() / name).string();
  std::ofstream(path) << text;
  return path;
}

std::vector<std::string> load_args(const std::string& trace, const std::string& out) {
  return {
      "--systems", rig_env().string(), "--trace", trace,    "--factor", "10",       "--procs-scale",
      "auto",      "--seed",           "5",       "--poll", "0.5s",     "--output", out};
}

// The rig's queues hold none of the load's jobs, and no process of them is left.
void expect_nothing_left(const std::string& out) {
  for (const QueueConfig& config : state().systems) {
    const auto queue = make_queue(config);
    EXPECT_TRUE(wait_for(
        [&] {
          const QueueState q = queue->queue_state();
          return q.pending_jobs + q.running_jobs + q.held_jobs == 0;
        },
        30))
        << config.name << " still holds jobs";
  }
  EXPECT_TRUE(wait_for([&] { return processes_naming(out + "/").empty(); }, 30))
      << "a job's process was left behind";
}

json read_json(const fs::path& path) { return json::parse(mcb::testing::slurp(path)); }

std::vector<SwfRecord> read_swf(const fs::path& path) {
  mcb::sim::SwfReader reader(path.string());
  std::vector<SwfRecord> records;
  SwfRecord r;
  while (reader.next(r)) records.push_back(r);
  return records;
}

double short_runtime(int i) { return 10.0 + 10.0 * (i % 3); }  // 1-3 s at factor 10
double long_runtime(int) { return 6000; }                      // 600 s at factor 10

TEST_F(LoadRig, EveryJobRunsInThePlannedOrderOnItsSystemAndProcessors) {
  const std::string trace = write_trace("short.swf", 9, short_runtime);
  const std::string out = (scratch() / "full").string();
  const CommandResult r = mcb::testing::run_program("mcb-load", load_args(trace, out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ended (all jobs ended)"), std::string::npos) << r.out;

  // The same plan, from the library: every rig system has 4 processors.
  mcb::load::LoadSpec spec;
  spec.trace = trace;
  spec.factor = 10;
  spec.procs_scale.reset();
  spec.seed = 5;
  const auto plan = plan_load(mcb::load::read_excerpt(spec), spec, {4, 4, 4});
  const json summary = read_json(fs::path(out) / "load.json");
  EXPECT_EQ(summary["schema"], "mcb-load/1");
  EXPECT_EQ(summary["id"], "short.swf#1+all/x10/random/seed5");
  EXPECT_EQ(summary["submitted"], 9);
  EXPECT_EQ(summary["not_submitted"], 0);
  std::size_t recorded = 0;
  for (std::size_t s = 0; s < state().systems.size(); ++s) {
    const json& block = summary["systems"][s];
    EXPECT_EQ(block["name"], state().systems[s].name);
    const auto records = read_swf(fs::path(out) / (state().systems[s].name + ".swf"));
    std::vector<const PlannedJob*> mine;
    for (const PlannedJob& p : plan) {
      if (p.system == s) mine.push_back(&p);
    }
    ASSERT_EQ(records.size(), mine.size()) << state().systems[s].name;
    EXPECT_EQ(block["outcomes"]["completed"], mine.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      const SwfRecord& rec = records[i];
      EXPECT_EQ(rec.status, 1) << state().systems[s].name << " job " << i;
      EXPECT_EQ(rec.procs, mine[i]->procs);
      EXPECT_EQ(rec.partition, static_cast<long long>(s) + 1);
      EXPECT_GE(rec.wait, 0);
      // The job's own stamps bracket its sleep: it cannot be shorter.
      EXPECT_GE(rec.run, mine[i]->runtime - 0.001);
      if (i > 0) {
        EXPECT_GE(rec.submit, records[i - 1].submit);
      }
    }
    // Never more processors held at once than the system has: at each start, the jobs whose
    // stamped [start, end] holds it (inside their allocations) fit in 4.
    for (const SwfRecord& a : records) {
      long long held = 0;
      const double t = a.submit + a.wait;
      for (const SwfRecord& b : records) {
        if (b.submit + b.wait <= t && t < b.submit + b.wait + b.run) held += b.procs;
      }
      EXPECT_LE(held, 4) << state().systems[s].name << " at " << t;
    }
    recorded += records.size();
  }
  EXPECT_EQ(recorded, plan.size());
  expect_nothing_left(out);
}

// Starts mcb-load in the background; its stdout and stderr go to @p log.
pid_t start_load(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<std::string> words = {mcb::testing::bin("mcb-load")};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    if (!std::freopen(log.c_str(), "w", stdout) || !std::freopen(log.c_str(), "a", stderr)) {
      ::_exit(126);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

int exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int started_jobs(const std::string& out) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(out) / "work", ec)) {
    n += e.path().extension() == ".start";
  }
  return n;
}

// Every job the load submitted was cancelled: its system ended it, none ran to its end.
void expect_all_cancelled(const std::string& out, const std::string& ended_by, int min_ran) {
  const json summary = read_json(fs::path(out) / "load.json");
  EXPECT_EQ(summary["ended_by"], ended_by);
  EXPECT_EQ(summary["unconfirmed_cancellations"], json::array());
  int cancelled = 0, ran = 0;
  for (const QueueConfig& config : state().systems) {
    for (const SwfRecord& r : read_swf(fs::path(out) / (config.name + ".swf"))) {
      EXPECT_EQ(r.status, 5) << config.name << " job " << r.job;
      ++cancelled;
      if (r.run >= 0) {
        ++ran;
        EXPECT_LT(r.run, 600) << "a cancelled job slept its whole runtime";
      }
    }
  }
  EXPECT_EQ(cancelled, summary["submitted"].get<int>());
  EXPECT_GE(ran, min_ran);
}

TEST_F(LoadRig, AnInterruptedLoadCancelsWhatItSubmittedAndLeavesNothing) {
  const std::string trace = write_trace("long.swf", 6, long_runtime);
  const std::string out = (scratch() / "interrupted").string();
  const pid_t pid = start_load(load_args(trace, out), (scratch() / "interrupted.log").string());
  ASSERT_GT(pid, 0);
  const bool two_started = wait_for([&] { return started_jobs(out) >= 2; }, 120);
  ::kill(pid, SIGTERM);
  EXPECT_EQ(exit_code(pid), 130) << mcb::testing::slurp(scratch() / "interrupted.log");
  ASSERT_TRUE(two_started) << mcb::testing::slurp(scratch() / "interrupted.log");
  expect_all_cancelled(out, "SIGTERM", 2);  // two had stamped their start
  expect_nothing_left(out);
}

TEST_F(LoadRig, ALoadEndedByItsDurationCancelsWhatIsLeft) {
  const std::string trace = write_trace("long.swf", 6, long_runtime);
  const std::string out = (scratch() / "duration").string();
  auto args = load_args(trace, out);
  args.insert(args.end(), {"--duration", "4s"});
  const CommandResult r = mcb::testing::run_program("mcb-load", args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_all_cancelled(out, "duration", 0);
  expect_nothing_left(out);
}

}  // namespace

int main(int argc, char** argv) { return mcb::testing::rig::main(argc, argv); }
