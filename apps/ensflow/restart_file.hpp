#pragma once
/// @file
/// @brief mcb-ensflow's restart file, its one owner: everything a run needs to continue from the
/// end of a day as if it had never stopped. Only mcb-ensflow reads it (a runner that moves runs
/// between queues copies it whole), so it lives with the program, not in common/.
///
/// Layout (native byte order, checked by a marker; doubles as IEEE 754 binary64):
///  - header: magic "MCBENSRS", format version, byte-order marker, the file's total size, the
///    configuration digest (FNV-1a 64 of the configuration text) and the text itself, the day
///    completed, the next analysis (the observation stream's and the random draws' position:
///    every draw is keyed by seed, purpose, analysis and member), and the sizes below;
///  - every member's q, member after member (M x n);
///  - the truth: background, streamfunction on its kept days, observations per analysis;
///  - the diagnostics so far: the points and the innovation statistics, as finished, and the
///    first analysis's comparison with the reference analysis once it is made;
///  - FNV-1a 64 checksum of every byte before it.
/// The file says what the run is, never how it ran (no process count, no times): two runs that
/// reach the same day write the same bytes.

#include "apps/ensflow/diagnostics.hpp"
#include "apps/ensflow/innovations.hpp"
#include "apps/ensflow/reference_analysis.hpp"
#include "apps/ensflow/settings.hpp"
#include "apps/ensflow/truth.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mcb::ensflow {

/// @brief The format version this program writes and reads.
inline constexpr std::uint32_t kRestartFormatVersion = 1;

/// @brief A restart file that cannot be used; the message says what is wrong with it (without
/// the file's name, which the caller adds).
class RestartFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// @brief The state of a run at the end of a day.
struct RestartState {
  std::string config;  //!< restart_config_text of the run that wrote it
  int day = 0;         //!< days completed (the analysis of that day included)
  int next_analysis = 0;
  int members = 0;
  std::size_t state_size = 0;                     //!< n, doubles per member
  std::size_t observations = 0;                   //!< m, per analysis
  std::vector<double> states;                     //!< M x n, member-major
  Truth truth;                                    //!< the whole truth run
  std::vector<DiagnosticPoint> points;            //!< finished, in the order they were made
  std::vector<InnovationStatistics> innovations;  //!< finished, one per analysis done
  ReferenceCheck reference;  //!< the first analysis's, once made (its seconds are not kept)
};

/// @brief The configuration a restart must match, one "key value" line per setting that
/// changes the numbers (17 significant digits, so equal text is equal bits); @p regional is the
/// analysis layout the run resolved (it changes the rounding of the analysis).
std::string restart_config_text(const ExperimentSettings& settings, bool regional);

/// @brief FNV-1a 64 of @p size bytes at @p data.
std::uint64_t fnv1a64(const void* data, std::size_t size);

/// @brief The file's bytes for @p state.
std::string encode_restart(const RestartState& state);

/// @brief Reads and checks @p bytes: magic, version, byte order, size, checksum, then that the
/// configuration is @p config (naming the first setting that differs) and the contents are
/// consistent with it. @throws RestartFileError saying what is wrong.
RestartState decode_restart(const std::string& bytes, const std::string& config,
                            const ExperimentSettings& settings);

/// @brief The whole file at @p path. @throws RestartFileError when it cannot be read.
std::string read_restart_bytes(const std::string& path);

/// @brief Writes @p bytes to @p path atomically (temporary beside it, synced, renamed).
/// @throws std::runtime_error when the write fails (the old file stays).
void write_restart_bytes(const std::string& path, const std::string& bytes);

}  // namespace mcb::ensflow
