#pragma once
/// @file
/// @brief The coordinator of a multi-queue ensemble run (seed 003, section 5). The run goes in
/// segments of at most checkpoint-every model days, each one mcb-ensflow job started by a
/// queue's pilot from the restart file of the day before and stopped with a restart file
/// (--restart, --checkpoint, --stop-at-day). Before each segment the coordinator maps the run
/// onto the active queue with the smallest predicted time per model day: a + b/P there, plus
/// the restart file's transfer over the inter-site link when it lies at another site, the
/// segment cut to fit the pilot's remaining time; or, when a set of active queues joined into
/// one MPI job is predicted faster (ensemble_mapping.hpp), onto that set. A change of the active
/// set remaps the run: at the running segment's next analysis (its stop file) when the new
/// mapping is predicted to do the segment's remaining days sooner, the restart file's transfer
/// included, else at the segment's end; a pilot killed at its queue's limit is
/// resubmitted by its submitter, and its segment, whose restart file was never written, runs again
/// from the last one. Every decision goes to the event log (ensemble_state.hpp), the runner's only
/// state.

#include "jobscripts/coalloc_journal.hpp"
#include "jobscripts/coalloc_launch.hpp"
#include "jobscripts/ensemble_mapping.hpp"
#include "jobscripts/ensemble_monitor.hpp"
#include "jobscripts/ensemble_spec.hpp"
#include "jobscripts/ensemble_state.hpp"
#include "jobscripts/ensemble_submitter.hpp"
#include "jobscripts/queue.hpp"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mcb::campaign {

class EnsembleCoordinator {
 public:
  /// @brief Replays the event log in @p dir (a runner started again carries on).
  /// @throws mcb::UsageError when @p dir was started with another spec.
  EnsembleCoordinator(const EnsembleSpec& spec, std::string dir);

  /// @brief One look: submitters, monitors, the running segment, the next one.
  void step();
  bool done() const { return state_.finished || !state_.gave_up.empty(); }
  /// @brief Ends every pilot and journals the end of the run (once).
  void finish();
  const EnsembleState& state() const { return state_; }
  /// @brief What the run did, one line per figure.
  void summary(std::ostream& out) const;

 private:
  void apply(const nlohmann::json& event) { state_.apply(event); }
  void record(const nlohmann::json& event) { apply(journal_.append(event)); }
  void adopt_orphans();
  void watch_active_set();
  void watch_segment();
  void consider_remap();
  void start_segment();
  nlohmann::json segment_event(const SegmentChoice& c) const;
  void transfer_restart(const EnsembleQueue& to, double predicted);
  void write_go(const EnsembleSegment& s);
  void write_part_go(const EnsembleSegment& s, std::size_t k, const std::string& uri) const;
  void stop_parts(const EnsembleSegment& s, const std::string& why);
  std::optional<EnsembleShape> shape();
  std::string restart_file(const std::string& queue, int day) const;
  std::string record_file(int n) const;
  std::string go_file(const EnsemblePart& p) const;
  std::string pilot_file(const EnsemblePart& p, const std::string& kind) const;
  std::string stop_file(int n) const;
  std::optional<int> committed_day(const EnsembleSegment& s);
  nlohmann::json finished_event() const;
  const EnsembleQueue& queue(const std::string& name) const;

  const EnsembleSpec& spec_;
  std::string dir_;
  CoallocJournal journal_;
  EnsembleState state_;
  std::vector<std::unique_ptr<BatchQueue>> systems_;  // one per queue (its partition set)
  std::vector<EnsembleSubmitter> submitters_;
  std::vector<EnsembleMonitor> monitors_;
  RendezvousServer server_;  // the joins' ompi-server, started with the first joined segment
  std::optional<EnsembleShape> shape_;
};

}  // namespace mcb::campaign
