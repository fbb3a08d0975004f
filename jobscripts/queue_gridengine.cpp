// Grid Engine (Son of Grid Engine 8.1, Debian's gridengine packages) behind the batch-queue
// interface, through its commands: qsub -pe <pe> N -l h_rt, qstat (-g t for the hosts of a
// job), qacct for ended jobs, qdel, qhold/qrls, qmod -sj/-usj (suspend). No requeue: see
// why_unsupported().
// The commands rather than DRMAA: DRMAA 1.0 reads SGE_ROOT/SGE_CELL once per process, so one
// process could not talk to two cells. Grid Engine has no start estimate for a new request.
#include "common/errors.hpp"
#include "jobscripts/queue.hpp"
#include "jobscripts/queue_parse.hpp"
#include "jobscripts/shell.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mcb::campaign {
namespace parse {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

bool is_number(const std::string& w) {
  return !w.empty() && w.size() < 10 && w.find_first_not_of("0123456789") == std::string::npos;
}

bool is_date(const std::string& w) {  // MM/DD/YYYY
  return w.size() == 10 && w[2] == '/' && w[5] == '/';
}

void add_host(std::vector<std::string>& nodes, const std::string& queue_instance) {
  const auto at = queue_instance.find('@');
  if (at == std::string::npos) return;
  const std::string host = queue_instance.substr(at + 1);
  if (std::find(nodes.begin(), nodes.end(), host) == nodes.end()) nodes.push_back(host);
}

}  // namespace

std::vector<SgeJob> sge_jobs(const std::string& text) {
  // A job line: id prior name user state date time [queue@host] [slots | MASTER] [task]; a `-g t`
  // continuation line: queue@host SLAVE. Names may hold blanks, so fields are found from the
  // date, not by position.
  std::vector<SgeJob> jobs;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> w = words(line);
    if (w.empty() || w[0] == "job-ID" || w[0].find_first_not_of('-') == std::string::npos) continue;
    if (is_number(w[0])) {
      const auto date = std::find_if(w.begin(), w.end(), is_date);
      if (date == w.end() || date - w.begin() < 2 || w.end() - date < 2) {
        throw std::runtime_error("qstat line '" + line + "': no submit/start date");
      }
      SgeJob job;
      job.id = w[0];
      job.state = *(date - 1);
      for (auto it = date + 2; it != w.end(); ++it) {
        if (it->find('@') != std::string::npos) {
          add_host(job.nodes, *it);
        } else if (is_number(*it)) {
          job.slots = std::stoi(*it);
          break;  // then only the array task id may follow
        }
      }
      jobs.push_back(std::move(job));
    } else if (w[0].find('@') != std::string::npos && !jobs.empty()) {
      add_host(jobs.back().nodes, w[0]);
    } else {
      throw std::runtime_error("qstat line '" + line + "' is not a job");
    }
  }
  return jobs;
}

JobStatus sge_listed_status(const SgeJob& job) {
  JobStatus s;
  s.state = job.state;
  s.nodes = job.nodes;
  const auto has = [&](char c) { return job.state.find(c) != std::string::npos; };
  if (has('E')) {
    s.phase = JobPhase::failed;
    s.reason = "error state " + job.state + " (it cannot start until cleared with qmod -cj)";
  } else if (has('s') || has('S') || has('T')) {
    s.phase = JobPhase::suspended;
  } else if (has('r') || has('t')) {
    s.phase = JobPhase::running;
  } else {
    s.phase = JobPhase::pending;
    s.held = has('h');
  }
  if (has('d')) s.reason = "being deleted";
  return s;
}

JobStatus sge_accounted_job(const std::string& text) {
  // Records start with a line of '='; key, blanks, value ("failed 100 : assumedly after job").
  std::string failed;
  std::string exit_status;
  std::string host;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("====", 0) == 0) {
      failed.clear();
      exit_status.clear();
      host.clear();
      continue;
    }
    const auto blank = line.find_first_of(" \t");
    if (blank == std::string::npos) continue;
    const std::string key = line.substr(0, blank);
    std::string value = line.substr(line.find_first_not_of(" \t", blank) == std::string::npos
                                        ? line.size()
                                        : line.find_first_not_of(" \t", blank));
    while (!value.empty() && value.back() == ' ') value.pop_back();
    if (key == "failed") failed = value;
    if (key == "exit_status") exit_status = value;
    if (key == "hostname") host = value;
  }
  if (failed.empty() || exit_status.empty()) {
    throw std::runtime_error("qacct printed no failed/exit_status: '" + text + "'");
  }
  JobStatus s;
  s.state = "ended";
  if (!host.empty()) s.nodes = {host};
  const bool ok = words(failed).front() == "0" && words(exit_status).front() == "0";
  s.phase = ok ? JobPhase::done : JobPhase::failed;
  if (!ok) s.reason = "failed " + failed + ", exit_status " + exit_status;
  return s;
}

QueueState sge_queue(const std::vector<SgeJob>& jobs) {
  QueueState q;
  for (const SgeJob& job : jobs) {
    const JobStatus s = sge_listed_status(job);
    count_job(q, s, job.slots);
  }
  return q;
}

int sge_total_slots(const std::string& text) {
  // CLUSTER QUEUE  CQLOAD  USED  RES  AVAIL  TOTAL aoACDS  cdsuE
  int total = 0;
  bool header = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> w = words(line);
    if (w.size() >= 2 && w[0] == "CLUSTER" && w[1] == "QUEUE") {
      if (w.size() < 7 || w[6] != "TOTAL")
        throw std::runtime_error("qstat -g c: header '" + line + "'");
      header = true;
      continue;
    }
    if (!header || w.empty() || w[0].find_first_not_of('-') == std::string::npos) continue;
    if (w.size() < 6 || !is_number(w[5]))
      throw std::runtime_error("qstat -g c: line '" + line + "'");
    total += std::stoi(w[5]);
  }
  if (!header) throw std::runtime_error("qstat -g c printed no cluster queue summary");
  return total;
}

}  // namespace parse

namespace {

class GridEngineQueue : public BatchQueue {
 public:
  using BatchQueue::BatchQueue;

  std::string submit(const JobRequest& r) override {
    check_request(r);
    std::vector<std::string> argv = {
        "qsub",
        "-terse",
        "-N",
        plain_name(r.name),
        "-pe",
        setting("pe", "mpi"),
        std::to_string(r.processors),
        "-l",
        "h_rt=" + std::to_string(static_cast<long>(std::max(1.0, std::ceil(r.time_limit_s)))),
        "-wd",
        r.workdir,
        "-o",
        r.output.empty() ? "/dev/null" : r.output,
        "-r",
        "y",
        "-V"};
    if (r.error.empty()) {
      argv.insert(argv.end(), {"-j", "y"});
    } else {
      argv.insert(argv.end(), {"-e", r.error});
    }
    if (r.hold) argv.emplace_back("-h");
    const std::string& queue = setting("queue", "");
    if (!queue.empty()) argv.insert(argv.end(), {"-q", queue});
    argv.push_back(r.script);
    argv.insert(argv.end(), r.args.begin(), r.args.end());
    // -V: the job gets qsub's environment, the request's variables included.
    std::string id = output_of(argv, r.env, r.workdir);
    id = id.substr(0, id.find_first_of(".\n"));  // "12" (array jobs: "12.1-4:1")
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      throw std::runtime_error(name() + ": qsub printed no job id: '" + id + "'");
    }
    return id;
  }

  JobStatus status(const std::string& id) override {
    // Gone from qstat: qacct knows how it ended once the accounting file has the record, which
    // this cell writes at once; one retry covers the moment between the two.
    for (int attempt = 0;; ++attempt) {
      for (const parse::SgeJob& job : listed(true)) {
        if (job.id == id) return parse::sge_listed_status(job);
      }
      const Captured a = run({"qacct", "-j", id});
      if (a.start_error.empty() && !a.timed_out && a.status.success()) {
        return parse::sge_accounted_job(a.out);
      }
      if (attempt == 1) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    JobStatus gone;
    gone.phase = JobPhase::failed;
    gone.state = "gone";
    gone.reason = "not in the queue and no accounting record (deleted before it started?)";
    return gone;
  }

  void cancel(const std::string& id) override { output_of({"qdel", id}); }

  QueueState queue_state() override {
    QueueState q = parse::sge_queue(listed(false));
    q.total_processors = parse::sge_total_slots(output_of({"qstat", "-g", "c"}));
    return q;
  }

  StartEstimate start_estimate(int, double) override {
    StartEstimate e;
    e.source =
        "none: Grid Engine estimates no start for a request not submitted (only reservations of "
        "queued jobs, with qsub -R y)";
    return e;
  }

  bool supports(Operation operation) const override { return operation != Operation::requeue; }

  // qmod -rj puts the job back in the queue at once and leaves the kill of the running instance
  // to the next report from its host; the qmaster forgets that kill after any report from the
  // host without a line for the job, and 8.1.9's execd sends such reports. The old instance then
  // runs on unseen while the job starts again, or, back on the same host, never starts again.
  // On the rig this hit 8 reschedules in 19 (jobscripts/README.md).
  std::string why_unsupported(Operation operation) const override {
    if (operation != Operation::requeue) return BatchQueue::why_unsupported(operation);
    return "cannot requeue a running job reliably (qmod -rj in Grid Engine 8.1 may leave the "
           "job's old instance running)";
  }

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
        output_of({"qmod", "-sj", id});
        break;
      case Operation::resume:
        output_of({"qmod", "-usj", id});
        break;
      case Operation::requeue:
        break;  // not supported: apply() refuses it
    }
  }

 private:
  // Every user's jobs (qstat alone lists only the caller's); with @p hosts, one line per granted
  // slot, so that a job's hosts can be read.
  std::vector<parse::SgeJob> listed(bool hosts) const {
    std::vector<std::string> argv = {"qstat", "-u", "*"};
    if (hosts) argv.insert(argv.end(), {"-g", "t"});
    return parse::sge_jobs(output_of(argv));
  }
};

}  // namespace

std::unique_ptr<BatchQueue> make_gridengine_queue(const QueueConfig& config, CommandRunner runner) {
  if (!runner) runner = system_runner({"SGE_", "JOB_ID="});
  // Queue instance names (queue@host) in full: qstat cuts them at 30 characters otherwise.
  QueueConfig wide = config;
  wide.env.emplace_back("SGE_LONG_QNAMES", "200");
  return std::make_unique<GridEngineQueue>(std::move(wide), std::move(runner));
}

}  // namespace mcb::campaign
