#include "jobscripts/local_executor.hpp"

#include "common/errors.hpp"
#include "common/files.hpp"
#include "jobscripts/process.hpp"
#include "jobscripts/record_book.hpp"
#include "jobscripts/smpi_executor.hpp"

#include <signal.h>
#include <unistd.h>

#include <csignal>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kGraceSeconds = 5;  // between SIGTERM and SIGKILL when a run is ended

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) { g_interrupted = 1; }

// Catches Ctrl-C and termination while the campaign runs; restores the old handlers after.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~InterruptGuard() {
    for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_[3]{};
};

std::string clock_text(double seconds) {
  const long s = std::lround(seconds);
  char buf[32];
  if (seconds < 59.95) {
    std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  } else if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

// The line that tells where the campaign stands.
struct Progress {
  std::size_t total = 0;
  std::size_t done = 0;    // runs with a record, this session or before
  std::size_t failed = 0;  // failed or invalid
  std::size_t measured = 0;
  double measured_seconds = 0;
  Clock::time_point start = Clock::now();

  std::string line() const {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    std::ostringstream out;
    out << "done " << done << "/" << total << ", failed " << failed << ", elapsed "
        << clock_text(elapsed) << ", left ";
    if (measured == 0) {
      out << "?";
    } else {
      out << "~"
          << clock_text(measured_seconds / static_cast<double>(measured) *
                        static_cast<double>(total - done));
    }
    return out.str();
  }
};

// A run left behind by an executor that was killed: its processes carry the token written
// before it started. End them before anything reads the records.
void end_abandoned_run(const CampaignFolder& folder, std::ostream& out) {
  std::ifstream in(folder.inflight());
  if (!in) return;
  std::string token;
  std::string run_id;
  in >> token >> run_id;
  if (!token.empty()) {
    const auto left = tagged_processes(token);
    if (!left.empty()) {
      out << "ending " << left.size() << " process(es) left by the interrupted run " << run_id
          << "\n";
    }
    if (kill_tagged(token, 20) != 0) {
      throw std::runtime_error("processes of the interrupted run " + run_id +
                               " do not end (token " + token + ")");
    }
  }
  fs::remove(folder.inflight());
}

std::string program_name(const CampaignSpec& spec) {
  return fs::path(spec.binary).filename().string();
}

}  // namespace

std::vector<std::string> local_command(const CampaignSpec& spec, const Plan& plan,
                                       const PlannedRun& run, const CampaignFolder& folder) {
  if (spec.executor == "smpi") return smpi_command(spec, plan, run, folder);
  const Configuration& c = plan.of(run);
  std::vector<std::string> argv = spec.local.launcher;
  if (!spec.local.np_flag.empty()) {
    argv.push_back(spec.local.np_flag);
    argv.push_back(std::to_string(c.ranks));
  }
  argv.push_back(spec.binary);
  argv.insert(argv.end(), c.app_args.begin(), c.app_args.end());
  append_run_identity(argv, spec, run, folder);
  return argv;
}

void append_run_identity(std::vector<std::string>& argv, const CampaignSpec& spec,
                         const PlannedRun& run, const CampaignFolder& folder) {
  for (const std::string& word :
       {std::string("--run-id"), run.id, std::string("--campaign"), spec.name,
        std::string("--repetition"), std::to_string(run.repetition), std::string("--output"),
        folder.records()}) {
    argv.push_back(word);
  }
}

void check_local_launcher(const CampaignSpec& spec) {
  if (spec.executor == "smpi") return check_smpi_launcher(spec);
  const std::string& launcher = spec.local.launcher.front();
  if (!on_path(launcher)) {
    throw UsageError(spec.where("local", "launcher") + ": launcher: '" + launcher +
                     "' is not found on PATH");
  }
  if (::geteuid() != 0) return;
  // Open MPI refuses root unless both variables are set; every run would fail with its banner.
  const auto set = [&](const std::string& name) {
    for (const auto& [key, value] : spec.env) {
      if (key == name) return !value.empty();
    }
    const char* v = std::getenv(name.c_str());
    return v != nullptr && *v != '\0';
  };
  if (set("OMPI_ALLOW_RUN_AS_ROOT") && set("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")) return;
  const Captured version = capture({launcher, "--version"}, "", 30);
  if (version.out.find("Open MPI") == std::string::npos &&
      version.err.find("Open MPI") == std::string::npos) {
    return;
  }
  throw UsageError(spec.where("local", "launcher") + ": launcher: '" + launcher +
                   "' is Open MPI, which refuses to run as root unless OMPI_ALLOW_RUN_AS_ROOT=1 "
                   "and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are set; source scripts/mpi-env.sh "
                   "first, or give them in the spec as env = NAME=VALUE lines");
}

int run_local(const CampaignSpec& spec, const Plan& plan, const LocalRunOptions& options,
              std::ostream& out) {
  check_local_launcher(spec);
  const CampaignFolder folder{spec.folder};
  prepare_folder(spec, plan, folder);
  const FolderLock lock(folder);
  end_abandoned_run(folder, out);
  guard_plan(spec, plan, folder);
  if (options.retry_failed) {
    const auto moved = drop_failed_records(plan, folder);
    if (!moved.empty()) {
      out << "running " << moved.size() << " failed run(s) again; their old records are in "
          << folder.failed_attempts() << "\n";
    }
  }

  RecordBook book = RecordBook::read(folder.records());
  std::vector<const PlannedRun*> pending;
  Progress progress;
  progress.total = plan.runs.size();
  std::size_t failed = 0;  // recorded "failed": what --retry-failed runs again
  for (const PlannedRun& run : plan.runs) {
    if (const RecordEntry* e = book.find(run.id)) {
      ++progress.done;
      if (e->status != "valid") ++progress.failed;
      if (e->status == "failed") ++failed;
    } else {
      pending.push_back(&run);
    }
  }
  out << "campaign " << spec.name << ": " << plan.runs.size() << " runs, " << progress.done
      << " already recorded, " << pending.size() << " to run (folder " << folder.root << ")\n";
  if (failed > 0) {
    out << failed << " recorded run(s) failed; mcb-campaign run --retry-failed runs "
        << "them again\n";
  }
  out.flush();

  const InterruptGuard guard;
  const int width = static_cast<int>(std::to_string(progress.total).size());
  for (const PlannedRun* run : pending) {
    const std::vector<std::string> command = local_command(spec, plan, *run, folder);
    const std::string log = folder.run_file(run->key, ".log");
    std::error_code ec;
    fs::remove(log, ec);
    const std::string token = random_token();
    write_file_atomically(folder.inflight(), token + " " + run->id + "\n");

    std::vector<std::pair<std::string, std::string>> env = spec.env;
    env.emplace_back("MCB_CAMPAIGN_RUN", run->id);
    const auto started = Clock::now();
    const auto deadline = started + std::chrono::duration<double>(spec.timeout);
    std::optional<TaggedRun> child;
    std::string start_failure;
    try {
      child.emplace(command, folder.root, env, log, token);
    } catch (const std::exception& e) {
      start_failure = e.what();
    }
    ExitStatus status;
    bool timed_out = false;
    auto last_draw = Clock::time_point{};
    while (child) {
      if (auto s = child->poll()) {
        status = *s;
        child->kill_leftovers();
        break;
      }
      if (g_interrupted) break;
      if (Clock::now() >= deadline) {
        timed_out = true;
        status = child->terminate(kGraceSeconds);
        break;
      }
      if (options.live_progress && Clock::now() - last_draw > std::chrono::seconds(1)) {
        last_draw = Clock::now();
        out << "\r\033[K" << run->id << " running "
            << clock_text(std::chrono::duration<double>(Clock::now() - started).count()) << " | "
            << progress.line() << std::flush;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (g_interrupted) {
      if (child) child->terminate(kGraceSeconds);
      fs::remove(folder.inflight(), ec);
      if (options.live_progress) out << "\r\033[K";
      out << "interrupted: " << run->id << " was ended and has no record; "
          << progress.total - progress.done << " run(s) left, run the same command to go on\n";
      out.flush();
      return 130;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();

    book.read_more(folder.records());
    const RecordEntry* entry = book.find(run->id);
    if (!entry) {
      std::string reason;
      json details = {{"seconds", seconds}, {"log", log}, {"timeout", spec.timeout}};
      if (!start_failure.empty()) {
        reason = start_failure;
      } else if (timed_out) {
        reason = "timed out (timeout " + clock_text(spec.timeout) + ")";
      } else {
        const std::string excerpt = log_excerpt(log, program_name(spec));
        reason = spec.local.launcher.front() + " " + status.describe() +
                 (excerpt.empty() ? " without a record" : ": " + excerpt);
        details["exit_code"] = status.code;
        details["signal"] = status.signal;
      }
      append_line(folder.records(),
                  failure_record(spec, plan, *run, reason, details, command).dump());
      book.read_more(folder.records());
      entry = book.find(run->id);
    }
    fs::remove(folder.inflight(), ec);

    ++progress.done;
    if (entry->status != "valid") ++progress.failed;
    ++progress.measured;
    progress.measured_seconds += seconds;
    char head[64];
    std::snprintf(head, sizeof head, "[%*zu/%zu] ", width, progress.done, progress.total);
    if (options.live_progress) out << "\r\033[K";
    out << head << run->id << " " << entry->status << " " << clock_text(seconds);
    if (entry->status != "valid" && !entry->reason.empty()) out << " (" << entry->reason << ")";
    out << " | " << progress.line() << "\n";
    out.flush();
  }

  const Tally t = tally(plan, RecordBook::read(folder.records(), &std::cerr));
  print_summary(out, spec, t, folder);
  return t.invalid + t.failed + t.missing == 0 ? 0 : 1;
}

}  // namespace mcb::campaign
