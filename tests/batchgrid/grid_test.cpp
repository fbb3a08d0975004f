// Hand-worked cases of the batch grid: a kill at the limit and the resubmission, the best
// mapping where the optimum is known, a remap on an activation with its restart cost, and the
// event file read back.
#include "batchgrid/grid.hpp"
#include "batchgrid/application.hpp"
#include "batchgrid/batch_queue.hpp"
#include "batchgrid/events.hpp"
#include "batchgrid/execution.hpp"
#include "common/errors.hpp"
#include "simulator/swf.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace mcb::batchgrid {
namespace {

TEST(BatchQueue, AJobAtTheLimitIsKilledAndTheApplicationResubmits) {
  // 4 processors, FCFS, limit 100 s. The application (2 processors) and job A (4 processors,
  // 150 s) both come at t = 0; the application is first.
  //   0: the application starts; A waits for all 4 processors.
  // 100: the application is killed at the limit and resubmits; A starts (it came first).
  // 200: A is killed at the limit (it wanted 150 s); the second submission starts.
  // 300: it is killed; no resubmission past the horizon (250).
  QueueSpec q;
  q.name = "q";
  q.size = 4;
  q.discipline = sim::Discipline::kFcfs;
  q.limit = 100;
  q.jobs = {{0, 4, 150, 150}};
  q.app_request = 2;
  q.app_horizon = 250;
  const QueueRun r = run_queue(q);
  ASSERT_EQ(r.app.size(), 2u);
  EXPECT_EQ(r.app[0].submit, 0);
  EXPECT_EQ(r.app[0].start, 0);
  EXPECT_EQ(r.app[0].end, 100);
  EXPECT_EQ(r.app[1].submit, 100);
  EXPECT_EQ(r.app[1].start, 200);
  EXPECT_EQ(r.app[1].end, 300);
  EXPECT_EQ(r.external_done, 1u);
  EXPECT_EQ(r.external_killed, 1u);
  EXPECT_EQ(r.external_wait_sum, 100);
  EXPECT_EQ(r.simulated_jobs, 3u);
}

TEST(BatchQueue, AResubmissionDueBeforeTheNextArrivalIsNotDelayedByIt) {
  // The next external job comes at 1000, long after the kill at 100: the resubmission at 100
  // still starts at 100 (it becomes known only when the first submission starts).
  QueueSpec q;
  q.name = "q";
  q.size = 4;
  q.discipline = sim::Discipline::kEasy;
  q.limit = 100;
  q.jobs = {{1000, 1, 10, 10}};
  q.app_request = 4;
  q.app_horizon = 150;
  const QueueRun r = run_queue(q);
  ASSERT_EQ(r.app.size(), 2u);
  EXPECT_EQ(r.app[1].submit, 100);
  EXPECT_EQ(r.app[1].start, 100);
  EXPECT_EQ(r.external_killed, 0u);
}

TEST(BatchQueue, AJobLargerThanTheQueueIsRefusedNamingIt) {
  QueueSpec q;
  q.name = "small";
  q.size = 4;
  q.jobs = {{0, 8, 10, 10}};
  try {
    run_queue(q);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("queue small: job 1 needs 8"), std::string::npos);
  }
}

AppModel two_components() {
  AppModel m;
  m.components = {{"x", 0, 100, 0, 0, 0}, {"y", 0, 50, 0, 0, 0}};
  return m;
}

TEST(Scheduler, TheBestMappingIsTheKnownOptimum) {
  // Sites of 8 and 4 processors. x = 100/P, y = 50/P: x on 8 and y on 4 give 12.5 s each;
  // every other fit is slower (x and y together on 8: at best max(100/4, 50/4) = 25).
  const Schedule s = best_schedule(two_components(), {4, 4}, {8, 4}, Schedule{}, 1e8);
  ASSERT_TRUE(s.valid());
  EXPECT_EQ(s.procs, (std::vector<int>{8, 4}));
  EXPECT_EQ(s.site, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(s.day_seconds, 12.5);
  // No active site: no schedule.
  EXPECT_FALSE(best_schedule(two_components(), {4, 4}, {0, 0}, Schedule{}, 1e8).valid());
}

TEST(Scheduler, TheApplicationRunsOnAnActiveQueueTooSmallForAnAllocationNearTheBase) {
  // Base 64 + 64; only a queue of 4 is active. Nothing from base / 8 = 8 up fits, but section 2
  // runs the components "on the corresponding subset of active batch systems", whichever it is:
  // x = 100/P and y = 50/P on 4 processors do best at 50 s, first found as 2 + 1 (2 + 2 ties;
  // 1 + 2 gives 100 s).
  const Schedule s = best_schedule(two_components(), {64, 64}, {0, 4}, Schedule{}, 1e8);
  ASSERT_TRUE(s.valid());
  EXPECT_EQ(s.procs, (std::vector<int>{2, 1}));
  EXPECT_EQ(s.site, (std::vector<int>{1, 1}));
  EXPECT_DOUBLE_EQ(s.day_seconds, 50);
  // One processor for two components: nothing fits.
  EXPECT_FALSE(best_schedule(two_components(), {64, 64}, {0, 1}, Schedule{}, 1e8).valid());
}

TEST(Scheduler, CommunicationAcrossSitesCountsInTheDayTime) {
  AppModel m = two_components();
  m.components[1].couplings_per_day = 10;
  m.components[1].bytes_per_coupling = 1e6;
  m.wan_latency = 0;
  // y on the other site: 10 couplings x 2 messages x 8e6 bit / 1e6 bit/s = 160 s more.
  EXPECT_DOUBLE_EQ(day_seconds(m, {8, 4}, {0, 1}, 1e6), 12.5 + 160);
  // So y stays with x at this bandwidth: x 4 + y 4 on site 0 give 25 s.
  const Schedule s = best_schedule(m, {4, 4}, {8, 4}, Schedule{}, 1e6);
  EXPECT_EQ(s.site, (std::vector<int>{0, 0}));
}

AppModel one_component(double restart_bytes) {
  AppModel m;
  m.components = {{"x", 0, 800, 0, 0, restart_bytes}};
  return m;
}

TEST(Scheduler, MovingRestartFilesCanOutweighAFasterSite) {
  // Sites of 16 and 8; the files are on site 1. On 16: 50 s/day, on 8: 100 s/day; 30 planned
  // days: 1500 s against 3000 s, plus the move on 1e6 bit/s.
  Schedule previous;
  previous.procs = {8};
  previous.site = {1};
  // 1e9 bytes: 8000 s to move, so it stays (3000 < 9500).
  Schedule s = best_schedule(one_component(1e9), {8}, {16, 8}, previous, 1e6);
  EXPECT_EQ(s.site, (std::vector<int>{1}));
  EXPECT_EQ(s.move_seconds, 0);
  // 1e6 bytes: 8 s to move, so it moves (1508 < 3000).
  s = best_schedule(one_component(1e6), {8}, {16, 8}, previous, 1e6);
  EXPECT_EQ(s.site, (std::vector<int>{0}));
  EXPECT_EQ(s.procs, (std::vector<int>{16}));
  EXPECT_DOUBLE_EQ(s.move_seconds, 8);
}

TEST(Execution, AnActivationRemapsWithTheRestartCost) {
  // Queue 0 (8 processors) is active over [0, 1000), queue 1 (16) over [400, 1000).
  //   0-400: x on 8 at 100 s/day: 4 days (the first start has no restart).
  //   400: remap to queue 1, 16 processors, 50 s/day; restart 60 s + move 1e6 B x 8 / 1e8 bit/s
  //        = 0.08 s; then (600 - 60.08) / 50 = 10.7984 days.
  ExecutionSpec spec;
  spec.model = one_component(1e6);
  spec.requests = {8, 16};
  spec.runs = {{{1, 0, 0, 1000}}, {{1, 0, 400, 1000}}};
  spec.base = {8};
  spec.bandwidth = 1e8;
  spec.horizon = 1000;
  std::vector<Event> events;
  const ExecutionResult r = execute(spec, &events);
  EXPECT_NEAR(r.simulated_days, 4 + (600 - 60.08) / 50, 1e-9);
  EXPECT_EQ(r.reschedulings, 2);
  EXPECT_NEAR(r.restart_seconds, 60.08, 1e-9);
  EXPECT_NEAR(r.rar, (8 * 400 + 24 * 600) / 1000.0, 1e-9);
  EXPECT_NEAR(r.days_per_day, r.simulated_days / (1000 / 86400.0), 1e-6);

  testing::TempDir dir;
  write_events(dir / "events.jsonl", events);
  const auto back = read_events(dir / "events.jsonl");
  std::vector<Event> remaps;
  for (const Event& e : back) {
    if (e.event == "remap") remaps.push_back(e);
  }
  ASSERT_EQ(remaps.size(), 2u);
  EXPECT_EQ(remaps[0].t, 0);
  EXPECT_EQ(remaps[0].detail["restart_seconds"].get<double>(), 0);
  EXPECT_EQ(remaps[1].t, 400);
  EXPECT_EQ(remaps[1].detail["site"], nlohmann::json::array({1}));
  EXPECT_EQ(remaps[1].detail["procs"], nlohmann::json::array({16}));
  EXPECT_NEAR(remaps[1].detail["restart_seconds"].get<double>(), 60.08, 1e-9);
  EXPECT_EQ(remaps[1].detail["active"], nlohmann::json::array({0, 1}));
}

TEST(Execution, AKillRemapsOntoTheQueuesLeftAndIdlesWhenNoneIs) {
  // Queue 1 is killed at 600 (its limit); queue 0 is left, then nothing from 800.
  ExecutionSpec spec;
  spec.model = one_component(0);
  spec.requests = {8, 16};
  spec.runs = {{{1, 0, 0, 800}}, {{1, 0, 0, 600}, {2, 600, -1, -1}}};
  spec.base = {8};
  spec.horizon = 1000;
  std::vector<Event> events;
  execute(spec, &events);
  std::vector<std::string> kinds;
  for (const Event& e : events) {
    if (e.t == 600 || e.t == 800) kinds.push_back(e.event + std::to_string(e.queue));
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"kill1", "submit1", "remap-1", "kill0", "idle-1"}));
}

std::vector<QueueConfig> queues_of(const std::vector<int>& sizes) {
  std::vector<QueueConfig> qs;
  for (int size : sizes) qs.push_back({size, sim::Discipline::kFcfs, {1, 0, 0, 0, 0}, ""});
  return qs;
}

TEST(Grid, MultipleBatchRequestsKeepEveryProcessorOfTheBaseAllocation) {
  // Base 256 + 128 + 32 + 8 = 424 on queues of 512, 64, 32 and 32. One component a queue,
  // largest first: 256 on the 512; 128 fits in no other queue, so it joins the 512 (most room);
  // 32 goes to the 64, 8 to the first 32. Cutting 128 down to the 64's size would lose
  // processors the single execution has ("without increasing the number of processors", not
  // decreasing it either).
  EXPECT_EQ(split_request({32, 256, 8, 128}, queues_of({512, 64, 32, 32})),
            (std::vector<int>{384, 32, 8, 0}));
  // Queues that hold their components: one component each, largest to largest.
  EXPECT_EQ(split_request({64, 32, 16, 8}, queues_of({32, 128, 64, 32})),
            (std::vector<int>{16, 64, 32, 8}));
}

TEST(Grid, TheRequestIsTheSingleSystemBestScheduleOnTheLargestQueue) {
  // Section 4.1 draws no request; section 3.2 evaluates all valid allocations on the largest
  // queue, and that best schedule is what the single execution runs (and so asks for).
  GridSpec defaults;
  for (std::uint64_t seed = 1; seed <= 20; ++seed)
    EXPECT_EQ(random_grid(seed, defaults).request, 0);
  GridSpec g;
  g.queues = queues_of({64, 32});
  g.horizon = 86400;
  g.bandwidths = {1e8};
  const Comparison c = compare(g, nullptr, nullptr);
  const Schedule best = best_single(g.model, 64);
  EXPECT_EQ(c.base, best.procs);
  int total = 0;
  for (int p : best.procs) total += p;
  EXPECT_EQ(c.request, total);
  EXPECT_LE(c.request, 64);
  EXPECT_GT(c.request, 32);
}

TEST(Swf, GeneratedRecordsReadBackExactly) {
  testing::TempDir dir;
  sim::SwfRecord r;
  r.job = 3;
  r.submit = 12.5;
  r.run = 0.1;
  r.procs = r.req_procs = 16;
  r.status = 1;
  const std::string path = dir / "x.swf";
  std::ofstream(path) << sim::swf_header({{"Version", "2.2"}, {"MaxProcs", "64"}})
                      << sim::swf_line(r) << "\n";
  sim::SwfReader reader(path);
  EXPECT_EQ(reader.header().max_procs, 64);
  sim::SwfRecord back;
  ASSERT_TRUE(reader.next(back));
  EXPECT_EQ(back.job, 3);
  EXPECT_EQ(back.submit, 12.5);
  EXPECT_EQ(back.run, 0.1);
  EXPECT_EQ(back.procs, 16);
  EXPECT_EQ(back.status, 1);
  EXPECT_THROW(sim::swf_header({{"Bad key", "x"}}), std::invalid_argument);
}

TEST(Execution, AKillWhoseSuccessorStartsAtOnceStillRestarts) {
  // One queue of 8, limit 400: submission 1 runs [0, 400), is killed, and submission 2 starts at
  // once in the empty queue, [400, 1000). The application's run ended at the kill, so it dumps
  // and restarts there (section 2) although the active set is the same before and after:
  //   0-400: 4 days at 100 s/day (the first start has no restart);
  //   400: remap onto the same queue, restart 60 s, no move; then (600 - 60) / 100 = 5.4 days.
  ExecutionSpec spec;
  spec.model = one_component(1e6);
  spec.requests = {8};
  spec.runs = {{{1, 0, 0, 400}, {2, 400, 400, 1000}}};
  spec.base = {8};
  spec.bandwidth = 1e8;
  spec.horizon = 1000;
  std::vector<Event> events;
  const ExecutionResult r = execute(spec, &events);
  EXPECT_EQ(r.reschedulings, 2);
  EXPECT_NEAR(r.restart_seconds, 60, 1e-9);
  EXPECT_NEAR(r.simulated_days, 4 + (600 - 60) / 100.0, 1e-9);
  EXPECT_NEAR(r.rar, 8.0, 1e-9);
  std::vector<std::string> at_kill;
  for (const Event& e : events) {
    if (e.t == 400) at_kill.push_back(e.event + std::to_string(e.queue));
  }
  EXPECT_EQ(at_kill, (std::vector<std::string>{"kill0", "submit0", "activate0", "remap-1"}));
}

}  // namespace
}  // namespace mcb::batchgrid
