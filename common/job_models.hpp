#pragma once
/// @file
/// @brief The job-model table contract: what `mcb-calibrate --job-model` writes as
/// job_models.csv and what `mcb-sim --job-model` reads back. One row per job (application,
/// problem, total size) of seed 002's eq. 1, T = T^p x SP + T^c x SC: the dedicated processing
/// and communication times and the fitted per-node bandwidth PNBW (MB/s) that eqs. 4-7 turn
/// into SC on a link, with how well the model met the measured runs:
/// `app,problem,total_size,tp,tc,pnbw,dedicated_runs,fitted_runs,median_abs_relative_error`
/// (calibration/README.md, "Seed 002's job model"). Read and written here only, through the CSV
/// codec (common/csv.hpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mcb {

/// @brief The header of job_models.csv, exactly.
inline constexpr const char* kJobModelsHeader =
    "app,problem,total_size,tp,tc,pnbw,dedicated_runs,fitted_runs,median_abs_relative_error";

/// @brief One job's model.
struct JobModelRow {
  std::string app;
  std::string problem;
  std::int64_t total_size = 0;           //!< ranks (seed 002's nodes, one task each)
  double tp = 0;                         //!< T^p, seconds on one dedicated cluster
  double tc = 0;                         //!< T^c, seconds on one dedicated cluster
  double pnbw = 0;                       //!< PNBW, MB/s (10^6 bytes/s) per node
  std::int64_t dedicated_runs = 0;       //!< runs T^p and T^c come from
  std::int64_t fitted_runs = 0;          //!< co-allocated runs PNBW was fitted to
  double median_abs_relative_error = 0;  //!< over every run of the job the model predicts
  std::size_t line = 0;                  //!< line of the file it was read from (0 when built)

  /// T^c / (T^p + T^c): what `mcb-sim --comm-share` sets for every job.
  double comm_share() const { return tc / (tp + tc); }
};

/// @brief A job-model table: its rows and, when read, the file.
struct JobModelTable {
  std::string file;  //!< the file read ("" when built)
  std::vector<JobModelRow> rows;

  /// @brief Reads @p path (a file, or mcb-calibrate's output folder holding job_models.csv).
  /// The header must be kJobModelsHeader exactly. Rows are checked: app and problem not empty;
  /// total_size >= 1; tp > 0, tc >= 0, pnbw >= 0 and the error >= 0, all finite;
  /// dedicated_runs >= 1, fitted_runs >= 1; no (app, problem, total_size) twice.
  /// @throws mcb::UsageError "<file>:<line>: <what>".
  static JobModelTable read(const std::string& path);

  /// @brief job_models.csv text for the rows, in their order.
  std::string to_csv() const;

  /// @brief The model of (app, problem, total_size), or nullptr.
  const JobModelRow* find(const std::string& app, const std::string& problem,
                          std::int64_t total_size) const;
};

}  // namespace mcb
