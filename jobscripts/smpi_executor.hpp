#pragma once
/// @file
/// @brief The smpi executor: the local executor's loop (one run after the other, timeouts,
/// failure records, restarts), each run started by SimGrid's smpirun on the spec's platform
/// with the SMPI build of the app (docs/smpi.md). Ranks are placed on the platform's clusters
/// as the harness maps them: equal consecutive blocks, cluster i on zone clusters[i].

#include "jobscripts/campaign_folder.hpp"
#include "jobscripts/expansion.hpp"
#include "jobscripts/spec.hpp"

#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief The host file of a run of @p ranks ranks on @p clusters clusters: one simulated host
/// per line, in rank order.
std::string smpi_hostfile(const SmpiSettings& smpi, int ranks, int clusters);

/// @brief Writes the run's host file into the folder and returns the smpirun command.
std::vector<std::string> smpi_command(const CampaignSpec& spec, const Plan& plan,
                                      const PlannedRun& run, const CampaignFolder& folder);

/// @brief smpirun is on PATH. @throws UsageError naming the spec and the fix.
void check_smpi_launcher(const CampaignSpec& spec);

}  // namespace mcb::campaign
