// The batch-queue library against the real rig (jobscripts/testing/rig.sh, installed as mcb-rig):
// two Slurm instances and a Grid Engine cell started once for this program. On each system a job
// is seen pending behind a blocker that fills the system, held and released, running with its
// node list, suspended and resumed, requeued and running again, done; another is cancelled; the
// queue's length and the system's start estimate (later with the blocker) are read. Jobs wait for
// files the test writes, so nothing depends on how fast the machine is. Where the rig cannot start
// (not root, packages missing), every test is skipped with the reason and the program exits 77,
// which CTest reports as skipped.
#include "jobscripts/queue.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

namespace {

using namespace mcb::campaign;
using mcb::testing::CommandResult;
using mcb::testing::quote;
using mcb::testing::run_command;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string g_skip_reason;  // why this machine cannot run the rig
std::string g_start_error;  // why it did not start although it should have
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

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Processes of the rig: its folder on their command line (munged) or in their environment
// (SLURM_CONF of the daemons and jobs, SGE_ROOT of the Grid Engine daemons and jobs).
std::vector<pid_t> rig_processes(const fs::path& dir) {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string leaf = entry.path().filename().string();
    if (leaf.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(leaf));
    if (pid == ::getpid()) continue;
    const std::string seen = mcb::testing::slurp(entry.path() / "cmdline") +
                             mcb::testing::slurp(entry.path() / "environ");
    if (seen.find(dir.string() + "/") != std::string::npos) pids.push_back(pid);
  }
  return pids;
}

class Rig : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "mcb-rig-XXXXXX").string();
    g_dir = ::mkdtemp(pattern.data());
    const auto start = Clock::now();
    // With this process as owner, the rig stops even if the test is killed half-way.
    const CommandResult r = run_command(quote(mcb::testing::bin("mcb-rig")) + " start " +
                                        quote(g_dir.string()) + " " + std::to_string(::getpid()));
    if (r.exit_code == 3) {
      g_skip_reason = r.err_lines().empty() ? "rig: cannot start" : r.err_lines().back();
    } else if (r.exit_code != 0) {
      g_start_error = r.out + r.err;
    } else {
      std::cout << "rig started in " << seconds_since(start) << " s" << std::endl;
      g_systems = read_queue_configs((g_dir / "rig.env").string());
    }
  }

  void TearDown() override {
    if (!g_systems.empty()) {
      const auto start = Clock::now();
      const CommandResult r =
          run_command(quote(mcb::testing::bin("mcb-rig")) + " stop " + quote(g_dir.string()));
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      std::cout << "rig stopped in " << seconds_since(start) << " s" << std::endl;
      EXPECT_EQ(rig_processes(g_dir), std::vector<pid_t>{}) << "the rig left processes behind";
      EXPECT_FALSE(fs::exists(g_dir / "rig.env")) << "stop leaves no description of the rig";
    }
    std::error_code ec;
    fs::remove_all(g_dir, ec);
  }
};

class RigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!g_skip_reason.empty()) GTEST_SKIP() << g_skip_reason;
    ASSERT_FALSE(g_systems.empty()) << "the rig did not start:\n" << g_start_error;
  }
};

TEST_F(RigTest, DescribesTwoSlurmInstancesAndAGridEngineCell) {
  ASSERT_EQ(g_systems.size(), 3u);
  EXPECT_EQ(g_systems[0].name, "slurm-a");
  EXPECT_EQ(g_systems[0].kind, "slurm");
  EXPECT_EQ(g_systems[1].name, "slurm-b");
  EXPECT_EQ(g_systems[1].kind, "slurm");
  EXPECT_EQ(g_systems[2].name, "gridengine");
  EXPECT_EQ(g_systems[2].kind, "gridengine");
  EXPECT_NE(g_systems[0].env, g_systems[1].env) << "two instances, two configurations";
  for (const QueueConfig& config : g_systems) {
    const QueueState q = make_queue(config)->queue_state();
    EXPECT_EQ(q.total_processors, 4) << config.name;
    EXPECT_EQ(q.pending_jobs + q.running_jobs + q.held_jobs, 0) << config.name;
  }
}

// A job that says where it runs and counts its starts beside its file, then waits for that file
// (at most 120 s).
std::string write_waiter(const fs::path& dir) {
  const fs::path script = dir / "wait.sh";
  std::ofstream(script) << "#!/bin/sh\necho \"ran in $(pwd) as $MCB_RIG_TAG\"\n"
                           "echo started >>\"$1.starts\"\n"
                           "n=0\nwhile [ ! -e \"$1\" ] && [ $n -lt 600 ]; do sleep 0.2; "
                           "n=$((n + 1)); done\n";
  ::chmod(script.c_str(), 0755);
  return script.string();
}

JobStatus wait_phase(BatchQueue& q, const std::string& id, JobPhase phase, double seconds) {
  JobStatus s;
  wait_for(
      [&] {
        s = q.status(id);
        return s.phase == phase;
      },
      seconds);
  return s;
}

class EachSystem : public RigTest, public ::testing::WithParamInterface<int> {};

TEST_P(EachSystem, PendingHeldReleasedRunningSuspendedRequeuedDoneAndCancelled) {
  const QueueConfig& config = g_systems.at(static_cast<std::size_t>(GetParam()));
  const auto queue = make_queue(config);
  const fs::path work = g_dir / ("work-" + config.name);
  fs::create_directories(work);
  const std::string script = write_waiter(work);
  const auto request = [&](const std::string& tag, int processors) {
    JobRequest r;
    r.script = script;
    r.args = {(work / ("go-" + tag)).string()};
    r.name = "rig-" + tag;
    r.processors = processors;
    r.time_limit_s = 300;
    r.workdir = work.string();
    r.output = (work / (tag + ".out")).string();
    r.env = {{"MCB_RIG_TAG", tag + ",with comma"}};
    return r;
  };
  const StartEstimate idle = queue->start_estimate(4, 120);

  // The blocker takes all 4 processors; the short job waits behind it.
  const std::string blocker = queue->submit(request("blocker", 4));
  const JobStatus blocking = wait_phase(*queue, blocker, JobPhase::running, 60);
  ASSERT_EQ(blocking.phase, JobPhase::running) << blocking.state << " " << blocking.reason;
  const std::string job = queue->submit(request("short", 2));
  const JobStatus pending = queue->status(job);
  EXPECT_EQ(pending.phase, JobPhase::pending) << pending.state;
  EXPECT_EQ(pending.nodes, std::vector<std::string>{});
  const QueueState busy = queue->queue_state();
  EXPECT_EQ(busy.running_jobs, 1);
  EXPECT_EQ(busy.running_processors, 4);
  EXPECT_EQ(busy.pending_jobs, 1);
  EXPECT_EQ(busy.pending_processors, 2);
  const StartEstimate later = queue->start_estimate(4, 120);
  if (config.kind == "slurm") {
    ASSERT_TRUE(idle.start_time && later.start_time) << idle.source << " / " << later.source;
    // The blocker's limit is 300 s: a full-size request can start only after it.
    EXPECT_GE(*later.start_time - *idle.start_time, 200) << later.source;
  } else {
    EXPECT_FALSE(later.start_time.has_value());
    EXPECT_EQ(later.source.rfind("none: ", 0), 0u) << later.source;
  }

  queue->hold(job);
  EXPECT_TRUE(wait_for([&] { return queue->status(job).held; }, 20));
  EXPECT_EQ(queue->queue_state().held_jobs, 1);
  queue->release(job);
  EXPECT_TRUE(wait_for([&] { return !queue->status(job).held; }, 20));

  queue->cancel(blocker);
  const JobStatus running = wait_phase(*queue, job, JobPhase::running, 60);
  ASSERT_EQ(running.phase, JobPhase::running) << running.state << " " << running.reason;
  ASSERT_FALSE(running.nodes.empty());
  for (const std::string& node : running.nodes) {
    if (config.name == "slurm-a") {
      EXPECT_TRUE(node == "a1" || node == "a2") << node;
    } else if (config.name == "slurm-b") {
      EXPECT_TRUE(node == "b1" || node == "b2") << node;
    }
  }
  // "Running" is the allocation; the script starts a moment later.
  const fs::path starts = work / "go-short.starts";
  EXPECT_TRUE(wait_for([&] { return mcb::testing::slurp(starts) == "started\n"; }, 30));
  queue->suspend(job);
  EXPECT_EQ(wait_phase(*queue, job, JobPhase::suspended, 20).phase, JobPhase::suspended);
  queue->resume(job);
  EXPECT_EQ(wait_phase(*queue, job, JobPhase::running, 20).phase, JobPhase::running);
  // Requeued, it leaves its nodes and starts again from the beginning of its script.
  queue->requeue(job);
  EXPECT_TRUE(wait_for([&] { return queue->status(job).phase == JobPhase::pending; }, 30));
  EXPECT_EQ(wait_phase(*queue, job, JobPhase::running, 60).phase, JobPhase::running);
  EXPECT_TRUE(wait_for([&] { return mcb::testing::slurp(starts) == "started\nstarted\n"; }, 30))
      << "the requeued job's script did not start again";

  std::ofstream(work / "go-short") << "go\n";
  const JobStatus done = wait_phase(*queue, job, JobPhase::done, 60);
  EXPECT_EQ(done.phase, JobPhase::done) << done.state << " " << done.reason;
  // In its folder, with the request's environment; started twice, once more after the requeue.
  // (Slurm writes its requeue notice over the start of the output file.)
  const std::string out = mcb::testing::slurp(work / "short.out");
  EXPECT_NE(out.find("ran in " + work.string() + " as short,with comma\n"), std::string::npos)
      << out;
  EXPECT_EQ(mcb::testing::slurp(starts), "started\nstarted\n");
  EXPECT_EQ(queue->status(blocker).phase, JobPhase::failed) << "a cancelled job did not finish";

  // A job cancelled while it waits (held, so it cannot start first).
  JobRequest held = request("cancelled", 1);
  held.hold = true;
  const std::string cancelled = queue->submit(held);
  EXPECT_TRUE(queue->status(cancelled).held);
  queue->cancel(cancelled);
  EXPECT_EQ(wait_phase(*queue, cancelled, JobPhase::failed, 30).phase, JobPhase::failed);
}

std::string system_label(const ::testing::TestParamInfo<int>& info) {
  const std::vector<std::string> labels = {"SlurmA", "SlurmB", "GridEngine"};
  return labels.at(static_cast<std::size_t>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Rig, EachSystem, ::testing::Values(0, 1, 2), system_label);

// Two instances of one kind answer for themselves: a job of one is unknown to the other.
TEST_F(RigTest, TheTwoSlurmInstancesAreSeparate) {
  const auto a = make_queue(g_systems.at(0));
  const auto b = make_queue(g_systems.at(1));
  const fs::path work = g_dir / "work-separate";
  fs::create_directories(work);
  JobRequest r;
  r.script = write_waiter(work);
  r.args = {(work / "go").string()};
  r.workdir = work.string();
  r.hold = true;
  const std::string id = a->submit(r);
  EXPECT_TRUE(a->status(id).held);
  EXPECT_THROW(b->status(id), std::runtime_error);
  EXPECT_EQ(b->queue_state().held_jobs, 0);
  a->cancel(id);
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
