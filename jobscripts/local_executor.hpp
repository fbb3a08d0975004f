#pragma once
/// @file
/// @brief The local executor: every run of the plan, one after the other, with mpirun on this
/// machine; a progress line, a per-run timeout, failure records for runs that end without one,
/// and a restart that runs only what has no record yet.

#include "jobscripts/campaign_folder.hpp"
#include "jobscripts/expansion.hpp"
#include "jobscripts/spec.hpp"

#include <ostream>

namespace mcb::campaign {

struct LocalRunOptions {
  bool retry_failed = false;   //!< run again the runs whose record says "failed"
  bool live_progress = false;  //!< redraw one progress line (a terminal) instead of a line per run
};

/// @brief Runs the campaign. Returns 0 when every run is valid, 1 when some failed or were
/// invalid, 130 when interrupted (SIGINT, SIGTERM, SIGHUP): the run under way is ended and gets
/// no record, so the next start runs it again.
/// @brief The checks `run` makes before it writes anything: the launcher is on PATH, and as
/// root an Open MPI launcher has the variables that let it run (scripts/mpi-env.sh).
/// @throws UsageError naming the spec line, the cause and the fix.
void check_local_launcher(const CampaignSpec& spec);

int run_local(const CampaignSpec& spec, const Plan& plan, const LocalRunOptions& options,
              std::ostream& out);

/// @brief The launcher command of one local run (launcher, process count, binary, options,
/// campaign options).
std::vector<std::string> local_command(const CampaignSpec& spec, const Plan& plan,
                                       const PlannedRun& run, const CampaignFolder& folder);

/// @brief Appends the options that name and place one run's record (run id, campaign,
/// repetition, records file): every executor passes them the same way.
void append_run_identity(std::vector<std::string>& argv, const CampaignSpec& spec,
                         const PlannedRun& run, const CampaignFolder& folder);

}  // namespace mcb::campaign
