#pragma once
/// @file
/// @brief Run records (docs/records.md): one JSON object per run, appended by rank 0 as one
/// whole line. Helpers here gather what every record needs from all ranks.

#include "common/run_record.hpp"
#include "harness/counters.hpp"
#include "harness/run_options.hpp"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <string>

namespace mcb::harness {

/// @brief The fields every record opens with: schema, run_id, campaign (or null), repetition,
/// app.
nlohmann::json record_header(const std::string& app, const RunOptions& options,
                             const std::string& run_id);

/// @brief Sets the record's `counters`: each event summed over ranks (on rank 0), or null with
/// `counters_reason` when some rank has none. Collective.
void add_counters(nlohmann::json& record, MPI_Comm comm, const Counters& counters);

/// @brief Prints the run's last line, "VALID  figure of merit <figure> (<meaning>)" or
/// "INVALID ...: <reason>", and returns the program's exit code (0 valid, 1 invalid).
int report_verdict(bool valid, const std::string& figure, const std::string& meaning,
                   const std::string& reason);

/// @brief The env block (host, compiler, build type, revision, date, command line) plus the MPI
/// library, the number of ranks and every rank's host. Collective.
nlohmann::json mpi_environment(MPI_Comm comm, int argc, const char* const* argv);

/// @brief Gathers one JSON object per rank to rank 0 (an array in rank order there, null
/// elsewhere). Collective.
nlohmann::json gather_objects(MPI_Comm comm, const nlohmann::json& local);

/// @brief {"min": ..., "avg": ..., "max": ...} of a value over ranks, on every rank. Collective.
nlohmann::json spread(MPI_Comm comm, double value);

/// @brief Appends @p record to @p path as one line (no-op for "none").
void write_record(const std::string& path, const nlohmann::json& record);

/// @brief Ends a run that failed on some rank (an exception, not a verdict): rank 0 appends
/// @p record marked failed with @p reason to @p path and prints "<program>: FAILED: <reason>".
/// Returns the exit code, 1.
int record_failure(MPI_Comm comm, const std::string& program, const std::string& path,
                   nlohmann::json record, const std::string& reason);

}  // namespace mcb::harness
