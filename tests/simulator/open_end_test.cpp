// A job started with an open end holds its processors, has no departure until close_end sets
// its end, and a job that was not started open cannot be closed (the engine's support for a
// co-allocated part that waits for its partner, seed 004). Under conservative backfilling a
// holder past its planned end keeps its processors in the plan.
#include "scenario.hpp"

#include "simulator/placement.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace mcb::sim::test {
namespace {

/// One FCFS queue on one cluster; the job with id 0 starts open-ended, the next job to start
/// closes it to end 5 s later.
class OpenEndPolicy final : public Policy {
 public:
  std::string_view name() const override { return "open-end"; }
  int queue_count() const override { return 1; }
  std::string queue_name(int /*q*/) const override { return "q"; }
  void admit(Job& job, const MachineSpec& /*machine*/, Rng& /*rng*/) const override {
    job.queue = 0;
  }
  void on_arrival(int /*q*/, bool /*backfilling*/) override {}
  void on_departure() override {}
  void schedule(Sim& sim) override {
    while (!sim.queue(0).empty()) {
      const JobId id = sim.queue(0).front();
      const Job& j = sim.job(id);
      if (sim.machine().idle(0) < j.req.total) return;
      const std::vector<int> alloc = {j.req.total};
      const bool open = j.id == 0;
      sim.start(id, alloc, open);
      if (open) {
        held = id;
        EXPECT_EQ(sim.job(id).end, kNever);
      } else if (held != kNoJob) {
        EXPECT_THROW(sim.close_end(id, 1), std::logic_error);
        sim.close_end(held, 5);
        held = kNoJob;
      }
    }
  }
  JobId held = kNoJob;
};

Capture run_open(std::vector<Spec> jobs, RunEnd* end = nullptr) {
  Sim sim(parse_clusters("1x4"), std::make_unique<OpenEndPolicy>(), make_discipline("fcfs"),
          make_placement("wf"), ServiceModel(1.0, 1.0), RunLimits{});
  VectorSource source(std::move(jobs));
  Capture capture;
  const RunEnd e = sim.run(source, capture);
  if (end != nullptr) *end = e;
  return capture;
}

TEST(OpenEnd, HeldUntilClosedThenEndsAfterTheRemainingTime) {
  const auto c = run_open({{0, 0, {2}, 100}, {1, 7, {2}, 10}, {2, 8, {4}, 1}});
  ASSERT_EQ(c.jobs.size(), 3u);
  EXPECT_EQ(c.jobs.at(0).start, 0);
  EXPECT_EQ(c.jobs.at(0).end, 12);  // closed at 7, 5 s to go
  EXPECT_EQ(c.jobs.at(0).service, 12);
  EXPECT_EQ(c.jobs.at(1).end, 17);
  EXPECT_EQ(c.jobs.at(2).start, 17);  // all 4 processors: after both
}

TEST(OpenEnd, NeverClosedNeverDeparts) {
  RunEnd end;
  const auto c = run_open({{0, 3, {2}, 100}}, &end);
  EXPECT_TRUE(c.jobs.empty());
  EXPECT_EQ(c.order.size(), 1u);
  EXPECT_EQ(end.time, 3);
}

/// One queue on one cluster whose jobs start as the discipline selects them; the job with id 0
/// starts open-ended, and the job with id @p closer (if any) closes it to end 5 s later.
class PlannedOpenEndPolicy final : public Policy {
 public:
  explicit PlannedOpenEndPolicy(std::int64_t closer) : closer_(closer) {}
  std::string_view name() const override { return "planned-open-end"; }
  int queue_count() const override { return 1; }
  std::string queue_name(int /*q*/) const override { return "q"; }
  void admit(Job& job, const MachineSpec& /*machine*/, Rng& /*rng*/) const override {
    job.queue = 0;
  }
  void on_arrival(int /*q*/, bool /*backfilling*/) override {}
  void on_departure() override {}
  void schedule(Sim& sim) override {
    std::vector<int> alloc(1);
    JobId id = kNoJob;
    while (!sim.queue(0).empty() && sim.discipline().select(sim, 0, id, alloc)) {
      const bool open = sim.job(id).id == 0;
      const bool closes = sim.job(id).id == closer_;
      sim.start(id, alloc, open);
      if (open) held_ = id;
      if (closes && held_ != kNoJob) sim.close_end(held_, 5);
    }
  }

 private:
  std::int64_t closer_;
  JobId held_ = kNoJob;
};

Capture run_planned(std::vector<Spec> jobs, std::int64_t closer, RunEnd& end) {
  Sim sim(parse_clusters("1x4"), std::make_unique<PlannedOpenEndPolicy>(closer),
          make_discipline("cons"), make_placement("wf"), ServiceModel(1.0, 1.0), RunLimits{});
  VectorSource source(std::move(jobs));
  Capture capture;
  end = sim.run(source, capture);
  return capture;
}

// Job 0 holds 1 of 4 processors from 0, planned until 10, and is never closed; jobs 1 and 2
// need all 4. Planned with job 0 gone at 10, they were reserved at 10 and 20, could not start
// when due, and were planned again one behind the other at every wake-up, for ever. Past 10
// the plan holds job 0's processor: neither job fits, no wake-up is left and the run ends.
TEST(OpenEnd, ConservativeHoldsAnOverrunningHolderAndEnds) {
  RunEnd end;
  const auto c = run_planned(
      {{0, 0, {1}, 1, -1, RequestType::kUnordered, {}, 10}, {1, 1, {4}, 10}, {2, 2, {4}, 10}}, -1,
      end);
  EXPECT_EQ(end.time, 10);
  EXPECT_EQ(c.order, (std::vector<std::int64_t>{0}));
  EXPECT_TRUE(c.jobs.empty());
}

// Job 0 holds 2 of 4 from 0, planned until 10; job 1 (4 processors, 5 s) is reserved at 10,
// job 2 (2, 20 s) at 15 behind it, job 3 (2, 5 s) backfills at 3. At 10 job 0 still holds:
// job 1 has nowhere to go and waits unplaced, job 2 is planned again at 10 beside job 0 and
// starts (it was held back to 15 by job 1's reservation on processors job 0 still held); it
// closes job 0 to end at 15. Job 0's processors come back at 15 and job 1 is planned after
// job 2, at 30.
TEST(OpenEnd, ConservativePlansAroundAnOverrunningHolder) {
  RunEnd end;
  const auto c = run_planned({{0, 0, {2}, 1, -1, RequestType::kUnordered, {}, 10},
                              {1, 1, {4}, 5},
                              {2, 2, {2}, 20},
                              {3, 3, {2}, 5}},
                             2, end);
  ASSERT_EQ(c.jobs.size(), 4u);
  EXPECT_EQ(c.jobs.at(3).start, 3);
  EXPECT_EQ(c.jobs.at(2).reserved, 15);
  EXPECT_EQ(c.jobs.at(2).start, 10);
  EXPECT_EQ(c.jobs.at(0).end, 15);
  EXPECT_EQ(c.jobs.at(1).reserved, 10);
  EXPECT_EQ(c.jobs.at(1).start, 30);
  EXPECT_EQ(end.time, 35);
}

}  // namespace
}  // namespace mcb::sim::test
