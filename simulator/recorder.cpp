#include "simulator/recorder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mcb::sim {

const std::vector<std::string> kJobsCsvColumns = {
    "id",       "app",      "submit",           "start",       "end",
    "wait",     "response", "bounded_slowdown", "total_size",  "components",
    "clusters", "queue",    "service",          "net_service", "requested",
    "reserved", "measured", "replication"};

std::string format_number(double v) { return csv::exact(v); }

namespace {

nlohmann::json number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

// The documents below are built key by key: an initializer list makes each key and value a
// two-element array first, and a short run paid for that in its fixed cost.
nlohmann::json times(const Moments& m, double median, double p95, const Interval* ci) {
  nlohmann::json j = nlohmann::json::object();
  j["mean"] = number(m.mean());
  j["median"] = number(m.count ? median : NAN);
  j["p95"] = number(m.count ? p95 : NAN);
  j["min"] = number(m.count ? m.min : NAN);
  j["max"] = number(m.count ? m.max : NAN);
  if (ci) {
    j["ci95"] = std::isfinite(ci->half_width)
                    ? nlohmann::json::array({m.mean() - ci->half_width, m.mean() + ci->half_width})
                    : nlohmann::json(nullptr);
    j["ci95_half_width"] = number(ci->half_width);
    j["ci_method"] = "batch-means";
    j["ci_batches"] = ci->samples;
  }
  return j;
}

}  // namespace

nlohmann::json RunSummary::to_json(const std::vector<std::string>& queue_names,
                                   double bsld_threshold) const {
  nlohmann::json out = nlohmann::json::object();
  nlohmann::json& jobs = out["jobs"];
  jobs["arrived"] = arrived;
  jobs["warmup"] = warmup;
  jobs["measured"] = measured;
  jobs["completed"] = completed;
  jobs["measured_completed"] = measured_completed;
  jobs["max_in_system"] = max_in_system;
  out["window"]["start"] = window_start;
  out["window"]["end"] = window_end;
  out["makespan"] = number(makespan);
  out["response"] = times(response, response_median, response_p95, &response_ci);
  out["wait"] = times(wait, wait_median, wait_p95, &wait_ci);
  out["bounded_slowdown"] = times(bsld, bsld_median, bsld_p95, nullptr);
  out["bounded_slowdown"]["threshold"] = bsld_threshold;
  out["quantiles_exact"] = quantiles_exact;
  nlohmann::json& utilization = out["utilization"];
  utilization["gross"] = number(gross_utilization);
  utilization["net"] = number(net_utilization);
  utilization["over"] = "arrival window";
  utilization["makespan_gross"] = number(makespan_gross_utilization);
  utilization["makespan_net"] = number(makespan_net_utilization);
  out["throughput"] = number(throughput);
  nlohmann::json& queues = out["max_queue_length"] = nlohmann::json::object();
  queues["total"] = max_waiting;
  for (size_t q = 0; q < max_queue.size() && q < queue_names.size(); ++q) {
    queues[queue_names[q]] = max_queue[q];
  }
  out["waiting_at_start"] = waiting_at_start;
  out["waiting_at_end"] = waiting_at_end;
  out["saturated"] = saturated;
  out["stopped_early"] = stopped_early;
  return out;
}

Recorder::Recorder(RecorderConfig config, std::ostream* jobs_csv)
    : config_(std::move(config)),
      queue_len_(config_.queue_names.size()),
      response_b_(config_.batches),
      wait_b_(config_.batches) {
  s_.max_queue.assign(config_.queue_names.size(), 0);
  for (Quantiles* q : {&response_q_, &wait_q_, &bsld_q_}) q->reserve(config_.expected_jobs);
  if (jobs_csv) {
    csv_.emplace(*jobs_csv, kJobsCsvColumns);
    for (const std::string& name : config_.app_names) app_fields_.emplace_back(name);
    for (const std::string& name : config_.queue_names) queue_fields_.emplace_back(name);
  }
}

void Recorder::integrate(Time now) {
  const double dt = now - last_;
  const double gross = dt * static_cast<double>(busy_);
  const double net = dt * (static_cast<double>(busy_) - net_loss_);
  if (open_ && !closed_) {
    gross_area_ += gross;
    net_area_ += net;
  }
  run_gross_area_ += gross;
  run_net_area_ += net;
  last_ = now;
}

void Recorder::on_arrival(const Job& job, const Sim& sim) {
  integrate(sim.now());
  if (!started_) {
    started_ = true;
    s_.first_arrival = sim.now();
  }
  ++s_.arrived;
  if (job.measured) {
    ++s_.measured;
    if (!open_) {
      open_ = true;
      s_.window_start = sim.now();
      s_.waiting_at_start = waiting_;  // before this job joins
    }
  } else {
    ++s_.warmup;
  }
  ++queue_len_[static_cast<size_t>(job.queue)];
  ++waiting_;
  if (open_ && !closed_) {
    s_.max_queue[static_cast<size_t>(job.queue)] = std::max(
        s_.max_queue[static_cast<size_t>(job.queue)], queue_len_[static_cast<size_t>(job.queue)]);
    s_.max_waiting = std::max(s_.max_waiting, waiting_);
  }
}

void Recorder::on_start(const Job& job, const Sim& sim) {
  integrate(sim.now());
  --queue_len_[static_cast<size_t>(job.queue)];
  --waiting_;
  busy_ += job.held;
  if (job.service > 0 && job.net_service != job.service) {
    net_loss_ += job.held * (1.0 - job.net_service / job.service);
  }
}

void Recorder::on_departure(const Job& job, const Sim& sim) {
  integrate(sim.now());
  busy_ -= job.held;
  if (job.service > 0 && job.net_service != job.service) {
    net_loss_ -= job.held * (1.0 - job.net_service / job.service);
  }
  if (busy_ == 0) net_loss_ = 0;  // no drift across idle periods
  ++s_.completed;
  if (open_ && !closed_) ++departures_in_window_;
  if (job.measured) {
    ++s_.measured_completed;
    const double response = job.end - job.submit;
    const double wait = job.start - job.submit;
    const double bsld = std::max(1.0, response / std::max(job.service, config_.bsld_threshold));
    s_.response.add(response);
    s_.wait.add(wait);
    s_.bsld.add(bsld);
    response_q_.add(response);
    wait_q_.add(wait);
    bsld_q_.add(bsld);
    response_b_.add(response);
    wait_b_.add(wait);
  }
  if (csv_) write_line(job, sim);
}

void Recorder::on_arrivals_end(const Sim& sim) {
  integrate(sim.now());
  if (!open_) {  // every job was in the warm-up
    open_ = true;
    s_.window_start = sim.now();
    s_.waiting_at_start = sim.waiting();
  }
  closed_ = true;
  s_.window_end = sim.now();
  s_.waiting_at_end = sim.waiting();
}

RunSummary Recorder::finish(const RunEnd& end) {
  if (csv_) csv_->flush();
  s_.stopped_early = end.stopped_early;
  s_.max_in_system = end.max_in_system;
  const double span = s_.window_end - s_.window_start;
  s_.response_median = response_q_.quantile(0.5);
  s_.response_p95 = response_q_.quantile(0.95);
  s_.wait_median = wait_q_.quantile(0.5);
  s_.wait_p95 = wait_q_.quantile(0.95);
  s_.bsld_median = bsld_q_.quantile(0.5);
  s_.bsld_p95 = bsld_q_.quantile(0.95);
  s_.quantiles_exact = response_q_.exact();
  s_.response_ci = response_b_.interval();
  s_.wait_ci = wait_b_.interval();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double capacity = static_cast<double>(config_.capacity);
  s_.gross_utilization = span > 0 ? gross_area_ / (span * capacity) : nan;
  s_.net_utilization = span > 0 ? net_area_ / (span * capacity) : nan;
  s_.throughput = span > 0 ? static_cast<double>(departures_in_window_) / span : nan;
  integrate(end.time);
  s_.makespan = end.time - s_.first_arrival;
  s_.makespan_gross_utilization =
      s_.makespan > 0 ? run_gross_area_ / (s_.makespan * capacity) : nan;
  s_.makespan_net_utilization = s_.makespan > 0 ? run_net_area_ / (s_.makespan * capacity) : nan;
  const double backlog_limit =
      std::max(static_cast<double>(config_.saturation_floor),
               config_.saturation_backlog * static_cast<double>(s_.measured));
  const double growth =
      static_cast<double>(s_.waiting_at_end) - static_cast<double>(s_.waiting_at_start);
  s_.saturated = s_.stopped_early || growth > backlog_limit;
  return s_;
}

void Recorder::write_line(const Job& job, const Sim& /*sim*/) {
  // Field by field into one reused line: this table has a line per job.
  csv::StreamWriter& w = *csv_;
  w.integer(job.id).text(app_fields_[static_cast<size_t>(job.app)]);
  for (double v :
       {job.submit, job.start, job.end, job.start - job.submit, job.end - job.submit,
        std::max(1.0, (job.end - job.submit) / std::max(job.service, config_.bsld_threshold))}) {
    w.exact(v);
  }
  w.integer(job.held).integer(job.components_run).counts(job.alloc);  // "0:64;2:16"
  w.text(queue_fields_[static_cast<size_t>(job.queue)]);
  w.exact(job.service).exact(job.net_service).exact(job.expected_end - job.start);
  if (job.first_reservation != kNever) {
    w.exact(job.first_reservation);
  } else {
    w.empty();
  }
  w.integer(job.measured ? 1 : 0).integer(config_.replication);
  w.end_row();
}

}  // namespace mcb::sim
