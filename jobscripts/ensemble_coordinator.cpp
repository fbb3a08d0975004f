#include "jobscripts/ensemble_coordinator.hpp"

#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/jsonl.hpp"
#include "jobscripts/app_check.hpp"
#include "jobscripts/process.hpp"
#include "jobscripts/shell.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

EnsembleCoordinator::EnsembleCoordinator(const EnsembleSpec& spec, std::string dir)
    : spec_(spec),
      dir_(std::move(dir)),
      journal_(dir_ + "/events.jsonl"),
      server_(spec_.ompi_server, {}, journal_, dir_) {
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
  if (!state_.running) return;
  // A joined segment whose rendezvous died with the runner cannot join: its parts are stopped
  // and it runs again. Otherwise the segment is adopted; killed between journaling it and
  // writing its go, the same go again.
  if (!state_.running->join.empty() && !server_.running() && state_.running->stopping.empty()) {
    stop_parts(*state_.running, "its ompi-server ended with the runner");
  }
  if (state_.running->stopping.empty()) write_go(*state_.running);
  // A remap journaled mid-segment whose stop file the kill kept from being written.
  if (state_.running->stop_asked && !fs::exists(stop_file(state_.running->n))) {
    write_file_atomically(stop_file(state_.running->n), "");
  }
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

std::string EnsembleCoordinator::pilot_file(const EnsemblePart& p, const std::string& kind) const {
  return pilots_dir(dir_) + "/" + p.tag + "." + kind + "." + std::to_string(p.go);
}

std::string EnsembleCoordinator::go_file(const EnsemblePart& p) const {
  return pilot_file(p, "go");
}

std::string EnsembleCoordinator::record_file(int n) const {
  return dir_ + "/records/segment-" + std::to_string(n) + ".jsonl";
}

// Segment n's mcb-ensflow stops at its next analysis once this file exists (--stop-file).
std::string EnsembleCoordinator::stop_file(int n) const {
  return dir_ + "/records/segment-" + std::to_string(n) + ".stop";
}

void EnsembleCoordinator::step() {
  const auto apply_fn = [this](const json& e) { apply(e); };
  if (!done()) {
    for (EnsembleSubmitter& s : submitters_) s.step(state_, journal_, apply_fn);
  }
  for (EnsembleMonitor& m : monitors_) m.step(state_, journal_, apply_fn);
  watch_active_set();
  if (state_.running) watch_segment();
  if (state_.running && !done()) consider_remap();
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

namespace {

// The last day a segment's record says it computed (-1 without a record).
int record_last_day(const std::string& file) {
  if (!fs::exists(file)) return -1;
  const jsonl::Contents c = jsonl::read(file, {}, true);
  if (c.lines.empty()) return -1;
  const json& r = c.lines.back().doc;
  if (!r.contains("result") || !r["result"].is_object() || !r["result"].contains("restart")) {
    return -1;
  }
  return r["result"]["restart"].value("last_day", -1);
}

}  // namespace

// The day a segment's work is committed to, or none. A segment is done when its record (its
// verdict, written last) reached its stop day and, before the horizon, its restart file exists
// (mcb-ensflow writes it whole, at its stop day only, as --checkpoint-every is the horizon). A
// segment asked to stop (its stop file) wrote that file under day `to`'s name at the analysis it
// stopped at, which only its record tells: the file is renamed to that day's name (then
// journaled; a runner killed between finds it renamed). Without a record (its pilot killed
// between the file and the record) the segment has no verdict and, when stopped, no known day:
// the file goes and the segment runs again, so no day is lost, counted twice or left unjudged.
std::optional<int> EnsembleCoordinator::committed_day(const EnsembleSegment& s) {
  const std::string written = restart_file(s.queue, s.to);
  const int day = record_last_day(record_file(s.n));
  if (!s.stop_asked) {
    if (day == s.to && (s.to == spec_.horizon || fs::exists(written))) return s.to;
    fs::remove(written);
    return std::nullopt;
  }
  if (day <= s.from || day > s.to) {
    fs::remove(written);
    return std::nullopt;
  }
  const std::string target = restart_file(s.queue, day);
  if (day < s.to && fs::exists(written)) fs::rename(written, target);
  if (fs::exists(target) || day == spec_.horizon) return day;
  return std::nullopt;
}

namespace {

// The figures of a done segment's record: its verdict and its compute time.
void add_record_figures(json& e, const std::string& file) {
  if (!fs::exists(file)) return;
  const jsonl::Contents c = jsonl::read(file, {}, true);
  if (c.lines.empty()) return;
  const json& r = c.lines.back().doc;
  e["status"] = r.value("status", "");
  if (r.value("status", "") != "valid") e["reason"] = r.value("reason", "");
  if (r.contains("result") && r["result"].is_object()) {
    e["wall_time"] = r["result"].value("wall_time", 0.0);  // the model days' compute alone
  }
}

// How one part of a segment ended: its pilot's done file (exit code, time), or its pilot gone.
struct PartEnd {
  bool exited = false;
  int code = -1;
  double ended = 0;
  bool gone = false;
};

}  // namespace

// A segment ends when part 0 (its rank 0 writes the restart file and the record) exited, when a
// part's pilot ended without it (its queue's limit, a cancel), or when another part failed and
// part 0 did not follow within the join's timeout. Parts still running are then stopped.
void EnsembleCoordinator::watch_segment() {
  const EnsembleSegment s = *state_.running;
  std::vector<PartEnd> ends;
  bool lost = false, straggling = false;
  std::string lost_why;
  for (const EnsemblePart& part : s.parts) {
    PartEnd end;
    std::ifstream in(pilot_file(part, "done"));
    end.exited = static_cast<bool>(in >> end.code >> end.ended);
    const EnsemblePilot& p = state_.pilots.at(part.tag);
    end.gone = p.gone;
    if (!end.exited && end.gone && !lost) {
      lost = true;
      lost_why = "pilot " + part.tag + " ended: " + p.gone_why;
    }
    if (&part != &s.parts.front() && end.exited && end.code != 0 &&
        utc_now() - end.ended > spec_.join_timeout) {
      straggling = true;
    }
    ends.push_back(end);
  }
  const PartEnd& lead = ends.front();
  if (!lead.exited && !lost && !straggling) return;
  for (std::size_t k = 0; k < s.parts.size(); ++k) {
    if (!ends[k].exited && !ends[k].gone) {
      write_file_atomically(pilot_file(s.parts[k], "stop"), "");
    }
  }
  json e = {{"event", "segment-end"}, {"n", s.n},   {"queue", s.queue},
            {"from", s.from},         {"to", s.to}, {"predicted", s.predicted}};
  if (s.parts.size() > 1) {
    json codes = json::array();
    for (const PartEnd& end : ends) codes.push_back(end.exited ? json(end.code) : json(nullptr));
    e["queues"] = json::array();
    for (const EnsemblePart& part : s.parts) e["queues"].push_back(part.queue);
    e["exit_codes"] = codes;
  }
  if (const std::optional<int> day = committed_day(s)) {
    e["outcome"] = "done";
    e["day"] = *day;
    if (*day < s.to) e["stopped_at"] = *day;  // at its stop file, for a remap
    e["took"] = (lead.exited ? lead.ended : utc_now()) - s.began;
    add_record_figures(e, record_file(s.n));
  } else if (!s.stopping.empty()) {
    e["outcome"] = "killed";
    e["why"] = "stopped by the runner: " + s.stopping;
  } else if (lost) {
    e["outcome"] = "killed";
    e["why"] = lost_why;
  } else {
    e["outcome"] = "failed";
    e["why"] = "exit code " + std::to_string(lead.exited ? lead.code : -1) +
               " and no restart file (log: " + dir_ + "/logs/segment-" + std::to_string(s.n) +
               ".log)";
  }
  if (lead.exited) e["exit_code"] = lead.code;
  record(e);
  if (state_.failures >= spec_.max_failures) {
    record({{"event", "gave-up"},
            {"why", std::to_string(state_.failures) +
                        " segments in a row failed; the last: " + e["why"].get<std::string>()}});
  }
}

// Seed 003 reschedules whenever the set of active queues changes (section 2: "the CCSM ... is
// made to create a restart dump ... components are remapped"), onto the mapping its scheduler
// predicts fastest with the restart files' transfer (section 3.2). Here the running segment is
// asked to stop at its next analysis (its stop file) when the mapping chosen now, for the days
// the segment still has after that analysis, is predicted sooner than staying, the restart
// file's transfer included: stopping costs the transfer and gains the faster pace over those
// days. Its progress is estimated from its predicted pace (the runner sees no model day until
// the segment ends); the first segment's spin-up makes that estimate late, so it remaps less.
void EnsembleCoordinator::consider_remap() {
  const EnsembleSegment& s = *state_.running;
  if (s.stop_asked || state_.active == s.active) return;
  // Before a record gives it: [options]' analysis-every (checked by mcb-ensflow); without it the
  // first segment is not stopped (the runner does not restate mcb-ensflow's default).
  const std::optional<EnsembleShape> known = shape();
  int every = 0;
  for (const auto& [key, value] : spec_.options) {
    if (key == "analysis-every") every = std::max(1, std::atoi(value.c_str()));
  }
  if (known) every = known->analysis_every;
  const std::string file = restart_file(state_.site, state_.day);
  const double bytes =
      state_.day > 0 && fs::exists(file) ? static_cast<double>(fs::file_size(file)) : 0.0;
  const std::optional<MidSegmentRemap> r =
      mid_segment_remap(spec_, state_, state_.active, every, bytes, utc_now(), known);
  if (!r) return;
  const int n = s.n;
  record(
      {{"event", "remap"},
       {"n", n},
       {"mid_segment", true},
       {"from", s.queue},
       {"to", r->choice.queue->name},
       {"from_queues", r->from},
       {"to_queues", r->to},
       {"day", state_.day},
       {"stop_estimate", r->stop},
       {"active", state_.active},
       {"why", "active set changed mid-segment: " + json(state_.active).dump() + " predicts " +
                   json(r->to).dump() + " faster for the segment's days after its next analysis"},
       {"from_seconds_per_day", s.per_day},
       {"to_seconds_per_day", r->choice.per_day},
       {"days_left", r->days},
       {"stay_predicted", r->stay},
       {"move_predicted", r->move},
       {"restart_bytes", bytes},
       {"transfer_predicted", r->choice.transfer},
       {"stop_file", stop_file(n)}});
  write_file_atomically(stop_file(n), "");
}

// The runner ends a segment's parts itself (journaled first: a runner killed meanwhile still
// counts the segment as stopped, not failed); each pilot ends its part's mpirun.
void EnsembleCoordinator::stop_parts(const EnsembleSegment& s, const std::string& why) {
  record({{"event", "stopping"}, {"n", s.n}, {"why", why}});
  for (const EnsemblePart& p : s.parts) write_file_atomically(pilot_file(p, "stop"), "");
}

// The shape of the run (members, observations, state size, analysis interval) from the newest
// segment record that has it; the same for every segment of one spec.
std::optional<EnsembleShape> EnsembleCoordinator::shape() {
  for (int n = state_.segments; n >= 1 && !shape_; --n) {
    if (!fs::exists(record_file(n))) continue;
    const jsonl::Contents c = jsonl::read(record_file(n), {}, true);
    if (!c.lines.empty()) shape_ = shape_of_record(c.lines.back().doc);
  }
  return shape_;
}

void EnsembleCoordinator::start_segment() {
  const std::vector<std::string> active = state_.active;
  if (active.empty()) return;
  const std::string from_file = restart_file(state_.site, state_.day);
  const double bytes = state_.day > 0 ? static_cast<double>(fs::file_size(from_file)) : 0.0;
  const SegmentChoice c = choose_mapping(spec_, state_, active, bytes, utc_now(), shape());
  if (!c.queue) return;
  std::vector<std::string> to;
  for (const EnsembleQueue* q : c.parts) to.push_back(q->name);
  // A remap journaled mid-segment is this segment's, when it chose the same.
  if (!state_.mapping.empty() && to != state_.mapping && to != state_.remap_pending) {
    const bool lost = std::find(active.begin(), active.end(), state_.site) == active.end();
    record({{"event", "remap"},
            {"from", state_.site},
            {"to", c.queue->name},
            {"from_queues", state_.mapping},
            {"to_queues", to},
            {"day", state_.day},
            {"active", active},
            {"why", lost ? "queue " + state_.site + " has no active job"
                         : "active set " + json(active).dump() + " predicts " + json(to).dump() +
                               " faster"},
            {"from_seconds_per_day", queue(state_.site).seconds_per_day()},
            {"to_seconds_per_day", c.per_day},
            {"restart_bytes", bytes},
            {"transfer_predicted", c.transfer}});
  }
  if (!state_.site.empty() && c.queue->name != state_.site) transfer_restart(*c.queue, c.transfer);
  // The rendezvous runs (and is journaled) before the segment that needs it, so that a runner
  // killed after journaling the segment finds it to adopt.
  if (c.parts.size() > 1) server_.uri_file();
  record(segment_event(c));
  write_go(*state_.running);
}

json EnsembleCoordinator::segment_event(const SegmentChoice& c) const {
  const int n = state_.segments + 1;
  json parts = json::array();
  json queues = json::array();
  for (const EnsembleQueue* q : c.parts) {
    const EnsemblePilot& p = *state_.live_pilot(q->name);
    parts.push_back(
        {{"queue", q->name}, {"tag", p.tag}, {"go", p.gos + 1}, {"processors", q->processors}});
    queues.push_back(q->name);
  }
  json e = {{"event", "segment"},
            {"n", n},
            {"queue", c.queue->name},
            {"tag", parts[0]["tag"]},
            {"go", parts[0]["go"]},
            {"queues", queues},
            {"parts", parts},
            {"from", state_.day},
            {"to", state_.day + c.days},
            {"processors", c.processors()},
            {"per_day", c.per_day},
            {"predicted", c.predicted},
            {"active", state_.active},
            {"model", c.queue->model}};
  if (c.parts.size() > 1) {
    // A fresh name for every attempt: a join left behind by a killed one is never met again.
    e["join"] = "mcb-ensemble.s" + std::to_string(n) + "." + random_token();
    e["link_seconds_per_day"] = c.traffic;
  }
  return e;
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

// Every part's go not yet written (a runner started again writes only the missing ones).
void EnsembleCoordinator::write_go(const EnsembleSegment& s) {
  const std::string uri = s.join.empty() ? "" : server_.uri_file();
  for (std::size_t k = 0; k < s.parts.size(); ++k) {
    if (!fs::exists(go_file(s.parts[k]))) write_part_go(s, k, uri);
  }
}

// Part k's mpirun: its ranks, and for a joined segment the MCB_JOIN variables (docs/join.md),
// the rendezvous and the cluster map; every part runs the same command line, and part 0's rank 0
// (rank 0 of the joined job) reads and writes the restart file in its site's folder and writes
// the record.
void EnsembleCoordinator::write_part_go(const EnsembleSegment& s, std::size_t k,
                                        const std::string& uri) const {
  const EnsemblePart& part = s.parts[k];
  const bool joined = s.parts.size() > 1;
  std::vector<std::string> argv = spec_.launcher;
  if (joined) argv.insert(argv.end(), {"--ompi-server", "file:" + uri});
  if (!spec_.np_flag.empty())
    argv.insert(argv.end(), {spec_.np_flag, std::to_string(part.processors)});
  argv.push_back(spec_.binary);
  argv.insert(argv.end(), {"--config", dir_ + "/ensflow.ini"});
  argv.insert(argv.end(), {"--days", std::to_string(spec_.horizon)});
  if (s.from > 0) argv.insert(argv.end(), {"--restart", restart_file(s.queue, s.from)});
  argv.insert(argv.end(), {"--checkpoint", restart_file(s.queue, s.to), "--checkpoint-every",
                           std::to_string(spec_.horizon)});
  if (s.to < spec_.horizon) argv.insert(argv.end(), {"--stop-at-day", std::to_string(s.to)});
  argv.insert(argv.end(), {"--stop-file", stop_file(s.n)});
  if (joined) argv.insert(argv.end(), {"--cluster-map", "env:MCB_CLUSTER"});
  argv.insert(argv.end(), {"--output", record_file(s.n)});
  std::string log = dir_ + "/logs/segment-" + std::to_string(s.n);
  if (k > 0) log += ".part-" + std::to_string(k);
  std::ostringstream go;
  go << "#!/bin/bash\n# segment " << s.n << ": model days " << s.from + 1 << " to " << s.to
     << " on " << part.queue;
  if (joined) go << ", part " << k << " of " << s.parts.size() << " joined as " << s.join;
  go << " (written by mcb-ensemble)\n"
     << "cd " << shell_quote(dir_) << " || exit 2\n";
  if (joined) {
    int ranks = 0;
    for (const EnsemblePart& p : s.parts) ranks += p.processors;
    go << "export MCB_CLUSTER=" << shell_quote(part.queue) << "\n"
       << join_exports(s.join, static_cast<int>(k), static_cast<int>(s.parts.size()), ranks,
                       spec_.join_timeout);
  }
  go << shell_words(argv) << " >" << shell_quote(log + ".log") << " 2>&1\n";
  write_file_atomically(go_file(part), go.str());
}

void EnsembleCoordinator::finish() {
  for (EnsembleSubmitter& s : submitters_) s.cancel(state_);
  server_.stop();
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
