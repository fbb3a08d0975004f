#include "jobscripts/load_run.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

namespace mcb::load {

std::string to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::completed:
      return "completed";
    case Outcome::cancelled:
      return "cancelled";
    case Outcome::failed:
      return "failed";
  }
  return "failed";
}

std::string write_job_script(const std::string& work) {
  std::string path = (std::filesystem::path(work) / "job.sh").string();
  // A stamp is written beside its name and renamed, so the load reads a whole one or none.
  std::ofstream(path) << "#!/bin/sh\n"
                         "# mcb-load: one background job. $1: stamp prefix, $2: seconds.\n"
                         "stamp() { date +%s.%N >\"$1.tmp.$$\" && mv \"$1.tmp.$$\" \"$1\"; }\n"
                         "stamp \"$1.start\"\n"
                         "sleep \"$2\"\n"
                         "stamp \"$1.end\"\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

namespace {

using Clock = std::chrono::steady_clock;
using campaign::BatchQueue;
using campaign::JobPhase;

volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_load_signal(int sig) { g_signal = sig; }

// Catches Ctrl-C, termination and hang-up while the load runs; restores the old handlers after.
class SignalGuard {
 public:
  SignalGuard() {
    g_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_load_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~SignalGuard() {
    for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_[3]{};
};

std::string signal_name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  if (sig == SIGHUP) return "SIGHUP";
  return "signal " + std::to_string(sig);
}

// A stamp's Unix time, or none while the job has not written it.
std::optional<double> read_stamp(const std::string& path) {
  std::ifstream in(path);
  double t = 0;
  if (in >> t && std::isfinite(t)) return t;
  return std::nullopt;
}

// One line, for notes and the log.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

struct Tracked {
  RanJob job;
  std::string stamp;         // prefix of the job's stamp files
  double next_check = 0;     // when to ask the system about it next
  double seen_running = -1;  // when a status first said it runs (no start stamp yet)
  double cancel_at = -1;
  bool done = false;
};

// The load's clock: a steady clock from the start, reported as seconds after a whole Unix second.
struct LoadClock {
  Clock::time_point t0 = Clock::now();
  long long origin = 0;
  double offset = 0;  // the start, seconds after origin

  LoadClock() {
    const double epoch =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    origin = static_cast<long long>(std::floor(epoch));
    offset = epoch - static_cast<double>(origin);
  }
  double now() const { return offset + std::chrono::duration<double>(Clock::now() - t0).count(); }
};

// What every system's worker shares: the clock, the stop flag, the log.
struct Shared {
  LoadClock clock;
  std::atomic<bool> stop{false};
  std::mutex log_mutex;
  std::string script;
};

// One system's part of the load, run by its own thread: a slow system (or a slow command) delays
// only its own jobs.
class SystemRun {
 public:
  SystemRun(std::vector<PlannedJob> plan, BatchQueue& queue, const RunSettings& settings,
            Shared& shared)
      : plan_(std::move(plan)), queue_(queue), settings_(settings), shared_(shared) {
    jobs_.reserve(plan_.size());
  }

  // Submits and follows the jobs until all ended or the load stops; then cancels what is left.
  void run() {
    try {
      ended_ = loop();
    } catch (...) {
      error_ = std::current_exception();
      shared_.stop = true;
    }
    cancel_all();
  }
  bool ended() const { return ended_; }
  std::exception_ptr error() const { return error_; }
  std::size_t not_submitted() const { return plan_.size() - next_; }
  std::vector<Tracked>& jobs() { return jobs_; }
  const std::vector<std::string>& unconfirmed() const { return unconfirmed_; }

 private:
  double now() const { return shared_.clock.now(); }
  BatchQueue& queue(const Tracked&) const { return queue_; }
  void log(const std::string& line) const {
    if (!settings_.log) return;
    const std::lock_guard<std::mutex> lock(shared_.log_mutex);
    *settings_.log << "mcb-load: " << line << std::endl;
  }
  void submit(const PlannedJob& p);
  void read_stamps(Tracked& t);
  bool poll_one();
  void finish(Tracked& t, Outcome outcome, double ended, const std::string& note = "");
  bool loop();
  void cancel_all();

  std::vector<PlannedJob> plan_;
  BatchQueue& queue_;
  const RunSettings& settings_;
  Shared& shared_;
  std::vector<Tracked> jobs_;
  std::vector<std::string> unconfirmed_;
  std::size_t next_ = 0;
  bool ended_ = false;  // every job ended by itself
  std::exception_ptr error_;
};

void SystemRun::submit(const PlannedJob& p) {
  Tracked t;
  t.job.plan = p;
  t.job.planned = shared_.clock.offset + p.at;
  const std::string tag = std::to_string(p.seq + 1) + "-" + queue_.name();
  t.stamp = (std::filesystem::path(settings_.work) / tag).string();
  campaign::JobRequest r;
  r.script = shared_.script;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", p.runtime);
  r.args = {t.stamp, seconds};
  r.name = "mcb-load-" + std::to_string(p.seq + 1);
  r.processors = p.procs;
  r.time_limit_s = p.time_limit;
  r.workdir = settings_.work;
  r.output = t.stamp + ".out";
  r.env = {{"MCB_LOAD_JOB", t.stamp}};  // every process of the job can be found by it
  t.job.issued = now();
  try {
    t.job.id = queue(t).submit(r);
    t.job.submitted = now();
    t.next_check = t.job.submitted + settings_.poll;
  } catch (const std::exception& e) {
    t.job.outcome = Outcome::failed;
    t.job.note = "not submitted: " + first_line(e.what());
    t.done = true;
    log(queue(t).name() + ": job " + std::to_string(p.seq + 1) + " " + t.job.note);
  }
  jobs_.push_back(std::move(t));
}

void SystemRun::read_stamps(Tracked& t) {
  if (t.job.started < 0) {
    if (const auto s = read_stamp(t.stamp + ".start")) {
      t.job.started = *s - static_cast<double>(shared_.clock.origin);
      t.job.stamped = true;
      t.next_check = std::max(t.next_check, t.job.started + t.job.plan.runtime + settings_.poll);
    }
  }
  if (t.job.started >= 0) {
    if (const auto e = read_stamp(t.stamp + ".end")) {
      finish(t, Outcome::completed, *e - static_cast<double>(shared_.clock.origin));
    }
  }
}

void SystemRun::finish(Tracked& t, Outcome outcome, double ended, const std::string& note) {
  t.done = true;
  t.job.outcome = outcome;
  if (t.job.started < 0 && t.seen_running >= 0) t.job.started = t.seen_running;
  t.job.ended = t.job.started >= 0 ? std::max(ended, t.job.started) : -1;
  if (!note.empty()) t.job.note = note;
}

// Asks the system about the job most overdue for a question; false when none is due.
bool SystemRun::poll_one() {
  const double t_now = now();
  Tracked* due = nullptr;
  for (Tracked& t : jobs_) {
    if (!t.done && t.next_check <= t_now && (!due || t.next_check < due->next_check)) due = &t;
  }
  if (!due) return false;
  Tracked& t = *due;
  t.next_check = t_now + settings_.poll;
  campaign::JobStatus s;
  try {
    s = queue(t).status(t.job.id);
  } catch (const std::exception& e) {
    log(queue(t).name() + ": status of " + t.job.id + ": " + first_line(e.what()));
    return true;
  }
  const double seen = now();
  if (s.phase == JobPhase::running || s.phase == JobPhase::suspended) {
    if (t.seen_running < 0) t.seen_running = seen;
  } else if (s.phase == JobPhase::done || s.phase == JobPhase::failed) {
    read_stamps(t);  // the end stamp may have come in since the last look
    if (t.done) return true;
    if (s.phase == JobPhase::done) {
      finish(t, Outcome::completed, seen, "no end stamp: end from the system's status");
    } else {
      finish(t, Outcome::failed, seen, "ended by the system: " + s.state + " " + s.reason);
    }
  }
  return true;
}

// Submits and follows this system's jobs; true when every one ended, false when the load stopped.
bool SystemRun::loop() {
  const double offset = shared_.clock.offset;
  while (true) {
    if (shared_.stop) return false;
    if (next_ < plan_.size() && offset + plan_[next_].at <= now()) {
      submit(plan_[next_++]);
      continue;
    }
    bool open = false;
    for (Tracked& j : jobs_) {
      if (!j.done) read_stamps(j);
      open = open || !j.done;
    }
    if (next_ == plan_.size() && !open) return true;
    if (poll_one()) continue;
    double wake = now() + 0.1;
    if (next_ < plan_.size()) wake = std::min(wake, offset + plan_[next_].at);
    const double left = wake - now();
    if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
  }
}

// Cancels every job not yet ended and waits until its system says it ended.
void SystemRun::cancel_all() {
  std::vector<Tracked*> open;
  for (Tracked& t : jobs_) {
    if (t.done) continue;
    try {
      queue(t).cancel(t.job.id);
    } catch (const std::exception& e) {
      // A job that ended meanwhile cannot be cancelled; its status says so below.
      log(queue(t).name() + ": cancel " + t.job.id + ": " + first_line(e.what()));
    }
    t.cancel_at = now();
    open.push_back(&t);
  }
  const double deadline = now() + settings_.cancel_wait;
  std::vector<Tracked*> waiting = open;
  while (!waiting.empty() && now() < deadline) {
    std::vector<Tracked*> still;
    for (Tracked* t : waiting) {
      try {
        const JobPhase phase = queue(*t).status(t->job.id).phase;
        if (phase == JobPhase::done || phase == JobPhase::failed) continue;
      } catch (const std::exception&) {
      }
      still.push_back(t);
    }
    waiting.swap(still);
    if (!waiting.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (Tracked* t : waiting) unconfirmed_.push_back(queue_.name() + ":" + t->job.id);
  for (Tracked* t : open) {
    read_stamps(*t);  // ended by itself before the cancellation took
    if (!t->done) finish(*t, Outcome::cancelled, t->cancel_at);
  }
}

}  // namespace

RunResult run_load(const std::vector<PlannedJob>& plan,
                   const std::vector<std::unique_ptr<BatchQueue>>& queues,
                   const RunSettings& settings) {
  SignalGuard guard;
  Shared shared;
  shared.script = write_job_script(settings.work);
  std::vector<std::unique_ptr<SystemRun>> runs;
  for (std::size_t s = 0; s < queues.size(); ++s) {
    std::vector<PlannedJob> mine;
    for (const PlannedJob& p : plan) {
      if (p.system == s) mine.push_back(p);
    }
    runs.push_back(std::make_unique<SystemRun>(std::move(mine), *queues[s], settings, shared));
  }
  std::vector<std::thread> threads;
  std::atomic<std::size_t> running{runs.size()};
  for (auto& r : runs) {
    threads.emplace_back([&r, &running] {
      r->run();
      --running;
    });
  }
  RunResult result;
  result.origin = shared.clock.origin;
  result.start = shared.clock.offset;
  // The supervisor: stops every worker on a signal or when the duration is up.
  while (running > 0 && !shared.stop) {
    if (g_signal != 0) {
      result.signal = g_signal;
      result.ended_by = signal_name(g_signal);
    } else if (settings.duration > 0 &&
               shared.clock.now() - shared.clock.offset >= settings.duration) {
      result.ended_by = "duration";
    }
    if (!result.ended_by.empty()) shared.stop = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (std::thread& t : threads) t.join();
  result.wall_seconds = shared.clock.now() - shared.clock.offset;
  std::vector<RanJob> merged;
  for (auto& r : runs) {
    if (r->error()) std::rethrow_exception(r->error());
    if (result.ended_by.empty() && !r->ended()) result.ended_by = "stopped";
    result.not_submitted += r->not_submitted();
    for (Tracked& t : r->jobs()) merged.push_back(std::move(t.job));
    result.unconfirmed.insert(result.unconfirmed.end(), r->unconfirmed().begin(),
                              r->unconfirmed().end());
  }
  if (result.ended_by.empty()) result.ended_by = "all jobs ended";
  std::sort(merged.begin(), merged.end(),
            [](const RanJob& a, const RanJob& b) { return a.plan.seq < b.plan.seq; });
  result.jobs = std::move(merged);
  return result;
}

}  // namespace mcb::load
