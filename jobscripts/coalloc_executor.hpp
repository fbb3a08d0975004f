#pragma once
/// @file
/// @brief The co-allocating executor (executor = coalloc): every run of the plan co-allocated
/// over separate batch systems by the coordinator (coalloc_coordinator.hpp), its components
/// joined into one MPI job (docs/join.md), its record written with the co-allocation timeline.
/// Its state is the journal in the campaign folder's coalloc/ folder: started again after a
/// kill, it carries on with the runs in flight and submits nothing twice.

#include "jobscripts/expansion.hpp"
#include "jobscripts/spec.hpp"

#include <ostream>

namespace mcb::campaign {

/// @brief The checks `run` makes before it writes anything: the launcher and ompi-server on
/// PATH. @throws UsageError naming the spec line.
void check_coalloc_launcher(const CampaignSpec& spec);

/// @brief Runs the campaign; 0 when every run is valid, 1 otherwise.
int run_coalloc(const CampaignSpec& spec, const Plan& plan, std::ostream& out);

/// @brief Gives up the campaign's co-allocation: replays its journal without adopting or
/// submitting anything, cancels every copy still queued, holding or running (in every batch
/// system), journals each cancel and ends each request in flight, and stops an ompi-server a
/// killed coordinator left. A later `run` records those runs failed and submits nothing for
/// them. @throws std::runtime_error while a coordinator holds the folder.
/// @return 0 (also when there was nothing to cancel).
int cancel_coalloc(const CampaignSpec& spec, std::ostream& out);

}  // namespace mcb::campaign
