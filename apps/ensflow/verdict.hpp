#pragma once
/// @file
/// @brief The built-in check of every run, against the truth of the twin experiment:
///  - every error and spread is finite (the model and the filter did not diverge);
///  - at every analysis the analysis error is below the forecast error;
///  - the assimilating ensemble ends below the free-running one (same initial ensemble, no
///    analyses), when the free run was made.
/// Errors are RMSE of the ensemble-mean sea-surface height, reported with the ensemble spread.

#include "apps/ensflow/diagnostics.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::ensflow {

struct Verdict {
  bool valid = false;
  std::string reason;       //!< why not valid (empty when valid)
  nlohmann::json details;   //!< the values checked, for the record's verdict block
};

/// @brief Judges the points of a run (see the file comment). @p free_run says whether the
/// free run was made (its points are then required).
Verdict judge(const std::vector<DiagnosticPoint>& points, bool free_run);

}  // namespace mcb::ensflow
