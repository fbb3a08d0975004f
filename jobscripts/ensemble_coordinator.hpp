#pragma once
/// @file
/// @brief The coordinator of a multi-queue ensemble run (seed 003, section 5). The run goes in
/// segments of at most checkpoint-every model days, each one mcb-ensflow job started by a
/// queue's pilot from the restart file of the day before and stopped with a restart file
/// (--restart, --checkpoint, --stop-at-day). Before each segment the coordinator maps the run
/// onto the active queue with the smallest predicted time per model day: a + b/P there, plus
/// the restart file's transfer over the inter-site link when it lies at another site, the
/// segment cut to fit the pilot's remaining time. A change of the active set therefore remaps
/// the run at its next checkpoint; a pilot killed at its queue's limit is resubmitted by its
/// submitter, and its segment, whose restart file was never written, runs again from the last
/// one. Every decision goes to the event log (ensemble_state.hpp), the runner's only state.

#include "jobscripts/coalloc_journal.hpp"
#include "jobscripts/ensemble_monitor.hpp"
#include "jobscripts/ensemble_spec.hpp"
#include "jobscripts/ensemble_state.hpp"
#include "jobscripts/ensemble_submitter.hpp"
#include "jobscripts/queue.hpp"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief Where the next segment goes, as predicted.
struct SegmentChoice {
  const EnsembleQueue* queue = nullptr;
  int days = 0;
  double transfer = 0;   //!< s predicted for the restart file's transfer (0 on its own site)
  double predicted = 0;  //!< s: transfer + days (a + b/P)
};

/// @brief The best active queue for the segment starting after model day @p state.day, or none
/// (queue null) when no active pilot has time left for a model day.
/// @param restart_bytes the size of the restart file to move (0 at day 0)
SegmentChoice choose_queue(const EnsembleSpec& spec, const EnsembleState& state,
                           const std::vector<std::string>& active, double restart_bytes,
                           double now);

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
  void start_segment();
  void transfer_restart(const EnsembleQueue& to, double predicted);
  void write_go(const EnsembleSegment& s) const;
  std::string restart_file(const std::string& queue, int day) const;
  std::string record_file(int n) const;
  std::string go_file(const EnsembleSegment& s) const;
  bool committed(const EnsembleSegment& s) const;
  nlohmann::json finished_event() const;
  const EnsembleQueue& queue(const std::string& name) const;

  const EnsembleSpec& spec_;
  std::string dir_;
  CoallocJournal journal_;
  EnsembleState state_;
  std::vector<std::unique_ptr<BatchQueue>> systems_;  // one per queue (its partition set)
  std::vector<EnsembleSubmitter> submitters_;
  std::vector<EnsembleMonitor> monitors_;
};

}  // namespace mcb::campaign
