#include "jobscripts/coalloc_executor.hpp"

#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/rng.hpp"
#include "jobscripts/campaign_folder.hpp"
#include "jobscripts/coalloc_coordinator.hpp"
#include "jobscripts/coalloc_launch.hpp"
#include "jobscripts/local_executor.hpp"
#include "jobscripts/process.hpp"
#include "jobscripts/record_book.hpp"
#include "jobscripts/shell.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

namespace mcb::campaign {
namespace fs = std::filesystem;

namespace {

// The arrivals' stream of the seed (the Random ranking's streams are hashes of request ids).
constexpr std::uint64_t kArrivalStream = 0x61727269;  // "arri"

// Margin of a pilot's time limit beyond the co-allocation timeout and the run's.
constexpr double kPilotMarginSeconds = 120;

CoallocRequest request_for(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                           int attempt) {
  const Configuration& c = plan.of(run);
  CoallocRequest q;
  q.id = run.key + ".a" + std::to_string(attempt);
  q.run_id = run.id;
  q.run_key = run.key;
  q.ranks.assign(static_cast<std::size_t>(c.clusters), c.ranks / c.clusters);
  q.run_timeout_s = spec.timeout;
  q.time_limit_s = spec.coalloc.timeout + spec.timeout + kPilotMarginSeconds;
  return q;
}

void write_pilot(const std::string& dir) {
  const std::string pilot = dir + "/pilot.sh";
  write_file_atomically(pilot, coalloc_pilot_template());
  ::chmod(pilot.c_str(), 0755);
}

// Wakes the coordinator when a pilot reports (its .active and .done files are renamed into
// place), so that a go does not wait out the rest of a poll; the poll stays the longest wait,
// for file systems whose changes inotify does not see (NFS from another host).
class PilotWatch {
 public:
  explicit PilotWatch(const std::string& dir) : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    if (fd_ >= 0 && ::inotify_add_watch(fd_, dir.c_str(), IN_MOVED_TO) < 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~PilotWatch() {
    if (fd_ >= 0) ::close(fd_);
  }
  PilotWatch(const PilotWatch&) = delete;
  PilotWatch& operator=(const PilotWatch&) = delete;

  void wait(double seconds) const {
    if (fd_ < 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
      return;
    }
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(seconds * 1000)) > 0) {
      alignas(inotify_event) char buffer[4096];
      while (::read(fd_, buffer, sizeof buffer) > 0) {
      }
    }
  }

 private:
  int fd_;
};

}  // namespace

void check_coalloc_launcher(const CampaignSpec& spec) {
  const std::string& launcher = spec.coalloc.launcher.front();
  if (!on_path(launcher)) {
    throw UsageError(spec.where("coalloc", "launcher") + ": launcher: '" + launcher +
                     "' is not found on PATH");
  }
  if (!on_path(spec.coalloc.ompi_server)) {
    throw UsageError(spec.where("coalloc", "ompi-server") + ": ompi-server: '" +
                     spec.coalloc.ompi_server + "' is not found on PATH");
  }
}

int run_coalloc(const CampaignSpec& spec, const Plan& plan, std::ostream& out) {
  check_coalloc_launcher(spec);
  const CampaignFolder folder{spec.folder};
  prepare_folder(spec, plan, folder);
  const FolderLock lock(folder);
  guard_plan(spec, plan, folder);
  const std::string dir = folder.root + "/coalloc";
  fs::create_directories(dir);
  write_pilot(dir);
  const CoallocJournal journal(dir + "/journal.jsonl");
  RendezvousServer server(spec, journal, dir);

  std::map<std::string, const PlannedRun*> by_id;
  for (const PlannedRun& run : plan.runs) by_id[run.id] = &run;
  std::size_t done = 0;
  const CoallocHooks hooks{
      [&](const RequestState& r, const CopyState& copy) {
        write_launch_script(spec, plan, *by_id.at(r.request.run_id), folder, r, copy, dir, server);
      },
      [&](const RequestState& r) {
        write_go_scripts(spec, plan, *by_id.at(r.request.run_id), folder, r, dir, server);
      },
      [&](const RequestState& r) {
        const std::string status =
            write_coalloc_record(spec, plan, *by_id.at(r.request.run_id), folder, r, dir);
        if (status.empty()) return;
        ++done;
        out << "[" << done << "] " << r.request.run_id << " " << status;
        if (r.go) out << ", co-allocated in " << *r.go - r.first_submitted << " s";
        if (!r.failure.empty()) out << " (" << r.failure << ")";
        out << std::endl;
      }};
  CoallocCoordinator coordinator(spec.coalloc, journal, dir, hooks);

  const RecordBook book = RecordBook::read(folder.records());
  std::deque<const PlannedRun*> pending;
  std::size_t resumed = 0;
  for (const PlannedRun& run : plan.runs) {
    if (book.find(run.id)) continue;
    const RequestState* r = coordinator.find_run(run.id);
    if (r && r->phase != RequestPhase::recorded) {
      ++resumed;  // in flight since a coordinator that stopped
      continue;
    }
    pending.push_back(&run);
  }
  out << "campaign " << spec.name << ": " << plan.runs.size() << " runs, " << book.size()
      << " already recorded, " << resumed << " in flight, " << pending.size() << " to run (folder "
      << folder.root << ")" << std::endl;

  // The rendezvous is up before the first go: its start (about half a second here) would
  // otherwise lie between the last component's start and the joint start.
  const bool joins = std::any_of(pending.begin(), pending.end(),
                                 [&](const PlannedRun* run) { return plan.of(*run).clusters > 1; });
  if (joins) server.uri_file();
  const PilotWatch watch(dir);
  // Poisson arrivals (seed 004's global jobs): the first request at once, each next one an
  // exponential gap later. A resumed coordinator starts its arrivals afresh.
  Rng arrivals(derive_seed(spec.coalloc.seed, kArrivalStream));
  double next_arrival = utc_now();
  while (!pending.empty() || coordinator.in_flight() > 0) {
    while (!pending.empty() &&
           coordinator.in_flight() < static_cast<std::size_t>(spec.coalloc.in_flight) &&
           utc_now() >= next_arrival) {
      if (spec.coalloc.arrival > 0) {
        next_arrival += arrivals.exponential(1.0 / spec.coalloc.arrival);
      }
      const PlannedRun& run = *pending.front();
      pending.pop_front();
      int attempt = 1;
      for (const auto& [id, r] : coordinator.requests()) {
        if (r.request.run_id == run.id) ++attempt;
      }
      coordinator.begin(request_for(spec, plan, run, attempt));
    }
    coordinator.step();
    watch.wait(spec.coalloc.poll);
  }
  server.stop();
  const Tally t = tally(plan, RecordBook::read(folder.records(), &std::cerr));
  print_summary(out, spec, t, folder);
  return t.invalid + t.failed + t.missing == 0 ? 0 : 1;
}

int cancel_coalloc(const CampaignSpec& spec, std::ostream& out) {
  const CampaignFolder folder{spec.folder};
  const std::string dir = folder.root + "/coalloc";
  const CoallocJournal journal(dir + "/journal.jsonl");
  if (!fs::exists(journal.path())) {
    out << "campaign " << spec.name << ": no co-allocation journal (" << journal.path()
        << "), nothing to cancel" << std::endl;
    return 0;
  }
  journal.replay();  // a bad line refuses the command before anything is locked or cancelled
  const FolderLock lock(folder);  // no coordinator may act on the journal meanwhile
  CoallocCoordinator coordinator = CoallocCoordinator::replay_only(spec.coalloc, journal, dir);
  const std::size_t requests = coordinator.in_flight();
  const std::vector<std::string> cancelled =
      coordinator.abandon("abandoned: cancelled by mcb-campaign cancel");
  for (const std::string& c : cancelled) out << "cancelled " << c << "\n";
  RendezvousServer server(spec, journal, dir);
  server.stop();  // only one that still runs: a killed coordinator's
  out << "campaign " << spec.name << ": " << cancelled.size() << " pilot job(s) of " << requests
      << " request(s) in flight cancelled; 'mcb-campaign run' records those runs failed and "
         "submits nothing for them"
      << std::endl;
  return 0;
}

}  // namespace mcb::campaign
