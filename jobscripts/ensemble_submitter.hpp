#pragma once
/// @file
/// @brief The job submitter of one queue (seed 003, section 5): keeps one pilot job
/// (templates/ensemble-pilot.sh) queued or running in its queue, submitting a new one whenever
/// the last is gone (ended at the queue's time limit, failed or lost), each with the queue's
/// processors and time limit (sbatch --time, qsub -l h_rt).

#include "jobscripts/coalloc_journal.hpp"
#include "jobscripts/ensemble_spec.hpp"
#include "jobscripts/ensemble_state.hpp"
#include "jobscripts/queue.hpp"

#include <string>

namespace mcb::campaign {

class EnsembleSubmitter {
 public:
  /// @param dir the runner's state folder (pilots/ holds the pilots' files)
  EnsembleSubmitter(const EnsembleQueue& queue, BatchQueue& system, std::string dir);

  /// @brief Submits a pilot when the queue has none that is not gone; the submission is
  /// journaled before it is made and its job id after.
  void step(const EnsembleState& state, const CoallocJournal& journal,
            const std::function<void(const nlohmann::json&)>& apply);
  /// @brief Ends the queue's pilot, if any (the run is over).
  void cancel(const EnsembleState& state);

 private:
  const EnsembleQueue& queue_;
  BatchQueue& system_;
  std::string dir_;
};

/// @brief The pilots' folder in the state folder @p dir.
std::string pilots_dir(const std::string& dir);

}  // namespace mcb::campaign
