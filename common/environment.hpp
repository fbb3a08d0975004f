#pragma once
/// @file
/// @brief The "env" block every record and output carries: where, when, with what and how a
/// result was made.

#include <nlohmann/json.hpp>

#include <string>

namespace mcb {

/// @brief Suite revision (git describe of the source tree at configure time).
std::string suite_revision();

/// @brief Current UTC time as ISO 8601 ("2026-11-22T02:07:34Z").
std::string utc_timestamp();

/// @brief The batch job this process runs in: SLURM_JOB_ID, else PBS_JOBID, else Grid Engine's
/// JOB_ID (when SGE_ROOT is set too, as in every Grid Engine job), else "".
std::string batch_job_id();

/// @brief Host, compiler, build type, suite revision, UTC date and the command line.
nlohmann::json environment_block(int argc, const char* const* argv);

}  // namespace mcb
