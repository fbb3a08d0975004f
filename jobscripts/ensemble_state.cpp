#include "jobscripts/ensemble_state.hpp"

namespace mcb::campaign {
using nlohmann::json;

namespace {

EnsembleSegment segment_of(const json& e) {
  EnsembleSegment s;
  s.n = e.at("n").get<int>();
  s.queue = e.at("queue").get<std::string>();
  s.tag = e.at("tag").get<std::string>();
  s.go = e.at("go").get<int>();
  s.from = e.at("from").get<int>();
  s.to = e.at("to").get<int>();
  s.began = e.at("t").get<double>();
  s.predicted = e.value("predicted", 0.0);
  s.per_day = e.value("per_day", 0.0);
  if (e.contains("active")) s.active = e.at("active").get<std::vector<std::string>>();
  if (e.contains("parts")) {
    for (const json& p : e.at("parts")) {
      s.parts.push_back({p.at("queue").get<std::string>(), p.at("tag").get<std::string>(),
                         p.at("go").get<int>(), p.at("processors").get<int>()});
    }
    s.join = e.value("join", "");
  } else {
    s.parts.push_back({s.queue, s.tag, s.go, e.value("processors", 0)});
  }
  return s;
}

}  // namespace

void EnsembleState::apply(const json& e) {
  const std::string kind = e.value("event", "");
  if (kind == "begin") {
    begun = true;
    spec_text = e.at("spec").get<std::string>();
  } else if (kind == "submit") {
    EnsemblePilot p;
    p.queue = e.at("queue").get<std::string>();
    p.tag = e.at("tag").get<std::string>();
    p.submitted = e.at("t").get<double>();
    current[p.queue] = p.tag;
    ++submissions[p.queue];
    pilots[p.tag] = p;
  } else if (kind == "submitted") {
    pilots.at(e.at("tag").get<std::string>()).job = e.at("job").get<std::string>();
  } else if (kind == "active") {
    pilots.at(e.at("tag").get<std::string>()).started = e.at("started").get<double>();
  } else if (kind == "gone" || kind == "orphan") {
    EnsemblePilot& p = pilots.at(e.at("tag").get<std::string>());
    p.gone = true;
    p.gone_why = e.value("why", kind);
  } else if (kind == "active-set") {
    active = e.at("queues").get<std::vector<std::string>>();
  } else if (kind == "remap") {
    ++remaps;
    // Mid-segment: the running segment stops at its next analysis; the next one is remapped.
    if (e.contains("n") && running && running->n == e.at("n").get<int>()) {
      running->stop_asked = true;
      remap_pending = e.at("to_queues").get<std::vector<std::string>>();
    }
  } else if (kind == "segment") {
    remap_pending.clear();
    running = segment_of(e);
    for (const EnsemblePart& p : running->parts) ++pilots.at(p.tag).gos;
    segments = std::max(segments, running->n);
  } else if (kind == "stopping") {
    if (running) running->stopping = e.value("why", "stopped");
  } else if (kind == "segment-end") {
    const std::string outcome = e.at("outcome").get<std::string>();
    if (outcome == "done") {
      day = e.value("day", running->to);  // a segment asked to stop ends at an earlier day
      site = running->queue;
      mapping.clear();
      for (const EnsemblePart& p : running->parts) mapping.push_back(p.queue);
      failures = 0;
      verdict = e.value("status", "");
      verdict_reason = e.value("reason", "");
      if (verdict != "valid") ++invalid_segments;
    } else if (outcome == "killed") {
      ++kills;
    } else {
      ++failures;
    }
    running.reset();
  } else if (kind == "finished") {
    finished = true;
  } else if (kind == "gave-up") {
    gave_up = e.at("why").get<std::string>();
  }
}

const EnsemblePilot* EnsembleState::live_pilot(const std::string& queue) const {
  const auto it = current.find(queue);
  if (it == current.end()) return nullptr;
  const EnsemblePilot& p = pilots.at(it->second);
  return p.gone ? nullptr : &p;
}

}  // namespace mcb::campaign
