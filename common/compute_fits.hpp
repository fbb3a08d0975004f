#pragma once
/// @file
/// @brief The compute-fit table contract: what mcb-calibrate writes as compute_fits.csv and what
/// a predictor reads back, one fit of compute time = a + b / P per application, problem and
/// system (the phase model of seed 003, section 3.1), with its goodness and measured range:
/// `app,problem,system,a,b,r2,rmse,max_relative_gap,points,sizes,p_min,p_max`
/// (calibration/README.md). Read and written here only, through the CSV codec (common/csv.hpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mcb {

/// @brief The header of compute_fits.csv, exactly.
inline constexpr const char* kComputeFitsHeader =
    "app,problem,system,a,b,r2,rmse,max_relative_gap,points,sizes,p_min,p_max";

/// @brief One fit: compute seconds of a run of the problem on P processes = a + b / P.
struct ComputeFitRow {
  std::string app;
  std::string problem;
  std::string system;
  double a = 0;  //!< seconds, the part that does not shrink with P
  double b = 0;  //!< processor-seconds, the part divided among P processes
  double r2 = 0;
  double rmse = 0;              //!< seconds
  double max_relative_gap = 0;  //!< max |measured - fit| / measured
  std::int64_t points = 0;      //!< runs fitted
  std::int64_t sizes = 0;       //!< distinct P among them
  std::int64_t p_min = 0;       //!< measured range of P
  std::int64_t p_max = 0;
  std::size_t line = 0;  //!< line of the file it was read from (0 when built)

  double seconds(std::int64_t processors) const { return a + b / static_cast<double>(processors); }
};

/// @brief A compute-fit table: its rows and, when read, the file.
struct ComputeFitTable {
  std::string file;  //!< the file read ("" when built)
  std::vector<ComputeFitRow> rows;

  /// @brief Reads @p path (a file, or mcb-calibrate's output folder: its
  /// tables/compute_fits.csv). The header must be kComputeFitsHeader exactly. Rows are
  /// checked: app, problem and system not empty; a, b, r2, rmse and the gap finite (a fit may
  /// have a negative part: mcb-calibrate warns, a predictor decides); points >= sizes >= 2 and
  /// 1 <= p_min <= p_max; no (app, problem, system) twice.
  /// @throws mcb::UsageError "<file>:<line>: <what>".
  static ComputeFitTable read(const std::string& path);

  /// @brief compute_fits.csv text for the rows, in their order.
  std::string to_csv() const;

  /// @brief The fit of (app, problem, system), or nullptr.
  const ComputeFitRow* find(const std::string& app, const std::string& problem,
                            const std::string& system) const;
};

}  // namespace mcb
