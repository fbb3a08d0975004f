#include "jobscripts/coalloc_coordinator.hpp"

#include "common/files.hpp"
#include "jobscripts/coalloc_ranking.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kStatusInterval = 2;  // seconds between status queries of one job

// "<time> <hosts> <host>" or "<code> <time>" as the pilot writes them; empty when absent.
std::vector<std::string> words_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

std::optional<double> number(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// FNV-1a: a stream number for the Random ranking that every build computes alike.
std::uint64_t stable_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

const CopyState* RequestState::bound(int k) const {
  for (const CopyState& c : copies) {
    if (c.component == k && c.bound) return &c;
  }
  return nullptr;
}

CopyState* RequestState::find(const std::string& tag) {
  for (CopyState& c : copies) {
    if (c.tag == tag) return &c;
  }
  return nullptr;
}

std::string coalloc_claim(const std::string& dir, const std::string& request, int component) {
  return dir + "/" + request + ".c" + std::to_string(component) + ".bound";
}

CoallocCoordinator::CoallocCoordinator(const CoallocSettings& settings, CoallocJournal journal,
                                       std::string dir, CoallocHooks hooks)
    : CoallocCoordinator(settings, std::move(journal), std::move(dir), std::move(hooks), true) {}

CoallocCoordinator::CoallocCoordinator(const CoallocSettings& settings, CoallocJournal journal,
                                       std::string dir, CoallocHooks hooks, bool adopt)
    : settings_(settings),
      journal_(std::move(journal)),
      dir_(std::move(dir)),
      hooks_(std::move(hooks)) {
  for (const json& event : journal_.replay()) apply(event);
  if (adopt) adopt_orphans();
}

CoallocCoordinator CoallocCoordinator::replay_only(const CoallocSettings& settings,
                                                   CoallocJournal journal, std::string dir) {
  return CoallocCoordinator(settings, std::move(journal), std::move(dir), {}, false);
}

std::vector<std::string> CoallocCoordinator::abandon(const std::string& why) {
  std::vector<std::string> cancelled;
  for (auto& [id, r] : requests_) {
    if (r.phase == RequestPhase::recorded || r.phase == RequestPhase::ended) continue;
    for (CopyState& c : r.copies) {
      if (c.gone) continue;
      if (c.job.empty()) {
        // An orphan: its pilot exits on its cancel file if the job exists and ever starts.
        write_file_atomically(dir_ + "/" + c.tag + ".cancel", why + "\n");
        record({{"event", "cancelled"}, {"request", id}, {"tag", c.tag}, {"why", why}});
      } else {
        cancel_copy(r, c, why);
      }
      cancelled.push_back(c.tag + ": " + c.system + " job " + (c.job.empty() ? "unknown" : c.job));
    }
    end_request(r, why);
  }
  return cancelled;
}

BatchQueue& CoallocCoordinator::queue(const std::string& system) {
  auto it = queues_.find(system);
  if (it == queues_.end()) {
    it = queues_.emplace(system, make_queue(settings_.system(system))).first;
  }
  return *it->second;
}

void CoallocCoordinator::record(json event) { apply(journal_.append(std::move(event))); }

// The state is a fold over the events: the live coordinator and a resumed one apply the same.
void CoallocCoordinator::apply(const json& e) {
  const std::string kind = e.at("event").get<std::string>();
  if (kind == "request") {
    RequestState r;
    r.request = {e.at("request"), e.at("run"),        e.at("key"),
                 e.at("ranks"),   e.at("time_limit"), e.at("run_timeout")};
    requests_[r.request.id] = std::move(r);
    return;
  }
  auto it = requests_.find(e.value("request", ""));
  if (it == requests_.end()) return;  // an event of another kind (the launcher's server)
  RequestState& r = it->second;
  const double t = e.at("t").get<double>();
  CopyState* c = e.contains("tag") ? r.find(e.at("tag").get<std::string>()) : nullptr;
  if (kind == "submitting") {
    CopyState copy;
    copy.tag = e.at("tag");
    copy.component = e.at("component");
    copy.system = e.at("system");
    copy.submitted = t;
    if (r.first_submitted == 0) r.first_submitted = t;
    r.copies.push_back(copy);
    ++r.next_copy;
  } else if (kind == "submitted" && c) {
    c->job = e.at("job");
  } else if (kind == "active" && c) {
    c->started = e.at("started").get<double>();
    c->nodes = e.at("nodes");
    c->bound = e.at("bound").get<bool>();
    c->launched_at_start = e.value("launched", false);
  } else if ((kind == "cancelled" || kind == "lost" || kind == "submit-failed") && c) {
    c->gone = true;
    c->bound = false;
    c->gone_why = e.value("why", kind);
    c->gone_at = t;
  } else if (kind == "hibernated" && c) {
    c->bound = false;
    c->started.reset();
    r.released_once = true;
  } else if (kind == "resubmitting") {
    r.released_once = true;
  } else if (kind == "go") {
    r.go = t;
    r.phase = RequestPhase::launched;
  } else if (kind == "component-ended" && c) {
    c->exit_code = e.at("code").get<int>();
    c->ended = e.at("ended").get<double>();
    c->gone = true;
    c->gone_why = "finished";
    c->gone_at = t;
  } else if (kind == "ended") {
    r.phase = RequestPhase::ended;
    r.failure = e.value("failure", "");
  } else if (kind == "recorded") {
    r.phase = RequestPhase::recorded;
  }
}

// A submission journaled without its job id: the coordinator died inside sbatch/qsub. Whether
// the job exists is unknown, so its pilot is told to cancel itself (it checks on starting)
// and the component gets a fresh copy.
void CoallocCoordinator::adopt_orphans() {
  for (auto& [id, r] : requests_) {
    if (r.phase != RequestPhase::allocating) continue;
    std::vector<int> replace;
    for (CopyState& c : r.copies) {
      if (c.gone || !c.job.empty()) continue;
      write_file_atomically(dir_ + "/" + c.tag + ".cancel", "orphan\n");
      record({{"event", "cancelled"},
              {"request", id},
              {"tag", c.tag},
              {"why", "orphan: the coordinator stopped while submitting it"}});
      replace.push_back(c.component);
    }
    for (const int k : replace) {
      const bool live = std::any_of(r.copies.begin(), r.copies.end(), [&](const CopyState& c) {
        return c.component == k && !c.gone;
      });
      if (!live) submit_copy(r, k, settings_.clusters.at(static_cast<std::size_t>(k)));
    }
  }
}

void CoallocCoordinator::begin(const CoallocRequest& q) {
  record({{"event", "request"},
          {"request", q.id},
          {"run", q.run_id},
          {"key", q.run_key},
          {"ranks", q.ranks},
          {"time_limit", q.time_limit_s},
          {"run_timeout", q.run_timeout_s}});
  RequestState& r = requests_.at(q.id);
  for (int k = 0; k < static_cast<int>(q.ranks.size()); ++k) submit_component(r, k);
}

// The component's own system, and d duplicates on the best-ranked others.
void CoallocCoordinator::submit_component(RequestState& r, int k) {
  const std::string& own = settings_.clusters.at(static_cast<std::size_t>(k));
  submit_copy(r, k, own);
  if (settings_.duplicates == 0) return;
  std::vector<BatchQueue*> others;
  for (const QueueConfig& s : settings_.systems) {
    if (s.name != own) others.push_back(&queue(s.name));
  }
  const int processors = r.request.ranks.at(static_cast<std::size_t>(k));
  RankedSystems ranked;
  try {
    ranked = rank_systems(settings_.ranking, others, processors, r.request.time_limit_s,
                          settings_.seed, stable_hash(r.request.id + "/" + std::to_string(k)));
  } catch (const std::exception& e) {
    record(
        {{"event", "rank-failed"}, {"request", r.request.id}, {"component", k}, {"why", e.what()}});
    return;
  }
  record({{"event", "ranked"},
          {"request", r.request.id},
          {"component", k},
          {"ranking", to_string(settings_.ranking)},
          {"order", ranked.order},
          {"scores", ranked.scores}});
  for (int i = 0; i < settings_.duplicates && i < static_cast<int>(ranked.order.size()); ++i) {
    submit_copy(r, k, ranked.order[static_cast<std::size_t>(i)]);
  }
}

void CoallocCoordinator::submit_copy(RequestState& r, int k, const std::string& system) {
  const std::string tag =
      r.request.id + ".c" + std::to_string(k) + "." + std::to_string(r.next_copy);
  // Journaled before sbatch: a kill inside it leaves an orphan that adopt_orphans() handles.
  record({{"event", "submitting"},
          {"request", r.request.id},
          {"component", k},
          {"tag", tag},
          {"system", system}});
  JobRequest job;
  job.script = dir_ + "/pilot.sh";
  job.args = {dir_, tag};
  job.name = "mcb-" + tag;
  job.processors = r.request.ranks.at(static_cast<std::size_t>(k));
  job.time_limit_s = r.request.time_limit_s;
  job.workdir = dir_;
  job.output = dir_ + "/" + tag + ".out";
  if (launches_at_start(r)) hooks_.prepare(r, r.copies.back());
  try {
    const std::string id = queue(system).submit(job);
    record({{"event", "submitted"}, {"request", r.request.id}, {"tag", tag}, {"job", id}});
  } catch (const std::exception& e) {
    record(
        {{"event", "submit-failed"}, {"request", r.request.id}, {"tag", tag}, {"why", e.what()}});
  }
}

void CoallocCoordinator::cancel_copy(RequestState& r, CopyState& c, const std::string& why) {
  // The file first: a pilot that starts after the cancel exits at once, whatever the queue did.
  write_file_atomically(dir_ + "/" + c.tag + ".cancel", why + "\n");
  std::string problem;
  try {
    queue(c.system).cancel(c.job);
  } catch (const std::exception& e) {
    problem = e.what();  // typically: it ended already
  }
  json event = {{"event", "cancelled"}, {"request", r.request.id}, {"tag", c.tag}, {"why", why}};
  if (!problem.empty()) event["cancel_error"] = problem;
  record(std::move(event));
}

bool CoallocCoordinator::status_due(const std::string& tag) {
  const double now = utc_now();
  double& last = last_status_[tag];
  if (now - last < kStatusInterval) return false;
  last = now;
  return true;
}

// Resubmission and hibernation give early allocations back once per request: until then a
// component bound before its partners is not satisfied.
bool CoallocCoordinator::release_pending(const RequestState& r) const {
  return settings_.synchronization != Synchronization::stop_and_wait && !r.released_once &&
         !r.all_bound();
}

// With launch = at-start, copies submitted from the start (stop-and-wait) or once the request
// gave its early allocation back (resubmission: before, an early copy's ranks would be killed
// while they wait in the rendezvous).
bool CoallocCoordinator::launches_at_start(const RequestState& r) const {
  return settings_.launch == Launch::at_start &&
         (settings_.synchronization == Synchronization::stop_and_wait || r.released_once);
}

// Pilots that report active bind their component (the first one) or are redundant. Reads only
// the pilots' files, so that a request's go never waits for a queue command.
void CoallocCoordinator::notice_starts(RequestState& r) {
  for (CopyState& c : r.copies) {
    if (c.gone || c.job.empty() || c.started) continue;
    // "<started> <hosts> <host> <launched>": launched is 1 when it ran its launch on starting.
    const std::vector<std::string> active = words_of(dir_ + "/" + c.tag + ".active");
    const std::optional<double> started = active.empty() ? std::nullopt : number(active[0]);
    if (!started) continue;
    const bool launched = active.size() > 3 && active[3] == "1";
    bool bound = r.bound(c.component) == nullptr;
    if (settings_.launch == Launch::at_start) {
      // The claim binds: the pilot took it and runs its ranks already, or it waits for the go
      // and the coordinator takes the claim for it (already its own after a resume).
      const std::string claim = coalloc_claim(dir_, r.request.id, c.component);
      std::error_code ec;
      if (!launched) fs::create_symlink(c.tag, claim, ec);
      bound = fs::read_symlink(claim, ec) == c.tag;
    }
    record({{"event", "active"},
            {"request", r.request.id},
            {"tag", c.tag},
            {"started", *started},
            {"nodes", active.size() > 1 ? active[1] : ""},
            {"bound", bound},
            {"launched", launched}});
  }
}

// Copies that started after their component was bound are cancelled; copies whose job ended
// before their pilot started are lost.
void CoallocCoordinator::watch_copies(RequestState& r) {
  for (std::size_t i = 0; i < r.copies.size(); ++i) {
    CopyState& c = r.copies[i];
    if (c.gone || c.job.empty()) continue;
    if (c.started) {
      // A twin that started while the release is pending is early as well: given back with it.
      if (!c.bound && !release_pending(r)) {
        cancel_copy(r, c,
                    "redundant: component " + std::to_string(c.component) + " was already bound");
      }
      continue;
    }
    if (!status_due(c.tag)) continue;
    try {
      const JobStatus st = queue(c.system).status(c.job);
      if (st.phase == JobPhase::done || st.phase == JobPhase::failed) {
        record({{"event", "lost"},
                {"request", r.request.id},
                {"tag", c.tag},
                {"why", "its job ended before its pilot started (" + st.state + ")"}});
      }
    } catch (const std::exception& e) {
      record({{"event", "status-failed"},
              {"request", r.request.id},
              {"tag", c.tag},
              {"why", e.what()}});
    }
  }
}

// An allocation bound before its partners: held idle (stop-and-wait), or, once per request,
// given back and asked for again (resubmission: cancelled and submitted anew; hibernation:
// requeued, the same job).
void CoallocCoordinator::synchronize(RequestState& r) {
  if (settings_.synchronization == Synchronization::stop_and_wait || r.released_once) return;
  // Every allocation active so far: the bound ones, and twins that started beside them.
  std::vector<std::size_t> early;
  for (std::size_t i = 0; i < r.copies.size(); ++i) {
    if (r.copies[i].started && !r.copies[i].gone) early.push_back(i);
  }
  if (early.empty()) return;
  for (const std::size_t i : early) {
    const std::string tag = r.copies[i].tag;
    if (settings_.synchronization == Synchronization::hibernation) {
      CopyState& c = r.copies[i];
      // Its next start must be seen as new: the old report goes before the job is requeued.
      std::error_code ec;
      fs::remove(dir_ + "/" + c.tag + ".active", ec);
      std::string problem;
      try {
        queue(c.system).requeue(c.job);
      } catch (const std::exception& e) {
        problem = e.what();
      }
      json event = {{"event", "hibernated"}, {"request", r.request.id}, {"tag", tag}};
      if (!problem.empty()) event["requeue_error"] = problem;
      record(std::move(event));
    } else {
      const int k = r.copies[i].component;
      const std::string system = r.copies[i].system;
      record({{"event", "resubmitting"}, {"request", r.request.id}, {"tag", tag}});
      cancel_copy(r, r.copies[i], "resubmission: active before its partners");
      // The component is free to bind again, by whichever copy starts next.
      std::error_code ec;
      const std::string claim = coalloc_claim(dir_, r.request.id, k);
      if (fs::read_symlink(claim, ec) == tag) fs::remove(claim, ec);
      submit_copy(r, k, system);
    }
  }
  // From now on ranks start with their allocation: the copies still queued get their launch.
  if (!launches_at_start(r)) return;
  for (const CopyState& c : r.copies) {
    if (!c.gone && !c.started) hooks_.prepare(r, c);
  }
}

void CoallocCoordinator::end_request(RequestState& r, const std::string& failure) {
  json event = {{"event", "ended"}, {"request", r.request.id}};
  if (!failure.empty()) event["failure"] = failure;
  record(std::move(event));
}

// After the go: each bound pilot leaves its component's exit code; a pilot whose job ended
// without one, or a run past its timeout, ends the request.
void CoallocCoordinator::watch_launched(RequestState& r) {
  bool all_ended = true;
  for (std::size_t i = 0; i < r.copies.size(); ++i) {
    CopyState& c = r.copies[i];
    if (!c.bound || c.exit_code) continue;
    const std::vector<std::string> done = words_of(dir_ + "/" + c.tag + ".done");
    if (done.size() >= 2 && number(done[0]) && number(done[1])) {
      record({{"event", "component-ended"},
              {"request", r.request.id},
              {"tag", c.tag},
              {"code", static_cast<int>(*number(done[0]))},
              {"ended", *number(done[1])}});
      continue;
    }
    all_ended = false;
    if (!status_due(c.tag)) continue;
    try {
      const JobStatus st = queue(c.system).status(c.job);
      // The done file is written before the pilot exits: look once more after the status.
      if ((st.phase == JobPhase::done || st.phase == JobPhase::failed) &&
          !fs::exists(dir_ + "/" + c.tag + ".done")) {
        record({{"event", "component-ended"},
                {"request", r.request.id},
                {"tag", c.tag},
                {"code", -1},
                {"ended", utc_now()},
                {"why", "its job ended without the pilot's exit code (" + st.state + ")"}});
      }
    } catch (const std::exception& e) {
      record({{"event", "status-failed"},
              {"request", r.request.id},
              {"tag", c.tag},
              {"why", e.what()}});
    }
  }
  if (all_ended) return end_request(r, "");
  if (utc_now() - *r.go > r.request.run_timeout_s) {
    for (CopyState& c : r.copies) {
      if (c.bound && !c.exit_code) cancel_copy(r, c, "run timeout");
    }
    end_request(r, "timed out " + std::to_string(static_cast<long>(r.request.run_timeout_s)) +
                       " s after the joint start");
  }
}

bool RequestState::all_bound() const {
  for (std::size_t k = 0; k < request.ranks.size(); ++k) {
    if (!bound(static_cast<int>(k))) return false;
  }
  return true;
}

// The go of every request whose last component has started. Reads only the pilots' files, so
// step() gives it before each request's slower work (queue queries, cancels and resubmissions,
// each command 0.5-1 s on a busy host, several per request): a start never waits for more than
// one request's commands before its go.
void CoallocCoordinator::give_goes() {
  for (auto& [id, r] : requests_) {
    if (r.phase != RequestPhase::allocating) continue;
    notice_starts(r);
    if (!r.all_bound()) continue;
    hooks_.launch(r);
    record({{"event", "go"}, {"request", id}});
  }
}

void CoallocCoordinator::step() {
  give_goes();
  for (auto& [id, r] : requests_) {
    give_goes();
    if (r.phase == RequestPhase::allocating) {
      watch_copies(r);
      const int components = static_cast<int>(r.request.ranks.size());
      std::string missing;
      for (int k = 0; k < components; ++k) {
        if (r.bound(k)) continue;
        missing += (missing.empty() ? "" : ", ") + std::to_string(k);
        const bool live = std::any_of(r.copies.begin(), r.copies.end(), [&](const CopyState& c) {
          return c.component == k && !c.gone;
        });
        if (!live) {
          for (CopyState& c : r.copies) {
            if (!c.gone) cancel_copy(r, c, "component " + std::to_string(k) + " has no copy left");
          }
          end_request(r, "co-allocation failed: component " + std::to_string(k) +
                             " has no copy left (" + r.copies.back().gone_why + ")");
          break;
        }
      }
      if (r.phase != RequestPhase::allocating) continue;
      cancel_twins(r);
      if (utc_now() - r.first_submitted > settings_.timeout) {
        for (CopyState& c : r.copies) {
          if (!c.gone) cancel_copy(r, c, "co-allocation timeout");
        }
        end_request(r, "co-allocation timed out after " +
                           std::to_string(static_cast<long>(settings_.timeout)) +
                           " s (component(s) " + missing + " not started)");
        continue;
      }
      synchronize(r);
    } else if (r.phase == RequestPhase::launched) {
      cancel_twins(r);
      watch_launched(r);
    }
    if (r.phase == RequestPhase::ended) {
      hooks_.finish(r);
      record({{"event", "recorded"}, {"request", id}});
    }
  }
}

// A bound component's other copies are redundant: cancelled in the same look that bound it,
// right after the go when that look completed the request (the go does not wait for scancel).
// Also after a resume, for twins a killed coordinator had not cancelled yet. Not while an early
// allocation is still to be given back (resubmission, hibernation): that component is not
// satisfied yet, and its request stays duplicated, as in mcb-redundant, where a released part's
// other copies wait on in their queues. Cancelling them left the component a single copy, which
// could queue behind its own partner's duplicate holding the same system until the timeout.
void CoallocCoordinator::cancel_twins(RequestState& r) {
  if (release_pending(r)) return;
  for (std::size_t i = 0; i < r.copies.size(); ++i) {
    const CopyState& twin = r.copies[i];
    if (twin.gone || twin.bound) continue;
    const CopyState* bound = r.bound(twin.component);
    if (!bound) continue;
    const std::string why = "twin started: " + bound->tag + " on " + bound->system;
    cancel_copy(r, r.copies[i], why);
  }
}

std::size_t CoallocCoordinator::in_flight() const {
  return static_cast<std::size_t>(
      std::count_if(requests_.begin(), requests_.end(),
                    [](const auto& kv) { return kv.second.phase != RequestPhase::recorded; }));
}

const RequestState* CoallocCoordinator::find_run(const std::string& run_id) const {
  const RequestState* found = nullptr;
  for (const auto& [id, r] : requests_) {
    if (r.request.run_id == run_id) found = &r;  // the latest attempt
  }
  return found;
}

}  // namespace mcb::campaign
