// Slurm behind the batch-queue interface: sbatch, scontrol, scancel, squeue, sinfo, and
// `sbatch --test-only` for the scheduler's own start estimate. Every command gets the
// instance's SLURM_CONF and none of the caller's SLURM_* variables.
#include "common/errors.hpp"
#include "jobscripts/queue.hpp"
#include "jobscripts/queue_parse.hpp"
#include "jobscripts/shell.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mcb::campaign {
namespace parse {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> fields;
  std::istringstream in(text);
  std::string field;
  while (std::getline(in, field, separator)) fields.push_back(field);
  if (!text.empty() && text.back() == separator) fields.emplace_back();
  return fields;
}

// The value of "Key=" in a `scontrol --oneliner` line: up to the next blank (values of the keys
// read here hold none).
std::string field(const std::string& line, const std::string& key) {
  std::size_t pos = 0;
  while ((pos = line.find(key + "=", pos)) != std::string::npos) {
    if (pos == 0 || line[pos - 1] == ' ') {
      const auto start = pos + key.size() + 1;
      return line.substr(start, line.find(' ', start) - start);
    }
    pos += key.size();
  }
  return "";
}

void add_nodes(JobStatus& status, const std::string& list) {
  if (list.empty() || list == "(null)" || list == "None assigned") return;
  for (std::string& host : expand_hostlist(list)) {
    if (std::find(status.nodes.begin(), status.nodes.end(), host) == status.nodes.end()) {
      status.nodes.push_back(std::move(host));
    }
  }
}

// How a job in STATE stands; COMPLETING is a job that ended and releases its nodes, done or
// failed by its exit code ("0:0" = exit 0, no signal).
void classify(JobStatus& status, const std::string& reason, const std::string& exit_code) {
  static const std::set<std::string> running_states = {"RUNNING", "CONFIGURING", "SIGNALING",
                                                       "STAGE_OUT", "RESIZING"};
  static const std::set<std::string> pending_states = {"PENDING", "REQUEUED", "REQUEUE_FED",
                                                       "REQUEUE_HOLD", "RESV_DEL_HOLD"};
  const std::string& s = status.state;
  if (pending_states.count(s) > 0) {
    status.phase = JobPhase::pending;
    status.held = s == "REQUEUE_HOLD" || s == "RESV_DEL_HOLD" || reason.rfind("JobHeld", 0) == 0;
  } else if (running_states.count(s) > 0) {
    status.phase = JobPhase::running;
  } else if (s == "SUSPENDED" || s == "STOPPED") {
    status.phase = JobPhase::suspended;
  } else if (s == "COMPLETED" || (s == "COMPLETING" && exit_code == "0:0")) {
    status.phase = JobPhase::done;
  } else {
    status.phase = JobPhase::failed;
    if (!exit_code.empty() && exit_code != "0:0") status.reason = "exit code " + exit_code;
  }
  if (status.reason.empty() && !reason.empty() && reason != "None") status.reason = reason;
}

}  // namespace

JobStatus slurm_job(const std::string& text) {
  JobStatus status;
  std::istringstream in(text);
  std::string line;
  std::string reason;
  std::string exit_code;
  while (std::getline(in, line)) {
    if (line.rfind("JobId=", 0) != 0) continue;
    if (status.state.empty()) {
      status.state = field(line, "JobState");
      reason = field(line, "Reason");
      exit_code = field(line, "ExitCode");
    }
    add_nodes(status, field(line, "NodeList"));
  }
  if (status.state.empty()) throw std::runtime_error("no JobState in '" + text + "'");
  classify(status, reason, exit_code);
  return status;
}

JobStatus slurm_accounted_job(const std::string& text) {
  JobStatus status;
  std::istringstream in(text);
  std::string line;
  std::string exit_code;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line, '|');
    if (f.size() < 3 || f[0].empty()) continue;
    if (status.state.empty()) {
      status.state = f[0].substr(0, f[0].find(' '));  // "CANCELLED by 0"
      exit_code = f[2];
    }
    add_nodes(status, f[1]);
  }
  if (status.state.empty()) throw std::runtime_error("no job in '" + text + "'");
  classify(status, "", exit_code);
  return status;
}

QueueState slurm_queue(const std::string& text) {
  QueueState q;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line, '|');
    if (f.size() < 2 || f[0].empty()) continue;
    int cpus = 0;
    try {
      cpus = std::stoi(f[1]);
    } catch (const std::exception&) {
      throw std::runtime_error("squeue line '" + line + "': processors '" + f[1] + "'");
    }
    JobStatus s;
    s.state = f[0];
    classify(s, f.size() > 2 ? f[2] : "", "");
    count_job(q, s, cpus);
  }
  return q;
}

int slurm_total_processors(const std::string& text) {
  const std::vector<std::string> f = split(text.substr(0, text.find('\n')), '/');
  try {
    if (f.size() == 4) return std::stoi(f[3]);
  } catch (const std::exception&) {
  }
  throw std::runtime_error("sinfo printed '" + text + "', not allocated/idle/other/total");
}

double slurm_test_only_start(const std::string& text) {
  const std::string mark = " to start at ";
  const auto pos = text.find(mark);
  if (pos != std::string::npos) {
    const auto start = pos + mark.size();
    const std::string word = text.substr(start, text.find_first_of(" \n", start) - start);
    if (const auto t = local_time(word)) return *t;
  }
  throw std::runtime_error("no start time in '" + text + "'");
}

}  // namespace parse

namespace {

class SlurmQueue : public BatchQueue {
 public:
  using BatchQueue::BatchQueue;

  std::string submit(const JobRequest& r) override {
    check_request(r);
    // Appending: a requeued job's output follows its first run's, as on Grid Engine.
    std::vector<std::string> argv = {"sbatch",
                                     "--parsable",
                                     "--job-name=" + plain_name(r.name),
                                     "--ntasks=" + std::to_string(r.processors),
                                     "--time=" + parse::hms(r.time_limit_s),
                                     "--chdir=" + r.workdir,
                                     "--output=" + (r.output.empty() ? "/dev/null" : r.output),
                                     "--requeue",
                                     "--open-mode=append"};
    if (!r.error.empty()) argv.push_back("--error=" + r.error);
    if (r.hold) argv.emplace_back("--hold");
    const std::string& partition = setting("partition", "");
    if (!partition.empty()) argv.push_back("--partition=" + partition);
    argv.push_back(r.script);
    argv.insert(argv.end(), r.args.begin(), r.args.end());
    // The job gets sbatch's environment (--export=ALL): the request's variables go there, never
    // into --export, whose commas would split values.
    std::string line = output_of(argv, r.env, r.workdir);
    line = line.substr(0, line.find_first_of(";\n"));
    if (line.empty() || line.find_first_not_of("0123456789") != std::string::npos) {
      throw std::runtime_error(name() + ": sbatch printed no job id: '" + line + "'");
    }
    return line;
  }

  JobStatus status(const std::string& id) override {
    const std::vector<std::string> show = {"scontrol", "--oneliner", "show", "job", id};
    const Captured r = run(show);
    if (r.start_error.empty() && !r.timed_out && r.status.success()) {
      return parse::slurm_job(r.out);
    }
    // Slurm forgets an ended job after MinJobAge; its accounting may still know it.
    const std::vector<std::string> acct = {"sacct",        "--noheader",
                                           "--parsable2",  "--allocations",
                                           "--jobs=" + id, "--format=State,NodeList,ExitCode"};
    const Captured a = run(acct);
    if (a.start_error.empty() && !a.timed_out && a.status.success() &&
        a.out.find('|') != std::string::npos) {
      return parse::slurm_accounted_job(a.out);
    }
    fail(show, r);
  }

  void cancel(const std::string& id) override { output_of({"scancel", id}); }

  QueueState queue_state() override {
    QueueState q = parse::slurm_queue(output_of({"squeue", "--noheader", "--format=%T|%C|%r"}));
    q.total_processors =
        parse::slurm_total_processors(output_of({"sinfo", "--noheader", "--format=%C"}));
    return q;
  }

  StartEstimate start_estimate(int processors, double time_limit_s) override {
    std::vector<std::string> argv = {"sbatch",
                                     "--test-only",
                                     "--ntasks=" + std::to_string(processors),
                                     "--time=" + parse::hms(time_limit_s),
                                     "--output=/dev/null",
                                     "--job-name=mcb-estimate"};
    const std::string& partition = setting("partition", "");
    if (!partition.empty()) argv.push_back("--partition=" + partition);
    argv.emplace_back("--wrap=true");
    const Captured r = run(argv, {}, "/");
    StartEstimate e;
    if (!r.start_error.empty() || r.timed_out || !r.status.success()) {
      // A request the system can never run (more processors than it has) has no start.
      e.source = "none: sbatch --test-only refused it: " +
                 (r.err.empty() ? r.status.describe() : r.err.substr(0, r.err.find('\n')));
      return e;
    }
    e.start_time = parse::slurm_test_only_start(r.err + r.out);
    e.source = "sbatch --test-only";
    return e;
  }

  bool supports(Operation) const override { return true; }

 protected:
  void control(Operation operation, const std::string& id) override {
    switch (operation) {
      case Operation::hold:
        output_of({"scontrol", "hold", id});
        break;
      case Operation::release:
        output_of({"scontrol", "release", id});
        break;
      case Operation::suspend:
        output_of({"scontrol", "suspend", id});
        break;
      case Operation::resume:
        output_of({"scontrol", "resume", id});
        break;
      case Operation::requeue:
        requeue_now(id);
        break;
    }
  }

 private:
  // Slurm gives a requeued job a start time two minutes ahead (Reason=BeginTime) once its old
  // run has ended; moved back to now, it may start again at once, as on the other systems.
  // Waits up to 20 s for that start time to appear.
  void requeue_now(const std::string& id) {
    output_of({"scontrol", "requeue", id});
    for (int attempt = 0; attempt < 100; ++attempt) {
      const JobStatus s = status(id);
      // While the old run ends, scontrol already says PENDING but the start time is set after.
      if (s.phase == JobPhase::pending && s.reason == "BeginTime") {
        output_of({"scontrol", "update", "JobId=" + id, "StartTime=now"});
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
};

}  // namespace

std::unique_ptr<BatchQueue> make_slurm_queue(const QueueConfig& config, CommandRunner runner) {
  if (!runner) runner = system_runner({"SLURM_"});
  // Times in the standard format, whatever the caller's SLURM_TIME_FORMAT says.
  QueueConfig with_format = config;
  with_format.env.emplace_back("SLURM_TIME_FORMAT", "standard");
  return std::make_unique<SlurmQueue>(std::move(with_format), std::move(runner));
}

}  // namespace mcb::campaign
