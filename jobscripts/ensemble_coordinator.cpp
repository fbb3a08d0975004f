#include "jobscripts/ensemble_coordinator.hpp"

#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/jsonl.hpp"
#include "jobscripts/app_check.hpp"
#include "jobscripts/shell.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

SegmentChoice choose_queue(const EnsembleSpec& spec, const EnsembleState& state,
                           const std::vector<std::string>& active, double restart_bytes,
                           double now) {
  SegmentChoice best;
  double best_rate = 0;  // model days per predicted second
  const int wanted = std::min(spec.checkpoint_every, spec.horizon - state.day);
  for (const EnsembleQueue& q : spec.queues) {
    if (std::find(active.begin(), active.end(), q.name) == active.end()) continue;
    const EnsemblePilot* p = state.live_pilot(q.name);
    const double left = q.time_limit - (now - *p->started);
    double transfer = 0;
    if (state.day > 0 && q.name != state.site) {
      transfer =
          spec.link_latency + (spec.link_bandwidth > 0 ? restart_bytes / spec.link_bandwidth : 0);
    }
    const double per_day = q.seconds_per_day();
    const int fit = static_cast<int>(std::floor((left - transfer) / per_day));
    const int days = std::min(wanted, fit);
    if (days < 1) continue;
    const double predicted = transfer + days * per_day;
    const double rate = days / predicted;
    // Staying on the site that holds the restart file wins a tie.
    if (!best.queue || rate > best_rate * (1 + 1e-9) ||
        (rate >= best_rate * (1 - 1e-9) && q.name == state.site)) {
      best = {&q, days, transfer, predicted};
      best_rate = rate;
    }
  }
  return best;
}

EnsembleCoordinator::EnsembleCoordinator(const EnsembleSpec& spec, std::string dir)
    : spec_(spec), dir_(std::move(dir)), journal_(dir_ + "/events.jsonl") {
  for (const json& e : journal_.replay()) apply(e);
  if (state_.begun && state_.spec_text != spec_.text) {
    throw UsageError("--state: '" + dir_ + "' holds a run of another spec (its events.jsonl); " +
                     "give a fresh folder or the spec it was started with");
  }
  for (const char* sub : {"/pilots", "/sites", "/records", "/logs"})
    fs::create_directories(dir_ + sub);
  for (const EnsembleQueue& q : spec_.queues) fs::create_directories(dir_ + "/sites/" + q.name);
  write_file_atomically(dir_ + "/ensemble-pilot.sh", ensemble_pilot_template());
  write_file_atomically(dir_ + "/ensflow.ini", config_text(spec_.options));
  fs::permissions(dir_ + "/ensemble-pilot.sh", fs::perms::owner_all, fs::perm_options::add);
  std::set<std::string> watched;
  systems_.reserve(spec_.queues.size());
  submitters_.reserve(spec_.queues.size());
  for (const EnsembleQueue& q : spec_.queues) {
    systems_.push_back(make_queue(q.system));
    submitters_.emplace_back(q, *systems_.back(), dir_);
    if (watched.insert(q.system.name).second) {
      monitors_.emplace_back(spec_, q.system.name, *systems_.back(), dir_);
    }
  }
  if (!state_.begun) {
    record({{"event", "begin"},
            {"spec", spec_.text},
            {"horizon", spec_.horizon},
            {"checkpoint_every", spec_.checkpoint_every}});
  } else {
    record({{"event", "resumed"}, {"day", state_.day}});
  }
  adopt_orphans();
  // Killed between journaling a segment and writing its go: the same go again.
  if (state_.running && !fs::exists(go_file(*state_.running))) write_go(*state_.running);
}

const EnsembleQueue& EnsembleCoordinator::queue(const std::string& name) const {
  for (const EnsembleQueue& q : spec_.queues) {
    if (q.name == name) return q;
  }
  throw std::logic_error("no queue '" + name + "'");
}

// A submission journaled without its job id (the runner was killed inside sbatch or qsub): the
// pilot, if it was submitted, finds its cancel file and ends; the submitter sends another.
void EnsembleCoordinator::adopt_orphans() {
  for (const auto& [tag, p] : state_.pilots) {
    if (p.gone || !p.job.empty()) continue;
    write_file_atomically(pilots_dir(dir_) + "/" + tag + ".cancel", "");
    record({{"event", "orphan"}, {"queue", p.queue}, {"tag", tag}, {"why", "no job id journaled"}});
  }
}

std::string EnsembleCoordinator::restart_file(const std::string& queue, int day) const {
  return dir_ + "/sites/" + queue + "/day-" + std::to_string(day) + ".rst";
}

std::string EnsembleCoordinator::go_file(const EnsembleSegment& s) const {
  return pilots_dir(dir_) + "/" + s.tag + ".go." + std::to_string(s.go);
}

std::string EnsembleCoordinator::record_file(int n) const {
  return dir_ + "/records/segment-" + std::to_string(n) + ".jsonl";
}

void EnsembleCoordinator::step() {
  const auto apply_fn = [this](const json& e) { apply(e); };
  if (!done()) {
    for (EnsembleSubmitter& s : submitters_) s.step(state_, journal_, apply_fn);
  }
  for (EnsembleMonitor& m : monitors_) m.step(state_, journal_, apply_fn);
  watch_active_set();
  if (state_.running) watch_segment();
  if (done()) return;
  if (state_.day >= spec_.horizon) {
    record(finished_event());
    return;
  }
  if (!state_.running) start_segment();
}

void EnsembleCoordinator::watch_active_set() {
  const std::vector<std::string> now = active_queues(spec_, state_);
  if (now == state_.active) return;
  record({{"event", "active-set"}, {"queues", now}, {"was", state_.active}, {"day", state_.day}});
}

// A segment is done when its restart file exists (mcb-ensflow writes it whole, at its stop day
// only, as --checkpoint-every is the horizon), or, for the last, when its record reached it.
bool EnsembleCoordinator::committed(const EnsembleSegment& s) const {
  if (fs::exists(restart_file(s.queue, s.to))) return true;
  if (s.to < spec_.horizon || !fs::exists(record_file(s.n))) return false;
  const jsonl::Contents c = jsonl::read(record_file(s.n), {}, true);
  if (c.lines.empty()) return false;
  const json& r = c.lines.back().doc;
  return r.contains("result") && r["result"].contains("restart") &&
         r["result"]["restart"].value("last_day", -1) == s.to;
}

void EnsembleCoordinator::watch_segment() {
  const EnsembleSegment s = *state_.running;
  const EnsemblePilot& p = state_.pilots.at(s.tag);
  const std::string done_file = pilots_dir(dir_) + "/" + s.tag + ".done." + std::to_string(s.go);
  std::ifstream in(done_file);
  int code = -1;
  double ended = 0;
  const bool exited = static_cast<bool>(in >> code >> ended);
  if (!exited && !p.gone) return;
  json e = {{"event", "segment-end"}, {"n", s.n},   {"queue", s.queue},
            {"from", s.from},         {"to", s.to}, {"predicted", s.predicted}};
  if (committed(s)) {
    e["outcome"] = "done";
    e["took"] = (exited ? ended : utc_now()) - s.began;
    if (fs::exists(record_file(s.n))) {
      const jsonl::Contents c = jsonl::read(record_file(s.n), {}, true);
      if (!c.lines.empty()) {
        const json& r = c.lines.back().doc;
        e["status"] = r.value("status", "");
        if (r.value("status", "") != "valid") e["reason"] = r.value("reason", "");
        if (r.contains("result") && r["result"].is_object()) {
          e["wall_time"] = r["result"].value("wall_time", 0.0);  // the model days' compute alone
        }
      }
    }
  } else if (!exited) {
    e["outcome"] = "killed";
    e["why"] = "pilot " + s.tag + " ended: " + p.gone_why;
  } else {
    e["outcome"] = "failed";
    e["why"] = "exit code " + std::to_string(code) + " and no restart file (log: " + dir_ +
               "/logs/segment-" + std::to_string(s.n) + ".log)";
  }
  if (exited) e["exit_code"] = code;
  record(e);
  if (state_.failures >= spec_.max_failures) {
    record({{"event", "gave-up"},
            {"why", std::to_string(state_.failures) +
                        " segments in a row failed; the last: " + e["why"].get<std::string>()}});
  }
}

void EnsembleCoordinator::start_segment() {
  const std::vector<std::string>& active = state_.active;
  if (active.empty()) return;
  const std::string from_file = restart_file(state_.site, state_.day);
  const double bytes = state_.day > 0 ? static_cast<double>(fs::file_size(from_file)) : 0.0;
  const SegmentChoice c = choose_queue(spec_, state_, active, bytes, utc_now());
  if (!c.queue) return;
  const EnsemblePilot& p = *state_.live_pilot(c.queue->name);
  if (!state_.site.empty() && c.queue->name != state_.site) {
    const bool lost = std::find(active.begin(), active.end(), state_.site) == active.end();
    record({{"event", "remap"},
            {"from", state_.site},
            {"to", c.queue->name},
            {"day", state_.day},
            {"active", active},
            {"why",
             lost ? "queue " + state_.site + " has no active job"
                  : "active set " + json(active).dump() + " predicts " + c.queue->name + " faster"},
            {"from_seconds_per_day", queue(state_.site).seconds_per_day()},
            {"to_seconds_per_day", c.queue->seconds_per_day()},
            {"restart_bytes", bytes},
            {"transfer_predicted", c.transfer}});
    transfer_restart(*c.queue, c.transfer);
  }
  EnsembleSegment s;
  s.n = state_.segments + 1;
  s.queue = c.queue->name;
  s.tag = p.tag;
  s.go = p.gos + 1;
  s.from = state_.day;
  s.to = state_.day + c.days;
  record({{"event", "segment"},
          {"n", s.n},
          {"queue", s.queue},
          {"tag", s.tag},
          {"go", s.go},
          {"from", s.from},
          {"to", s.to},
          {"processors", c.queue->processors},
          {"predicted", c.predicted},
          {"model", c.queue->model}});
  write_go(*state_.running);
}

// The restart file crosses to the new site's folder (a copy on the rig's shared file system),
// timed, before the segment that reads it is journaled.
void EnsembleCoordinator::transfer_restart(const EnsembleQueue& to, double predicted) {
  const std::string from = restart_file(state_.site, state_.day);
  const std::string target = restart_file(to.name, state_.day);
  const auto start = std::chrono::steady_clock::now();
  const std::string tmp = target + ".tmp";
  fs::copy_file(from, tmp, fs::copy_options::overwrite_existing);
  fs::rename(tmp, target);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  record({{"event", "transfer"},
          {"from", state_.site},
          {"to", to.name},
          {"day", state_.day},
          {"bytes", fs::file_size(target)},
          {"seconds", took},
          {"predicted", predicted}});
}

void EnsembleCoordinator::write_go(const EnsembleSegment& s) const {
  const EnsembleQueue& q = queue(s.queue);
  std::vector<std::string> argv = spec_.launcher;
  if (!spec_.np_flag.empty())
    argv.insert(argv.end(), {spec_.np_flag, std::to_string(q.processors)});
  argv.push_back(spec_.binary);
  argv.insert(argv.end(), {"--config", dir_ + "/ensflow.ini"});
  argv.insert(argv.end(), {"--days", std::to_string(spec_.horizon)});
  if (s.from > 0) argv.insert(argv.end(), {"--restart", restart_file(s.queue, s.from)});
  argv.insert(argv.end(), {"--checkpoint", restart_file(s.queue, s.to), "--checkpoint-every",
                           std::to_string(spec_.horizon)});
  if (s.to < spec_.horizon) argv.insert(argv.end(), {"--stop-at-day", std::to_string(s.to)});
  argv.insert(argv.end(), {"--output", record_file(s.n)});
  std::ostringstream go;
  go << "#!/bin/bash\n# segment " << s.n << ": model days " << s.from + 1 << " to " << s.to
     << " on " << s.queue << " (written by mcb-ensemble)\n"
     << "cd " << shell_quote(dir_) << " || exit 2\n"
     << shell_words(argv) << " >"
     << shell_quote(dir_ + "/logs/segment-" + std::to_string(s.n) + ".log") << " 2>&1\n";
  write_file_atomically(go_file(s), go.str());
}

void EnsembleCoordinator::finish() {
  for (EnsembleSubmitter& s : submitters_) s.cancel(state_);
  if (!state_.finished && state_.gave_up.empty()) record(finished_event());
}

// The run's verdict is its last segment's (mcb-ensflow judges a segment on days 1 to its stop
// day); a segment without a record (its pilot killed after the restart file) counts as invalid.
json EnsembleCoordinator::finished_event() const {
  json e = {{"event", "finished"},
            {"day", state_.day},
            {"verdict", state_.verdict.empty() ? "invalid" : state_.verdict},
            {"invalid_segments", state_.invalid_segments}};
  if (state_.verdict.empty()) {
    e["reason"] = "the last segment left no record";
  } else if (state_.verdict != "valid") {
    e["reason"] = state_.verdict_reason;
  }
  return e;
}

void EnsembleCoordinator::summary(std::ostream& out) const {
  double first = 0, last = 0, waited = 0;
  int starts = 0;
  for (const json& e : journal_.replay()) {
    if (first == 0) first = e.value("t", 0.0);
    last = e.value("t", 0.0);
    if (e.value("event", "") == "active") {
      waited += e.value("waited", 0.0);
      ++starts;
    }
  }
  const double hours = (last - first) / 3600;
  out << "mcb-ensemble: day " << state_.day << " of " << spec_.horizon << " in " << state_.segments
      << " segments, " << state_.remaps << " remaps, " << state_.kills
      << " segments killed at a queue's limit\n";
  int submitted = 0;
  for (const auto& [q, n] : state_.submissions) submitted += n;
  out << "mcb-ensemble: " << submitted << " pilots submitted, " << starts << " started, mean wait "
      << (starts ? waited / starts : 0.0) << " s; " << (hours > 0 ? state_.day / hours : 0.0)
      << " model days per wall-clock hour\n";
  if (!state_.gave_up.empty()) out << "mcb-ensemble: gave up: " << state_.gave_up << "\n";
  if (state_.finished && state_.day >= spec_.horizon) {
    const json f = finished_event();
    out << "mcb-ensemble: the run is " << (f["verdict"] == "valid" ? "VALID" : "INVALID")
        << " (its last segment judges days 1 to " << state_.day << "; " << state_.invalid_segments
        << " of the done segments invalid)"
        << (f.contains("reason") ? ": " + f["reason"].get<std::string>() : "") << "\n";
  }
}

}  // namespace mcb::campaign
