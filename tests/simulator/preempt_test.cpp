// A running job suspended by Sim::preempt gives its processors back, its departure is
// cancelled, and it resumes at the head of its queue for the time it had left (the engine's
// support for a hibernated co-allocated part woken by preemption, seed 004), under FCFS, EASY
// (whose copy of the queue follows the suspension and a start from behind the head) and
// conservative backfilling.
#include "scenario.hpp"

#include "simulator/placement.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace mcb::sim::test {
namespace {

/// One queue on one cluster; the job with id 1 starts at once on arrival, preempting the
/// running job with id 0 if it must; the others start as the discipline says.
class PreemptPolicy final : public Policy {
 public:
  std::string_view name() const override { return "preempt"; }
  int queue_count() const override { return 1; }
  std::string queue_name(int /*q*/) const override { return "q"; }
  void admit(Job& job, const MachineSpec& /*machine*/, Rng& /*rng*/) const override {
    job.queue = 0;
  }
  void on_arrival(int /*q*/, bool /*backfilling*/) override {}
  void on_departure() override {}
  void schedule(Sim& sim) override {
    for (JobId id = sim.queue(0).front(); id != kNoJob; id = sim.job(id).next) {
      if (sim.job(id).id != 1) continue;
      for (const JobId r : sim.running()) {
        if (sim.job(r).id == 0) {
          sim.preempt(r);
          EXPECT_THROW(sim.preempt(r), std::logic_error);  // no longer running
          break;
        }
      }
      const std::vector<int> alloc = {sim.job(id).req.total};
      sim.start(id, alloc);
      break;
    }
    while (sim.try_start(0)) {
    }
  }
};

Capture run_preempt(const std::string& queue, std::vector<Spec> jobs) {
  Sim sim(parse_clusters("1x4"), std::make_unique<PreemptPolicy>(), make_discipline(queue),
          make_placement("wf"), ServiceModel(1.0, 1.0), RunLimits{});
  VectorSource source(std::move(jobs));
  Capture capture;
  sim.run(source, capture);
  return capture;
}

// Job 0 (4 processors, 20 s) runs from 0; job 1 (4 processors, 10 s) arrives at 5 and
// preempts it. Job 0's departure at 20 is cancelled; it resumes at 15 with 15 s left and
// ends at 30. Job 2 (1 processor, 1 s, arrived at 6) queues behind it: no hole before 30.
TEST(Preempt, SuspendedJobResumesAtTheHeadWithItsRemainingTime) {
  for (const std::string queue : {"fcfs", "easy", "cons"}) {
    const auto c = run_preempt(queue, {{0, 0, {4}, 20}, {1, 5, {4}, 10}, {2, 6, {1}, 1}});
    ASSERT_EQ(c.jobs.size(), 3u) << queue;
    EXPECT_EQ(c.jobs.at(1).start, 5) << queue;
    EXPECT_EQ(c.jobs.at(1).end, 15) << queue;
    EXPECT_EQ(c.jobs.at(0).start, 15) << queue;  // the resumed run
    EXPECT_EQ(c.jobs.at(0).end, 30) << queue;
    EXPECT_EQ(c.jobs.at(0).service, 15) << queue;
    EXPECT_EQ(c.jobs.at(2).start, 30) << queue;
    EXPECT_EQ(c.order, (std::vector<std::int64_t>{0, 1, 0, 2})) << queue;
  }
}

}  // namespace
}  // namespace mcb::sim::test
