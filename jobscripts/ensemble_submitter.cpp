#include "jobscripts/ensemble_submitter.hpp"

#include "common/files.hpp"

namespace mcb::campaign {

std::string pilots_dir(const std::string& dir) { return dir + "/pilots"; }

EnsembleSubmitter::EnsembleSubmitter(const EnsembleQueue& queue, BatchQueue& system,
                                     std::string dir)
    : queue_(queue), system_(system), dir_(std::move(dir)) {}

void EnsembleSubmitter::step(const EnsembleState& state, const CoallocJournal& journal,
                             const std::function<void(const nlohmann::json&)>& apply) {
  if (state.finished || state.live_pilot(queue_.name)) return;
  const auto count = state.submissions.find(queue_.name);
  const std::string tag =
      queue_.name + "-" + std::to_string(count == state.submissions.end() ? 1 : count->second + 1);
  apply(journal.append({{"event", "submit"}, {"queue", queue_.name}, {"tag", tag}}));
  JobRequest r;
  r.script = dir_ + "/ensemble-pilot.sh";
  r.args = {pilots_dir(dir_), tag};
  r.name = "ens-" + tag;
  r.processors = queue_.processors;
  r.time_limit_s = queue_.time_limit;
  r.workdir = dir_;
  r.output = pilots_dir(dir_) + "/" + tag + ".out";
  const std::string job = system_.submit(r);
  apply(journal.append({{"event", "submitted"}, {"tag", tag}, {"job", job}}));
}

void EnsembleSubmitter::cancel(const EnsembleState& state) {
  const EnsemblePilot* p = state.live_pilot(queue_.name);
  if (!p) return;
  write_file_atomically(pilots_dir(dir_) + "/" + p->tag + ".cancel", "");
  if (!p->job.empty()) {
    try {
      system_.cancel(p->job);
    } catch (const std::runtime_error&) {
      // Already ended: the cancel file covers a pilot that has not started yet.
    }
  }
}

}  // namespace mcb::campaign
