// A job started with an open end holds its processors, has no departure until close_end sets
// its end, and a job that was not started open cannot be closed (the engine's support for a
// co-allocated part that waits for its partner, seed 004).
#include "scenario.hpp"

#include "simulator/placement.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

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

}  // namespace
}  // namespace mcb::sim::test
