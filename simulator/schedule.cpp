#include "simulator/schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace mcb::sim {

// Batsim's documented columns (batsim.readthedocs.io, "Jobs" output), metadata last as Batsim
// writes it; readers take the columns by name, so the order is for people comparing files.
const std::vector<std::string> kBatsimColumns = {"job_id",
                                                 "workload_name",
                                                 "profile",
                                                 "submission_time",
                                                 "requested_number_of_resources",
                                                 "requested_time",
                                                 "success",
                                                 "final_state",
                                                 "starting_time",
                                                 "execution_time",
                                                 "finish_time",
                                                 "waiting_time",
                                                 "turnaround_time",
                                                 "stretch",
                                                 "allocated_resources",
                                                 "consumed_energy",
                                                 "metadata"};

ScheduleWriter::ScheduleWriter(ScheduleConfig config, Observer& next, std::ostream* batsim,
                               std::ostream* swf)
    : config_(std::move(config)), next_(next), ids_(config_.cluster_sizes), swf_(swf) {
  if (batsim) batsim_.emplace(*batsim, kBatsimColumns);
}

void ScheduleWriter::on_arrival(const Job& job, const Sim& sim) { next_.on_arrival(job, sim); }

void ScheduleWriter::on_start(const Job& job, const Sim& sim) {
  held_[job.seq] = ids_.take(job.alloc);
  next_.on_start(job, sim);
}

void ScheduleWriter::on_departure(const Job& job, const Sim& sim) {
  const auto held = held_.find(job.seq);
  if (held == held_.end()) throw std::logic_error("schedule: a job departed without a start");
  if (batsim_) write_batsim(job, held->second);
  if (swf_) swf_lines_.emplace_back(job.seq, swf_line(job));
  ids_.give_back(held->second);
  held_.erase(held);
  next_.on_departure(job, sim);
}

void ScheduleWriter::on_arrivals_end(const Sim& sim) { next_.on_arrivals_end(sim); }

void ScheduleWriter::write_batsim(const Job& job, const IntervalSet& procs) {
  const double execution = job.end - job.start;
  const double turnaround = job.end - job.submit;
  std::vector<std::string>& f = fields_;
  f.clear();
  f.push_back(std::to_string(job.id));
  f.push_back(config_.workload_name);
  f.push_back(config_.app_names[static_cast<size_t>(job.app)]);
  f.push_back(csv::exact(job.submit));
  f.push_back(std::to_string(job.req.total));
  f.push_back(csv::exact(job.expected_end - job.start));
  f.push_back("1");  // every simulated job completes within its requested time
  f.push_back("COMPLETED_SUCCESSFULLY");
  f.push_back(csv::exact(job.start));
  f.push_back(csv::exact(execution));
  f.push_back(csv::exact(job.end));
  f.push_back(csv::exact(job.start - job.submit));
  f.push_back(csv::exact(turnaround));
  f.push_back(csv::exact(turnaround / execution));  // 0/0 is empty, x/0 is inf
  f.push_back(interval_text(procs));
  f.push_back("-1");  // Batsim's value when energy is not simulated
  f.push_back("");    // Batsim's default: no user metadata
  batsim_->row(f);
}

// The 18 SWF fields; -1 where the simulation knows nothing (memory, users, think times).
std::string ScheduleWriter::swf_line(const Job& job) {
  int only = -1;  // partition: the one cluster used, or -1 for a co-allocated job
  for (size_t c = 0; c < job.alloc.size(); ++c) {
    if (job.alloc[c] == 0) continue;
    only = only == -1 ? static_cast<int>(c) + 1 : -2;
  }
  const std::string total = std::to_string(job.req.total);
  int held = 0;  // a moldable job may run on fewer processors than it requested
  for (int p : job.alloc) held += p;
  // SWF fields are integers: a scaled pace (--rate, --utilization) gives fractional times.
  const SwfTimes t = swf_whole_times(job.submit, job.start, job.end, job.expected_end);
  rounded_ = rounded_ || t.rounded;
  const std::vector<std::string> fields = {std::to_string(job.id),
                                           std::to_string(t.submit),
                                           std::to_string(t.wait),
                                           std::to_string(t.run),
                                           std::to_string(held),
                                           "-1",
                                           "-1",
                                           total,
                                           std::to_string(t.req_time),
                                           "-1",
                                           "1",
                                           "-1",
                                           "-1",
                                           std::to_string(job.app + 1),
                                           std::to_string(job.queue + 1),
                                           std::to_string(only < 0 ? -1 : only),
                                           "-1",
                                           "-1"};
  std::string line;
  for (const std::string& f : fields) {
    if (!line.empty()) line += ' ';
    line += f;
  }
  return line;
}

void ScheduleWriter::finish() {
  if (!swf_) return;
  std::sort(swf_lines_.begin(), swf_lines_.end());
  SwfScheduleInfo info;
  info.jobs = swf_lines_.size();
  info.cluster_sizes = config_.cluster_sizes;
  info.queue_names = config_.queue_names;
  info.source = config_.source;
  info.origin = config_.origin;
  info.scale = config_.scale;
  info.notes = {"a simulated schedule; partition c is cluster c-1, -1 a job spread over several"};
  for (size_t a = 0; a < config_.app_names.size(); ++a) {
    info.notes.push_back("executable " + std::to_string(a + 1) + " is application " +
                         config_.app_names[a]);
  }
  for (size_t q = 0; q < config_.queue_names.size(); ++q) {
    info.notes.push_back("queue " + std::to_string(q + 1) + " is " + config_.queue_names[q]);
  }
  info.notes.insert(info.notes.end(), config_.notes.begin(), config_.notes.end());
  if (rounded_) {
    info.notes.push_back("times rounded to whole seconds, as SWF fields are integers");
  }
  std::ostream& out = *swf_;
  out << swf_header(swf_schedule_header(info));
  for (const auto& [seq, line] : swf_lines_) out << line << "\n";
}

}  // namespace mcb::sim
