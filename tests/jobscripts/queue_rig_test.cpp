// The batch-queue library against the real rig (jobscripts/testing/rig.sh, installed as mcb-rig):
// two Slurm instances and a Grid Engine cell started once for this program. On each system a job
// is seen pending behind a blocker that fills the system, held and released, running with its
// node list, suspended and resumed, requeued and running again (Slurm; Grid Engine refuses the
// requeue), done; another is cancelled; the queue's length and the system's start estimate (later
// with the blocker) are read. Jobs wait for files the test writes, so nothing depends on how fast
// the machine is. Where the rig cannot start
// (not root, packages missing), every test is skipped with the reason and the program exits 77,
// which CTest reports as skipped.
#include "jobscripts/queue.hpp"
#include "tests/jobscripts/rig_support.hpp"
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
using mcb::testing::rig::RigTest;
using mcb::testing::rig::wait_for;

const std::vector<QueueConfig>& systems() { return mcb::testing::rig::state().systems; }
const fs::path& rig_dir() { return mcb::testing::rig::state().dir; }

TEST_F(RigTest, DescribesTwoSlurmInstancesAndAGridEngineCell) {
  ASSERT_EQ(systems().size(), 3u);
  EXPECT_EQ(systems()[0].name, "slurm-a");
  EXPECT_EQ(systems()[0].kind, "slurm");
  EXPECT_EQ(systems()[1].name, "slurm-b");
  EXPECT_EQ(systems()[1].kind, "slurm");
  EXPECT_EQ(systems()[2].name, "gridengine");
  EXPECT_EQ(systems()[2].kind, "gridengine");
  EXPECT_NE(systems()[0].env, systems()[1].env) << "two instances, two configurations";
  for (const QueueConfig& config : systems()) {
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
  const QueueConfig& config = systems().at(static_cast<std::size_t>(GetParam()));
  const auto queue = make_queue(config);
  const fs::path work = rig_dir() / ("work-" + config.name);
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
  // Requeued, it leaves its nodes and starts again from the beginning of its script. Grid
  // Engine refuses (qmod -rj may leave the old instance running) and the job runs on.
  std::string expected_starts = "started\n";
  if (config.kind == "gridengine") {
    EXPECT_FALSE(queue->supports(Operation::requeue));
    EXPECT_THROW(queue->requeue(job), NotSupported);
    EXPECT_EQ(queue->status(job).phase, JobPhase::running);
  } else {
    queue->requeue(job);
    expected_starts += "started\n";
    // The requeued job may be pending for less than a poll on a busy machine: what shows the
    // requeue is its script starting a second time.
    EXPECT_EQ(wait_phase(*queue, job, JobPhase::running, 60).phase, JobPhase::running);
    EXPECT_TRUE(wait_for([&] { return mcb::testing::slurp(starts) == expected_starts; }, 120))
        << "the requeued job's script did not start again";
  }

  std::ofstream(work / "go-short") << "go\n";
  const JobStatus done = wait_phase(*queue, job, JobPhase::done, 60);
  EXPECT_EQ(done.phase, JobPhase::done) << done.state << " " << done.reason;
  // In its folder, with the request's environment; started once more after a requeue.
  // (Slurm writes its requeue notice over the start of the output file.)
  const std::string out = mcb::testing::slurp(work / "short.out");
  EXPECT_NE(out.find("ran in " + work.string() + " as short,with comma\n"), std::string::npos)
      << out;
  EXPECT_EQ(mcb::testing::slurp(starts), expected_starts);
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
  const auto a = make_queue(systems().at(0));
  const auto b = make_queue(systems().at(1));
  const fs::path work = rig_dir() / "work-separate";
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

int main(int argc, char** argv) { return mcb::testing::rig::main(argc, argv); }
