#pragma once
/// @file
/// @brief What a calibration's user must know before trusting a table: runs that shared cores
/// (more ranks than cores, env.ranks_per_core > 1) and fits that do not describe their points
/// (r² below 0.9) or whose coefficients have a sign no machine can have (compute time growing
/// with processes, negative fixed times). Each warning names the output it concerns, so the
/// report shows it beside that table.

#include "calibration/fits.hpp"
#include "calibration/records.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::calib {

/// @brief The smallest r² a fit may have without a warning.
inline constexpr double kWarnBelowR2 = 0.9;

/// @brief One warning: the output file it concerns, what it is about, and the sentence.
struct Warning {
  std::string table;  //!< output file name, e.g. "runtimes.csv"
  std::string what;   //!< the row or fit concerned, e.g. "poisson,32x32,4,1,local"
  std::string text;
};

/// @brief Per configuration (app, problem, total size, components, system) of @p runs whose
/// records say they ran oversubscribed (env.ranks_per_core above 1), one warning for
/// @p table. Records without the field (written before it existed) are not warned about.
std::vector<Warning> oversubscription_warnings(const std::vector<const Record*>& runs,
                                               const std::string& table);

/// @brief Warnings on the compute and link fits: r² below @ref kWarnBelowR2, b < 0 or a < 0 in
/// a + b/P, t0 < 0 in t0 + N/B. Each is also a warning on service_times.csv, which the fits
/// make.
std::vector<Warning> fit_warnings(const Models& models);

/// @brief The warnings as a JSON array of {table, what, text}.
nlohmann::json warnings_json(const std::vector<Warning>& warnings);

}  // namespace mcb::calib
