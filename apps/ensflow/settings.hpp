#pragma once
/// @file
/// @brief Everything that defines one twin experiment: the model, the ensemble, the observing
/// system, the filter and the seeds.

#include "apps/ensflow/enkf.hpp"
#include "apps/ensflow/model.hpp"
#include "apps/ensflow/update.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace mcb::ensflow {

/// @brief Where the analysis runs (layout.hpp): automatic is regional for the local analysis
/// (square-root filter with localisation, when every process gets a grid row), else gathered.
enum class AnalysisLayout { automatic, gathered, regional };

struct ExperimentSettings {
  ModelParameters model;
  int members = 60;                //!< M
  int days = 20;                   //!< D, one outer step per day
  int analysis_every = 10;         //!< days between analyses
  std::size_t observations = 200;  //!< SSH observations per analysis
  AnalysisSettings analysis{FilterKind::stochastic, 4e-4,
                            1.0};  //!< filter, R (m^2, 2 cm), inflation
  double initial_spread_m = 0.1;   //!< RMS SSH of the initial departures
  double initial_length_km = 150;  //!< correlation length of the initial departures
  int spinup_days = 720;           //!< days from rest to the background state (statistical
                                   //!< equilibrium of the eddying flow: README)
  std::int64_t spinup_seed = 1;    //!< the spin-up's starting noise (truth.hpp)
  std::int64_t seed = 1;           //!< members' departures and perturbed observations
  std::int64_t truth_seed = 1;     //!< truth's departure, observation sites and errors
  bool free_run = true;            //!< also run the ensemble without analyses
  AnalysisLayout layout = AnalysisLayout::automatic;  //!< see AnalysisLayout
  UpdateFactory update_factory;  //!< empty: make_update_step (tests substitute broken ones;
                                 //!< a substituted step runs in the gathered layout)
  /// @brief The spun-up state (q), when the caller already has it: the years of spin-up an
  /// eddying flow needs are then paid once for many experiments (tests). Empty: spin up from
  /// rest for spinup_days. The program has no option for it.
  std::shared_ptr<const std::vector<double>> background;

  int analyses() const { return days / analysis_every; }
  bool is_analysis_day(int day) const { return day > 0 && day % analysis_every == 0; }
  /// @brief 0-based index of the analysis on @p day (an analysis day).
  int analysis_index(int day) const { return day / analysis_every - 1; }
};

}  // namespace mcb::ensflow
