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
using Clock = std::chrono::steady_clock;
using nlohmann::json;

std::string g_skip_reason;
std::string g_start_error;
fs::path g_dir;
std::vector<QueueConfig> g_systems;

template <class Ready>
bool wait_for(Ready ready, double seconds) {
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ready();
}

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

class Rig : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "mcb-load-rig-XXXXXX").string();
    g_dir = ::mkdtemp(pattern.data());
    // With this process as owner, the rig stops even if the test is killed half-way.
    const CommandResult r =
        run_command(quote(mcb::testing::bin("mcb-rig")) + " start " +
                    quote((g_dir / "rig").string()) + " " + std::to_string(::getpid()));
    if (r.exit_code == 3) {
      g_skip_reason = r.err_lines().empty() ? "rig: cannot start" : r.err_lines().back();
    } else if (r.exit_code != 0) {
      g_start_error = r.out + r.err;
    } else {
      g_systems = read_queue_configs((g_dir / "rig" / "rig.env").string());
    }
  }
  void TearDown() override {
    if (!g_systems.empty()) {
      const CommandResult r = run_command(quote(mcb::testing::bin("mcb-rig")) + " stop " +
                                          quote((g_dir / "rig").string()));
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    }
    std::error_code ec;
    fs::remove_all(g_dir, ec);
  }
};

class LoadRig : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!g_skip_reason.empty()) GTEST_SKIP() << g_skip_reason;
    ASSERT_FALSE(g_systems.empty()) << "the rig did not start:\n" << g_start_error;
  }
};

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
  std::string path = (g_dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::vector<std::string> load_args(const std::string& trace, const std::string& out) {
  return {"--systems",     (g_dir / "rig" / "rig.env").string(),
          "--trace",       trace,
          "--factor",      "10",
          "--procs-scale", "auto",
          "--seed",        "5",
          "--poll",        "0.5s",
          "--output",      out};
}

// The rig's queues hold none of the load's jobs, and no process of them is left.
void expect_nothing_left(const std::string& out) {
  for (const QueueConfig& config : g_systems) {
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
  const std::string out = (g_dir / "full").string();
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
  for (std::size_t s = 0; s < g_systems.size(); ++s) {
    const json& block = summary["systems"][s];
    EXPECT_EQ(block["name"], g_systems[s].name);
    const auto records = read_swf(fs::path(out) / (g_systems[s].name + ".swf"));
    std::vector<const PlannedJob*> mine;
    for (const PlannedJob& p : plan) {
      if (p.system == s) mine.push_back(&p);
    }
    ASSERT_EQ(records.size(), mine.size()) << g_systems[s].name;
    EXPECT_EQ(block["outcomes"]["completed"], mine.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      const SwfRecord& rec = records[i];
      EXPECT_EQ(rec.status, 1) << g_systems[s].name << " job " << i;
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
      EXPECT_LE(held, 4) << g_systems[s].name << " at " << t;
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
  for (const QueueConfig& config : g_systems) {
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
  const std::string out = (g_dir / "interrupted").string();
  const pid_t pid = start_load(load_args(trace, out), (g_dir / "interrupted.log").string());
  ASSERT_GT(pid, 0);
  const bool two_started = wait_for([&] { return started_jobs(out) >= 2; }, 120);
  ::kill(pid, SIGTERM);
  EXPECT_EQ(exit_code(pid), 130) << mcb::testing::slurp(g_dir / "interrupted.log");
  ASSERT_TRUE(two_started) << mcb::testing::slurp(g_dir / "interrupted.log");
  expect_all_cancelled(out, "SIGTERM", 2);  // two had stamped their start
  expect_nothing_left(out);
}

TEST_F(LoadRig, ALoadEndedByItsDurationCancelsWhatIsLeft) {
  const std::string trace = write_trace("long.swf", 6, long_runtime);
  const std::string out = (g_dir / "duration").string();
  auto args = load_args(trace, out);
  args.insert(args.end(), {"--duration", "4s"});
  const CommandResult r = mcb::testing::run_program("mcb-load", args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_all_cancelled(out, "duration", 0);
  expect_nothing_left(out);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new Rig);  // NOLINT: gtest owns it
  const int result = RUN_ALL_TESTS();
  const auto* unit = ::testing::UnitTest::GetInstance();
  if (result == 0 && unit->test_to_run_count() > 0 &&
      unit->skipped_test_count() == unit->test_to_run_count()) {
    std::cout << "skipped: " << g_skip_reason << std::endl;
    return 77;
  }
  return result;
}
