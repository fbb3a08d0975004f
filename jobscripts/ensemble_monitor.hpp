#pragma once
/// @file
/// @brief The job monitor of one batch system (seed 003, section 5): watches the pilots of the
/// system's queues and reports which are active (the pilot's own report of its start, through
/// the shared file system) and which are gone (the system says the job ended: its time limit,
/// a failure, a cancel). The active queues are those whose newest pilot started and is not gone.

#include "jobscripts/coalloc_journal.hpp"
#include "jobscripts/ensemble_spec.hpp"
#include "jobscripts/ensemble_state.hpp"
#include "jobscripts/queue.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mcb::campaign {

class EnsembleMonitor {
 public:
  EnsembleMonitor(const EnsembleSpec& spec, std::string system, BatchQueue& queue, std::string dir);

  /// @brief One look at the system's pilots; journals and applies "active" and "gone".
  void step(const EnsembleState& state, const CoallocJournal& journal,
            const std::function<void(const nlohmann::json&)>& apply);

 private:
  const EnsembleSpec& spec_;
  std::string system_;
  BatchQueue& queue_;
  std::string dir_;
  std::map<std::string, double> last_status_;  // tag -> when the system was last asked
};

/// @brief The active set: the queues (spec order) whose newest pilot started and is not gone.
std::vector<std::string> active_queues(const EnsembleSpec& spec, const EnsembleState& state);

}  // namespace mcb::campaign
