#include "jobscripts/ensemble_monitor.hpp"

#include "jobscripts/ensemble_submitter.hpp"

#include <filesystem>
#include <fstream>

namespace mcb::campaign {

EnsembleMonitor::EnsembleMonitor(const EnsembleSpec& spec, std::string system, BatchQueue& queue,
                                 std::string dir)
    : spec_(spec), system_(std::move(system)), queue_(queue), dir_(std::move(dir)) {}

void EnsembleMonitor::step(const EnsembleState& state, const CoallocJournal& journal,
                           const std::function<void(const nlohmann::json&)>& apply) {
  for (const EnsembleQueue& q : spec_.queues) {
    if (q.system.name != system_) continue;
    const EnsemblePilot* p = state.live_pilot(q.name);
    if (!p || p->job.empty()) continue;
    const std::string base = pilots_dir(dir_) + "/" + p->tag;
    if (!p->started) {
      std::ifstream in(base + ".active");
      double started = 0;
      std::string hosts;
      if (in >> started >> hosts) {
        apply(journal.append({{"event", "active"},
                              {"queue", q.name},
                              {"tag", p->tag},
                              {"job", p->job},
                              {"started", started},
                              {"waited", started - p->submitted},
                              {"hosts", hosts}}));
      }
    }
    const double now = utc_now();
    double& last = last_status_[p->tag];
    if (now - last < spec_.status_every) continue;
    last = now;
    JobStatus s;
    try {
      s = queue_.status(p->job);
    } catch (const std::runtime_error& e) {
      continue;  // asked again at the next look; a system that stays silent keeps the pilot
    }
    if (s.phase == JobPhase::done || s.phase == JobPhase::failed) {
      apply(journal.append({{"event", "gone"},
                            {"queue", q.name},
                            {"tag", p->tag},
                            {"job", p->job},
                            {"state", s.state},
                            {"why", s.reason.empty() ? s.state : s.state + ": " + s.reason},
                            {"ran", p->started ? now - *p->started : 0.0}}));
    }
  }
}

std::vector<std::string> active_queues(const EnsembleSpec& spec, const EnsembleState& state) {
  std::vector<std::string> active;
  for (const EnsembleQueue& q : spec.queues) {
    const EnsemblePilot* p = state.live_pilot(q.name);
    if (p && p->started) active.push_back(q.name);
  }
  return active;
}

}  // namespace mcb::campaign
