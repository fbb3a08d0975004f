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

}  // namespace mcb::campaign
