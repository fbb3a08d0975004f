#pragma once
/// @file
/// @brief mcb-ensflow's options: one struct, defaults here, checked at parse time.

#include "apps/ensflow/settings.hpp"
#include "harness/run_options.hpp"

#include <cstdint>
#include <string>

namespace mcb::ensflow {

struct EnsflowOptions {
  // The ensemble and the filter.
  int members = 60;                  //!< --members M
  int days = 20;                     //!< --days D
  int analysis_every = 10;           //!< --analysis-every K (days)
  long observations = 200;           //!< --observations: SSH observations per analysis
  double obs_variance = 4e-4;        //!< --obs-variance: observation error variance, m^2
  std::string filter = "stochastic"; //!< --filter stochastic|sqrt
  double inflation = 1.0;            //!< --inflation: multiplicative, >= 1
  double initial_spread = 0.1;       //!< --initial-spread: RMS SSH of initial departures, m
  double initial_length = 150;       //!< --initial-length: their correlation length, km
  int spinup_days = 120;             //!< --spinup-days
  std::int64_t truth_seed = 1;       //!< --truth-seed
  bool no_free_run = false;          //!< --no-free-run
  // The model.
  int grid = 63;                     //!< --grid G: interior points per side
  double basin = 1000;               //!< --basin-size: km
  double depth = 500;                //!< --depth: m
  double latitude = -35;             //!< --latitude: degrees
  double wind_stress = 0.1;          //!< --wind-stress: N/m^2
  double deformation_radius = 0;     //!< --deformation-radius: km, 0 = barotropic
  double drag_days = 100;            //!< --drag-days
  std::string viscosity = "auto";    //!< --viscosity A|auto (m^2/s)
  std::string steps_per_day = "auto";  //!< --steps-per-day K|auto
  harness::RunOptions run;
};

/// @brief What the options mean for this run, after checks.
struct EnsflowConfig {
  EnsflowOptions options;
  ExperimentSettings settings;
};

/// @brief Parses and checks argv for a run on @p ranks processes. Returns false after --help.
/// @throws mcb::UsageError naming the option and value (for a process count that does not
/// divide --members, the message lists the counts that do).
bool parse_options(int argc, const char* const* argv, int ranks, bool is_root, EnsflowConfig& config);

/// @brief "m<M>-d<D>-g<G>", the problem label runtime tables group by.
std::string problem_label(const ExperimentSettings& settings);

}  // namespace mcb::ensflow
