// PBS Professional / OpenPBS behind the batch-queue interface: qsub with a select statement,
// qstat -f (-x for ended jobs), qdel, qhold/qrls, qsig -s suspend|resume, qrerun, pbsnodes.
// No PBS runs on this machine: the unit tests check the command lines and read captured outputs
// of the documented formats. PBS has no start estimate for a request not yet submitted.
#include "common/errors.hpp"
#include "jobscripts/queue.hpp"
#include "jobscripts/queue_parse.hpp"
#include "jobscripts/shell.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace mcb::campaign {
namespace parse {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

int count_of(const std::string& value, const std::string& what) {
  try {
    std::size_t used = 0;
    const int n = std::stoi(value, &used);
    if (used == value.size() && n >= 0) return n;
  } catch (const std::exception&) {
  }
  throw std::runtime_error(what + " '" + value + "' is not a count");
}

// "n1/0*2+n2/0*2" (PBS Pro) or "n1/0+n1/1+n2/0" (Torque): the hosts, each once.
std::vector<std::string> exec_hosts(const std::string& value) {
  std::vector<std::string> hosts;
  std::istringstream in(value);
  std::string chunk;
  while (std::getline(in, chunk, '+')) {
    const std::string host = trim(chunk.substr(0, chunk.find('/')));
    if (!host.empty() && std::find(hosts.begin(), hosts.end(), host) == hosts.end()) {
      hosts.push_back(host);
    }
  }
  return hosts;
}

}  // namespace

std::vector<PbsJob> pbs_jobs(const std::string& text) {
  // "Job Id: 12.server", then "    key = value" lines; a long value goes on over lines that
  // start with a tab.
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<PbsJob> jobs;
  const auto finish = [&] {
    if (jobs.empty()) return;
    PbsJob& job = jobs.back();
    for (const auto& [key, value] : fields) {
      if (key == "job_state") job.state = value;
      if (key == "Resource_List.ncpus") job.ncpus = count_of(value, "Resource_List.ncpus");
      if (key == "exec_host") job.nodes = exec_hosts(value);
      if (key == "Exit_status") {
        try {
          job.exit_status = std::stoi(value);
        } catch (const std::exception&) {
          throw std::runtime_error("Exit_status '" + value + "' is not a number");
        }
      }
      if (key == "comment") job.comment = value;
    }
    if (job.state.empty()) throw std::runtime_error("job " + job.id + " has no job_state");
    fields.clear();
  };
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Job Id:", 0) == 0) {
      finish();
      jobs.emplace_back();
      jobs.back().id = trim(line.substr(7));
    } else if (!line.empty() && line[0] == '\t' && !fields.empty()) {
      fields.back().second += trim(line);
    } else if (const auto eq = line.find(" = "); eq != std::string::npos && !jobs.empty()) {
      fields.emplace_back(trim(line.substr(0, eq)), trim(line.substr(eq + 3)));
    } else if (!trim(line).empty()) {
      throw std::runtime_error("qstat -f line '" + line + "' is not 'key = value'");
    }
  }
  finish();
  return jobs;
}

JobStatus pbs_status(const PbsJob& job) {
  JobStatus s;
  s.state = job.state;
  s.nodes = job.nodes;
  s.reason = job.comment;
  if (job.state == "R" || job.state == "E" || job.state == "B") {
    s.phase = JobPhase::running;
  } else if (job.state == "S" || job.state == "U") {
    s.phase = JobPhase::suspended;
  } else if (job.state == "F" || job.state == "X" || job.state == "C") {
    const bool ok = job.exit_status.value_or(-1) == 0;
    s.phase = ok ? JobPhase::done : JobPhase::failed;
    if (!ok) {
      s.reason = job.exit_status ? "Exit_status " + std::to_string(*job.exit_status)
                                 : "ended without an exit status";
      if (!job.comment.empty()) s.reason += " (" + job.comment + ")";
    }
  } else {
    s.phase = JobPhase::pending;  // Q, W (waiting for its start time), T (moving), M, H
    s.held = job.state == "H";
  }
  return s;
}

QueueState pbs_queue(const std::vector<PbsJob>& jobs) {
  QueueState q;
  for (const PbsJob& job : jobs) {
    const JobStatus s = pbs_status(job);
    count_job(q, s, job.ncpus);
  }
  return q;
}

int pbs_total_processors(const std::string& text) {
  // Node blocks: the name alone on a line, then indented "key = value" lines.
  int total = 0;
  int ncpus = 0;
  bool usable = true;
  bool any = false;
  const auto finish = [&] {
    if (any && usable) total += ncpus;
    ncpus = 0;
    usable = true;
  };
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty()) continue;
    if (line[0] != ' ' && line[0] != '\t') {
      finish();
      any = true;
      continue;
    }
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    const std::string key = trim(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 3));
    if (key == "state") {
      usable = value.find("down") == std::string::npos &&
               value.find("offline") == std::string::npos &&
               value.find("unknown") == std::string::npos;
    }
    if (key == "resources_available.ncpus") ncpus = count_of(value, key);
  }
  finish();
  if (!any) throw std::runtime_error("pbsnodes listed no node");
  return total;
}

}  // namespace parse

namespace {

class PbsQueue : public BatchQueue {
 public:
  using BatchQueue::BatchQueue;

  std::string submit(const JobRequest& r) override {
    check_request(r);
    const std::string procs = std::to_string(r.processors);
    std::vector<std::string> argv = {"qsub",
                                     "-N",
                                     plain_name(r.name, 15),
                                     "-l",
                                     "select=1:ncpus=" + procs + ":mpiprocs=" + procs,
                                     "-l",
                                     "walltime=" + parse::hms(r.time_limit_s),
                                     "-o",
                                     r.output.empty() ? "/dev/null" : r.output,
                                     "-r",
                                     "y",
                                     "-V"};
    if (r.error.empty()) {
      argv.insert(argv.end(), {"-j", "oe"});
    } else {
      argv.insert(argv.end(), {"-e", r.error});
    }
    if (r.hold) argv.insert(argv.end(), {"-h"});
    const std::string& queue = setting("queue", "");
    if (!queue.empty()) argv.insert(argv.end(), {"-q", queue});
    // PBS Pro starts a job in the home folder and has no option for another: the job's command
    // changes to it first ($0 of the sh -c line).
    argv.insert(argv.end(),
                {"--", "/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", r.workdir, r.script});
    argv.insert(argv.end(), r.args.begin(), r.args.end());
    std::string id = output_of(argv, r.env, r.workdir);
    id = id.substr(0, id.find('\n'));
    if (id.empty() || id.find_first_of("0123456789") != 0) {
      throw std::runtime_error(name() + ": qsub printed no job id: '" + id + "'");
    }
    return id;
  }

  JobStatus status(const std::string& id) override {
    const std::vector<parse::PbsJob> jobs = parse::pbs_jobs(output_of({"qstat", "-x", "-f", id}));
    if (jobs.empty()) throw std::runtime_error(name() + ": qstat -x -f " + id + " listed no job");
    return parse::pbs_status(jobs.front());
  }

  void cancel(const std::string& id) override { output_of({"qdel", id}); }

  QueueState queue_state() override {
    QueueState q = parse::pbs_queue(parse::pbs_jobs(output_of({"qstat", "-f"})));
    q.total_processors = parse::pbs_total_processors(output_of({"pbsnodes", "-a"}));
    return q;
  }

  StartEstimate start_estimate(int, double) override {
    StartEstimate e;
    e.source = "none: PBS estimates start times only for queued jobs (qstat -T)";
    return e;
  }

  bool supports(Operation) const override { return true; }

 protected:
  void control(Operation operation, const std::string& id) override {
    switch (operation) {
      case Operation::hold:
        output_of({"qhold", id});
        break;
      case Operation::release:
        output_of({"qrls", id});
        break;
      case Operation::suspend:
        output_of({"qsig", "-s", "suspend", id});
        break;
      case Operation::resume:
        output_of({"qsig", "-s", "resume", id});
        break;
      case Operation::requeue:
        output_of({"qrerun", id});
        break;
    }
  }
};

}  // namespace

std::unique_ptr<BatchQueue> make_pbs_queue(const QueueConfig& config, CommandRunner runner) {
  if (!runner) runner = system_runner({"PBS_"});
  return std::make_unique<PbsQueue>(config, std::move(runner));
}

}  // namespace mcb::campaign
