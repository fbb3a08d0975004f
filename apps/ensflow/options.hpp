#pragma once
/// @file
/// @brief mcb-ensflow's options: one struct, defaults here, checked at parse time.

#include "apps/ensflow/checkpoint.hpp"
#include "apps/ensflow/settings.hpp"
#include "common/check.hpp"
#include "common/option_types.hpp"
#include "harness/run_options.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace mcb::ensflow {

// --filter typed at parse time (cli::validate_choice), spelled by filter_name.
void validate(boost::any& v, const std::vector<std::string>& values, FilterKind*, int);
std::ostream& operator<<(std::ostream& os, FilterKind filter);

/// @brief --walls: the lateral walls' condition for the viscous term (ModelParameters::no_slip).
enum class Walls { no_slip, free_slip };
/// @brief The spelling of @p walls in options and records: "no-slip" or "free-slip".
std::string walls_name(Walls walls);
// --walls typed at parse time (cli::validate_choice), spelled by walls_name.
void validate(boost::any& v, const std::vector<std::string>& values, Walls*, int);
std::ostream& operator<<(std::ostream& os, Walls walls);

/// @brief The spelling of @p layout in options and records: "auto", "gathered" or "regional".
std::string layout_name(AnalysisLayout layout);
// --analysis-layout typed at parse time (cli::validate_choice), spelled by layout_name.
void validate(boost::any& v, const std::vector<std::string>& values, AnalysisLayout*, int);
std::ostream& operator<<(std::ostream& os, AnalysisLayout layout);

/// @brief --checkpoint-every: "analysis" (after every analysis) or a whole number of days.
struct CheckpointInterval {
  int days = 0;  //!< 0: after every analysis
  std::string text = "analysis";
};
// --checkpoint-every typed at parse time: "analysis" or a positive whole number.
void validate(boost::any& v, const std::vector<std::string>& values, CheckpointInterval*, int);
std::ostream& operator<<(std::ostream& os, const CheckpointInterval& interval);

struct EnsflowOptions {
  // The ensemble and the filter.
  // Defaults are the experiment's own (ExperimentSettings).
  int members = ExperimentSettings{}.members;                //!< --members M
  int days = ExperimentSettings{}.days;                      //!< --days D
  int analysis_every = ExperimentSettings{}.analysis_every;  //!< --analysis-every K (days)
  long observations = static_cast<long>(ExperimentSettings{}.observations);  //!< --observations
  double obs_variance =
      ExperimentSettings{}.analysis.observation_variance;    //!< --obs-variance, m^2
  FilterKind filter = ExperimentSettings{}.analysis.filter;  //!< --filter stochastic|sqrt
  double inflation =
      ExperimentSettings{}.analysis.inflation;  //!< --inflation: multiplicative, >= 1
  cli::NumberOrAuto
      localisation;  //!< --localisation KM|auto: GC half-width (default_localisation_km)
  double relaxation =
      ExperimentSettings{}.analysis.relaxation;         //!< --relaxation: RTPS alpha in [0, 1]
  AnalysisLayout layout = ExperimentSettings{}.layout;  //!< --analysis-layout
  double initial_spread = ExperimentSettings{}.initial_spread_m;   //!< --initial-spread, m
  double initial_length = ExperimentSettings{}.initial_length_km;  //!< --initial-length, km
  int spinup_days = ExperimentSettings{}.spinup_days;              //!< --spinup-days
  std::int64_t truth_seed = ExperimentSettings{}.truth_seed;       //!< --truth-seed
  std::int64_t spinup_seed = ExperimentSettings{}.spinup_seed;     //!< --spinup-seed
  bool no_free_run = false;                                        //!< --no-free-run
  // Checkpoint and restart (checkpoint.hpp).
  std::string checkpoint;               //!< --checkpoint FILE: the restart file to write
  CheckpointInterval checkpoint_every;  //!< --checkpoint-every DAYS|analysis
  std::string restart;                  //!< --restart FILE: continue from it
  int stop_at_day = 0;                  //!< --stop-at-day D: the last day to compute (0: --days)
  std::string stop_file;  //!< --stop-file PATH: stop at the first analysis after it appears
  // The model.
  // Defaults are the model's own (ModelParameters), so library users get the same basin.
  int grid = ModelParameters{}.grid;                     //!< --grid G: points per side
  double basin = ModelParameters{}.basin_km;             //!< --basin-size: km
  double depth = ModelParameters{}.depth_m;              //!< --depth: m
  double lower_depth = ModelParameters{}.lower_depth_m;  //!< --lower-depth: m
  double latitude = ModelParameters{}.latitude_deg;      //!< --latitude: degrees
  double wind_stress = ModelParameters{}.wind_stress;    //!< --wind-stress: N/m^2
  double deformation_radius =
      ModelParameters{}.deformation_radius_km;     //!< --deformation-radius: km
  double drag_days = ModelParameters{}.drag_days;  //!< --drag-days
  Walls walls = ModelParameters{}.no_slip ? Walls::no_slip : Walls::free_slip;  //!< --walls
  cli::NumberOrAuto viscosity;      //!< --viscosity A|auto (m^2/s)
  cli::NumberOrAuto steps_per_day;  //!< --steps-per-day K|auto
  harness::RunOptions run;
};

/// @brief What the options mean for this run, after checks.
struct EnsflowConfig {
  EnsflowOptions options;
  ExperimentSettings settings;
  CheckpointPlan checkpoints;  //!< --checkpoint, --checkpoint-every, --stop-at-day, --stop-file
  RestartSource restart;       //!< --restart: the file, checked; its bytes on the root only
};

/// @brief Parses and checks argv for a run on @p ranks processes. Returns false after --help.
/// On the root (@p is_root), --restart's file is read and checked against the configuration.
/// @throws mcb::UsageError naming the option and value (for a process count that does not
/// divide --members, the message lists the counts that do).
bool parse_options(int argc, const char* const* argv, int ranks, bool is_root,
                   EnsflowConfig& config);

/// @brief The --check mode: parse_options for @p ranks processes and the run's clusters,
/// without MPI. @throws mcb::UsageError as a run would (and for a missing rank count).
cli::RunShape check_options(int argc, const char* const* argv, int ranks);

/// @brief The run's map without --cluster-map: @p clusters equal blocks of consecutive ranks.
/// @throws mcb::UsageError when @p clusters does not divide @p ranks.
harness::ClusterMap default_cluster_map(int ranks, int clusters);

/// @brief "m<M>-d<D>-g<G>", the problem label runtime tables group by.
std::string problem_label(const ExperimentSettings& settings);

}  // namespace mcb::ensflow
