#include "batchgrid/batch_queue.hpp"

#include "common/errors.hpp"
#include "simulator/discipline.hpp"
#include "simulator/engine.hpp"
#include "simulator/placement.hpp"
#include "simulator/policy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mcb::batchgrid {
namespace {

using sim::Job;

// Application jobs have negative ids (-1, -2, ...), external jobs their index + 1.
bool is_app(const Job& job) { return job.id < 0; }

void fill(Job& job, std::int64_t id, double submit, int size, double runtime, double requested) {
  job.id = id;
  job.submit = submit;
  job.req = sim::Request{};
  job.req.type = sim::RequestType::kUnordered;
  job.req.sizes.assign(1, size);
  job.req.total = size;
  job.home = 0;
  job.price = sim::Pricing{};
  job.price.runtime = runtime;
  job.price.requested = requested;
  job.line = 0;
}

/// @brief The external workload merged with the application's submissions, which become known
/// only as the run goes (each one when the previous one starts).
class QueueSource final : public sim::JobSource, public sim::Observer {
 public:
  QueueSource(const QueueSpec& spec, QueueRun& run) : spec_(spec), run_(run) {
    if (spec.app_request > 0 && spec.app_horizon > 0) submit_app(0);
  }

  bool next(Job& job) override {
    if (app_due_ && (next_ >= spec_.jobs.size() || app_submit_ <= spec_.jobs[next_].submit)) {
      take_app(job);
      return true;
    }
    if (next_ >= spec_.jobs.size()) return false;
    const ExternalJob& e = spec_.jobs[next_];
    if (e.size > spec_.size) {
      throw UsageError("queue " + spec_.name + ": job " + std::to_string(next_ + 1) + " needs " +
                       std::to_string(e.size) + " processors; the queue has " +
                       std::to_string(spec_.size));
    }
    // A job past the limit is killed there: it runs the limit.
    const double run = std::min(e.runtime, spec_.limit);
    const double req = std::min(e.requested > 0 ? e.requested : e.runtime, spec_.limit);
    fill(job, static_cast<std::int64_t>(next_) + 1, e.submit, e.size, run, std::max(req, run));
    ++next_;
    return true;
  }

  bool earlier(Job& pending, bool have_pending) override {
    if (!app_due_ || (have_pending && pending.submit <= app_submit_)) return false;
    if (have_pending) {
      // The drawn external job goes back: it is the next one again.
      if (is_app(pending)) return false;
      --next_;
    }
    take_app(pending);
    return true;
  }

  void on_start(const Job& job, const sim::Sim& /*sim*/) override {
    if (!is_app(job)) {
      run_.external_wait_sum += job.start - job.submit;
      return;
    }
    AppSubmission& s = run_.app[static_cast<size_t>(-job.id - 1)];
    s.start = job.start;
    s.end = job.start + spec_.limit;
    // Killed at the limit and resubmitted at that instant.
    if (s.end < spec_.app_horizon) submit_app(s.end);
  }

  void on_departure(const Job& job, const sim::Sim&) override {
    ++run_.simulated_jobs;
    if (is_app(job)) return;
    ++run_.external_done;
    if (spec_.jobs[static_cast<size_t>(job.id - 1)].runtime > spec_.limit) ++run_.external_killed;
  }

 private:
  void submit_app(double t) {
    app_due_ = true;
    app_submit_ = t;
    AppSubmission s;
    s.number = static_cast<int>(run_.app.size()) + 1;
    s.submit = t;
    s.start = s.end = -1;
    run_.app.push_back(s);
  }
  void take_app(Job& job) {
    app_due_ = false;
    fill(job, -static_cast<std::int64_t>(run_.app.size()), app_submit_, spec_.app_request,
         spec_.limit, spec_.limit);
  }

  const QueueSpec& spec_;
  QueueRun& run_;
  size_t next_ = 0;
  bool app_due_ = false;
  double app_submit_ = 0;
};

}  // namespace

QueueRun run_queue(const QueueSpec& spec) {
  if (spec.size <= 0) throw UsageError("queue " + spec.name + ": size must be positive");
  if (spec.app_request > spec.size) {
    throw UsageError("queue " + spec.name + ": the application requests " +
                     std::to_string(spec.app_request) + " processors; the queue has " +
                     std::to_string(spec.size));
  }
  std::unique_ptr<sim::QueueDiscipline> discipline = sim::make_discipline(spec.discipline);
  sim::MachineSpec machine{{spec.size}, {1.0}, {}};
  sim::RunLimits limits;
  limits.max_in_system = ~std::uint64_t{0};
  // Requested times are given for every job (estimate factor 1), and nothing is co-allocated.
  sim::Sim engine(machine, sim::make_policy("ic", 1), std::move(discipline),
                  sim::make_placement("wf"), sim::ServiceModel(1.0, 1.0), limits);
  QueueRun run;
  QueueSource source(spec, run);
  engine.run(source, source);
  return run;
}

}  // namespace mcb::batchgrid
