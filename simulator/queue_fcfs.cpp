/// @file
/// @brief First come, first served (the DAS-2 paper's): only the job at the head of a queue
/// may start, and only if the placement rule fits it on the idle processors now.
#include "simulator/discipline.hpp"
#include "simulator/engine.hpp"

namespace mcb::sim {
namespace {

class Fcfs final : public QueueDiscipline {
 public:
  std::string_view name() const override { return "fcfs"; }
  bool backfilling() const override { return false; }

  bool select(Sim& sim, int q, JobId& id, std::span<int> alloc) override {
    const JobId head = sim.queue(q).front();
    if (head == kNoJob) return false;
    const Job& job = sim.job(head);
    int buf[kMaxClusters];
    const auto avail = sim.avail_now(job, std::span<int>(buf, alloc.size()));
    if (!sim.placement().place(job.req, avail, alloc)) return false;
    id = head;
    return true;
  }
};

}  // namespace

std::unique_ptr<QueueDiscipline> make_fcfs() { return std::make_unique<Fcfs>(); }

}  // namespace mcb::sim
