#include "apps/ensflow/options.hpp"

#include "apps/ensflow/experiment.hpp"
#include "apps/ensflow/layout.hpp"
#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/text.hpp"

#include <cmath>
#include <filesystem>
#include <optional>
#include <ostream>
#include <sstream>

namespace mcb::ensflow {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

template <typename T>
std::string text(T value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

void require_above(const std::string& option, double value, double bound, const std::string& what) {
  if (!(value > bound) || !std::isfinite(value))
    throw cli::ValueError(option, "--" + option + ": '" + text(value) + "' must be " + what);
}

// Physical bounds far beyond any ocean, so that the model never overflows and a typo is named.
void require_at_most(const std::string& option, double value, double most,
                     const std::string& unit) {
  if (value > most) {
    throw cli::ValueError(option, "--" + option + ": '" + text(value) + "' must be at most " +
                                      text(most) + " " + unit);
  }
}

void require_at_least(const std::string& option, double value, double bound,
                      const std::string& what) {
  if (!(value >= bound))
    throw cli::ValueError(option, "--" + option + ": '" + text(value) + "' must be " + what);
}

std::string join(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : " ") + std::to_string(v);
  return out;
}

}  // namespace

void validate(boost::any& v, const std::vector<std::string>& values, FilterKind*, int) {
  cli::validate_choice(v, values, {FilterKind::stochastic, FilterKind::square_root}, filter_name);
}

std::ostream& operator<<(std::ostream& os, FilterKind filter) { return os << filter_name(filter); }

std::string walls_name(Walls walls) { return walls == Walls::no_slip ? "no-slip" : "free-slip"; }

void validate(boost::any& v, const std::vector<std::string>& values, Walls*, int) {
  cli::validate_choice(v, values, {Walls::no_slip, Walls::free_slip}, walls_name);
}

std::ostream& operator<<(std::ostream& os, Walls walls) { return os << walls_name(walls); }

std::string layout_name(AnalysisLayout layout) {
  switch (layout) {
    case AnalysisLayout::gathered:
      return "gathered";
    case AnalysisLayout::regional:
      return "regional";
    default:
      return "auto";
  }
}

void validate(boost::any& v, const std::vector<std::string>& values, AnalysisLayout*, int) {
  cli::validate_choice(
      v, values, {AnalysisLayout::automatic, AnalysisLayout::gathered, AnalysisLayout::regional},
      layout_name);
}

std::ostream& operator<<(std::ostream& os, AnalysisLayout layout) {
  return os << layout_name(layout);
}

void validate(boost::any& v, const std::vector<std::string>& values, CheckpointInterval*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& given = po::validators::get_single_string(values);
  CheckpointInterval result;
  result.text = given;
  if (given != "analysis") {
    const std::optional<long> days = whole_number(given);
    if (!days || *days < 1 || *days > 1000000)
      throw cli::BadValue(given, "is not 'analysis' or a positive whole number of days");
    result.days = static_cast<int>(*days);
  }
  v = result;
}

std::ostream& operator<<(std::ostream& os, const CheckpointInterval& interval) {
  return os << interval.text;
}

std::string problem_label(const ExperimentSettings& s) {
  std::ostringstream label;
  label << 'm' << s.members << "-d" << s.days << "-g" << s.model.grid;
  return label.str();
}

namespace {

// --stop-file: a path that can appear (its folder exists) and is not a folder; it may exist
// already (the run then stops at its first analysis).
void check_stop_file(const std::string& path) {
  if (path.empty()) throw cli::ValueError("stop-file", "--stop-file: empty path");
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec))
    throw cli::ValueError("stop-file", "--stop-file: '" + path + "' is a directory");
  const fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (!fs::is_directory(parent, ec)) {
    throw cli::ValueError("stop-file", "--stop-file: '" + path + "': directory '" +
                                           parent.string() + "' does not exist");
  }
}

// --checkpoint, --checkpoint-every, --stop-at-day, --stop-file, --restart; the restart file is
// read and checked on the root.
void check_restart_options(const po::variables_map& vm, int ranks, bool is_root,
                           EnsflowConfig& config) {
  const EnsflowOptions& o = config.options;
  const ExperimentSettings& s = config.settings;
  if (o.checkpoint.empty()) {
    if (!vm["checkpoint-every"].defaulted())
      throw cli::ValueError("checkpoint-every", "--checkpoint-every: needs --checkpoint FILE");
    if (o.stop_at_day != 0) {
      throw cli::ValueError("stop-at-day",
                            "--stop-at-day: '" + std::to_string(o.stop_at_day) +
                                "' needs --checkpoint FILE (the run that goes on reads it)");
    }
    if (vm.count("stop-file")) {
      throw cli::ValueError("stop-file", "--stop-file: '" + o.stop_file +
                                             "' needs --checkpoint FILE (the run that goes on "
                                             "reads it)");
    }
  } else {
    check_writable_file("checkpoint", o.checkpoint);
  }
  if (vm.count("stop-file")) check_stop_file(o.stop_file);
  if (o.stop_at_day < 0 || o.stop_at_day > s.days) {
    throw cli::ValueError("stop-at-day", "--stop-at-day: '" + std::to_string(o.stop_at_day) +
                                             "' must lie between 0 and --days " +
                                             std::to_string(s.days));
  }
  config.checkpoints = {o.checkpoint, o.checkpoint_every.days, o.stop_at_day, o.stop_file};
  config.restart = {};
  if (o.restart.empty()) return;
  config.restart.file = o.restart;
  if (!is_root) return;
  const std::string text = restart_config_text(s, uses_regional_layout(s, ranks));
  config.restart = read_restart(o.restart, text, s);
  if (o.stop_at_day != 0 && o.stop_at_day <= config.restart.day) {
    throw cli::ValueError(
        "stop-at-day", "--stop-at-day: '" + std::to_string(o.stop_at_day) + "' is not after day " +
                           std::to_string(config.restart.day) + " of '" + o.restart + "'");
  }
}

}  // namespace

bool parse_options(int argc, const char* const* argv, int ranks, bool is_root,
                   EnsflowConfig& config) {
  EnsflowOptions& o = config.options;
  po::options_description ensemble("Ensemble and filter");
  // One option per line, as --help prints them.
  // clang-format off
  ensemble.add_options()
      ("members", po::value(&o.members)->default_value(o.members)->value_name("M"),
       "ensemble members; the process count must divide M")
      ("days", po::value(&o.days)->default_value(o.days)->value_name("D"),
       "days of assimilation (one outer step per day)")
      ("analysis-every",
       po::value(&o.analysis_every)->default_value(o.analysis_every)->value_name("K"),
       "days between analyses (analyses on days K, 2K, ... <= D)")
      ("observations", po::value(&o.observations)->default_value(o.observations)->value_name("N"),
       "sea-surface-height observations per analysis, at fixed random grid points")
      ("obs-variance",
       po::value(&o.obs_variance)
           ->default_value(o.obs_variance, text(o.obs_variance))
           ->value_name("V"),
       "observation error variance, m^2 (4e-4: 2 cm, altimetry)")
      ("filter", po::value(&o.filter)->default_value(o.filter)->value_name("stochastic|sqrt"),
       "stochastic EnKF with perturbed observations, or the square-root form (ETKF)")
      ("inflation", po::value(&o.inflation)->default_value(o.inflation)->value_name("F"),
       "multiplicative inflation of the forecast anomalies (>= 1; 1 = none)")
      ("localisation",
       po::value(&o.localisation)->default_value(o.localisation)->value_name("KM|auto"),
       "Gaspari-Cohn localisation half-width, km (0: global analysis); the stochastic filter "
       "tapers its gain, the square-root filter becomes a local analysis (LETKF); auto: 150 "
       "for the stochastic filter, 75 for the local analysis")
      ("relaxation", po::value(&o.relaxation)->default_value(o.relaxation)->value_name("ALPHA"),
       "relaxation to prior spread: analysis spread becomes (1-ALPHA) of its own plus ALPHA of "
       "the forecast's, point by point (0: none, 1: keep the forecast spread)")
      ("analysis-layout",
       po::value(&o.layout)->default_value(o.layout)->value_name("auto|gathered|regional"),
       "where the analysis runs: gathered (every process gets every observation, then a row "
       "block of the state) or regional (a band of grid rows per process, observations from "
       "the neighbours within the localisation support: the local analysis only); auto: "
       "regional for the local analysis when every process gets a grid row, else gathered")
      ("initial-spread",
       po::value(&o.initial_spread)
           ->default_value(o.initial_spread, text(o.initial_spread))
           ->value_name("S"),
       "RMS sea-surface height of the initial departures from the background, m")
      ("initial-length",
       po::value(&o.initial_length)->default_value(o.initial_length)->value_name("L"),
       "correlation length of the initial departures, km")
      ("spinup-days", po::value(&o.spinup_days)->default_value(o.spinup_days)->value_name("DAYS"),
       "days the background flow is spun up from rest plus a small random departure "
       "(untimed)")
      ("spinup-seed", po::value(&o.spinup_seed)->default_value(o.spinup_seed)->value_name("S"),
       "seed of the small random departure from rest the spin-up starts from (it breaks the "
       "basin's mirror symmetry; 0: from exact rest)")
      ("truth-seed", po::value(&o.truth_seed)->default_value(o.truth_seed)->value_name("T"),
       "seed of the truth's departure and of the observation sites and errors (--seed drives "
       "the members' departures and perturbed observations)")
      ("no-free-run", po::bool_switch(&o.no_free_run),
       "skip the free-running ensemble (untimed) that the verdict compares against; the "
       "verdict then checks only the analyses");
  // clang-format on
  po::options_description restart("Checkpoint and restart (README: the restart file)");
  // One option per line, as --help prints them.
  // clang-format off
  restart.add_options()
      ("checkpoint", po::value(&o.checkpoint)->value_name("FILE"),
       "write the run's restart file here (atomically: each write replaces the last whole)")
      ("checkpoint-every",
       po::value(&o.checkpoint_every)->default_value(o.checkpoint_every)
           ->value_name("DAYS|analysis"),
       "with --checkpoint: write it every DAYS model days, or after every analysis")
      ("restart", po::value(&o.restart)->value_name("FILE"),
       "continue the run from this restart file (any process count; the configuration must be "
       "the one that wrote it); may be the --checkpoint file")
      ("stop-at-day", po::value(&o.stop_at_day)->default_value(o.stop_at_day)->value_name("D"),
       "compute up to day D, write the restart file and stop (0: run to --days); the record "
       "is then INVALID, 'stopped at day D', and a run with --restart continues it")
      ("stop-file", po::value(&o.stop_file)->value_name("PATH"),
       "with --checkpoint: after every analysis, rank 0 looks for PATH; once it exists the run "
       "stops there as at --stop-at-day (a runner's way to ask for a checkpoint now)");
  // clang-format on
  po::options_description model("Ocean model (wind-driven double gyre on a beta-plane)");
  // One option per line, as --help prints them.
  // clang-format off
  model.add_options()
      ("grid", po::value(&o.grid)->default_value(o.grid)->value_name("G"),
       "interior grid points per side (fastest when G+1 is a power of two)")
      ("basin-size", po::value(&o.basin)->default_value(o.basin)->value_name("KM"),
       "side of the square basin, km")
      ("depth", po::value(&o.depth)->default_value(o.depth)->value_name("M"),
       "depth of the wind-driven layer, m")
      ("lower-depth", po::value(&o.lower_depth)->default_value(o.lower_depth)->value_name("M"),
       "depth of the lower layer, m (with a deformation radius: 0 is the 1.5-layer model, "
       "positive the two-layer model)")
      ("latitude", po::value(&o.latitude)->default_value(o.latitude)->value_name("DEG"),
       "latitude of the beta-plane's centre, degrees")
      ("wind-stress",
       po::value(&o.wind_stress)
           ->default_value(o.wind_stress, text(o.wind_stress))
           ->value_name("TAU"),
       "peak wind stress, N/m^2")
      ("deformation-radius",
       po::value(&o.deformation_radius)->default_value(o.deformation_radius)->value_name("KM"),
       "Rossby radius of deformation, km (0: barotropic; else 1.5- or two-layer, see --lower-depth)")
      ("drag-days", po::value(&o.drag_days)->default_value(o.drag_days)->value_name("DAYS"),
       "bottom-drag time scale, days (0: no drag)")
      ("walls", po::value(&o.walls)->default_value(o.walls)->value_name("no-slip|free-slip"),
       "boundary condition of the lateral walls for the viscous term")
      ("viscosity", po::value(&o.viscosity)->default_value(o.viscosity)->value_name("A|auto"),
       "lateral viscosity, m^2/s; auto: beta dx^3, a Munk layer of one grid spacing (the least "
       "that keeps the wall current free of grid noise, and keeps the eddies)")
      ("steps-per-day",
       po::value(&o.steps_per_day)->default_value(o.steps_per_day)->value_name("K|auto"),
       "model time steps per day; auto: the fewest for which 2 m/s moves at most one grid "
       "spacing per step");
  // clang-format on
  po::options_description all("mcb-ensflow: ensemble Kalman filter with an ocean model");
  all.add(ensemble).add(model).add(restart);
  po::options_description shared("Run");
  harness::add_run_options(shared, o.run);
  all.add(shared);

  const auto parsed = cli::parse(argc, argv, all, "mpirun -np P mcb-ensflow [options]");
  if (parsed.help_printed) return false;

  harness::check_run_options(o.run, parsed.vm, is_root);
  cli::require_positive("members", o.members);
  if (o.members < 2) {
    throw cli::ValueError("members",
                          "--members: '" + std::to_string(o.members) +
                              "' must be at least 2 (the ensemble spread needs two members)");
  }
  cli::require_positive("days", o.days);
  cli::require_positive("analysis-every", o.analysis_every);
  if (o.analysis_every > o.days) {
    throw UsageError("--analysis-every: '" + std::to_string(o.analysis_every) +
                     "' exceeds --days " + std::to_string(o.days) + ": no analysis would run");
  }
  cli::require_positive("grid", o.grid);
  cli::require_positive("observations", o.observations);
  const long points = static_cast<long>(o.grid) * o.grid;
  if (o.observations > points) {
    throw UsageError("--observations: '" + std::to_string(o.observations) + "' exceeds the " +
                     std::to_string(points) + " points of a " + std::to_string(o.grid) + "x" +
                     std::to_string(o.grid) + " grid");
  }
  require_above("obs-variance", o.obs_variance, 0, "positive");
  require_at_least("inflation", o.inflation, 1, "at least 1");
  if (!o.localisation.automatic())
    require_at_least("localisation", *o.localisation.number, 0, "at least 0");
  if (o.layout == AnalysisLayout::regional) {
    const bool local = o.filter == FilterKind::square_root &&
                       (o.localisation.automatic() || *o.localisation.number > 0);
    if (!local) {
      throw cli::ValueError("analysis-layout",
                            "--analysis-layout: 'regional' needs the local analysis (--filter sqrt "
                            "with --localisation above 0)");
    }
    if (ranks > o.grid) {
      throw cli::ValueError("analysis-layout",
                            "--analysis-layout: 'regional' needs at most one "
                            "process per grid row; " +
                                std::to_string(ranks) + " processes, --grid " +
                                std::to_string(o.grid));
    }
  }
  if (!(o.relaxation >= 0 && o.relaxation <= 1))
    throw UsageError("--relaxation: '" + text(o.relaxation) + "' must lie between 0 and 1");
  require_above("initial-spread", o.initial_spread, 0, "positive");
  require_above("initial-length", o.initial_length, 0, "positive");
  cli::require_non_negative("spinup-days", o.spinup_days);
  cli::require_non_negative("truth-seed", static_cast<double>(o.truth_seed));
  cli::require_non_negative("spinup-seed", static_cast<double>(o.spinup_seed));
  require_above("basin-size", o.basin, 0, "positive");
  require_above("depth", o.depth, 0, "positive");
  if (!(std::fabs(o.latitude) >= 1 && std::fabs(o.latitude) <= 89)) {
    throw cli::ValueError(
        "latitude", "--latitude: '" + text(o.latitude) +
                        "' must lie between 1 and 89 degrees north or south (SSH needs f0 != 0)");
  }
  require_at_most("basin-size", o.basin, 40000, "km (the Earth's circumference)");
  require_at_most("depth", o.depth, 11000, "m (the deepest ocean)");
  cli::require_non_negative("lower-depth", o.lower_depth);
  require_at_most("lower-depth", o.lower_depth, 11000, "m (the deepest ocean)");
  cli::require_non_negative("wind-stress", o.wind_stress);
  require_at_most("wind-stress", o.wind_stress, 10, "N/m^2 (twice a hurricane's)");
  cli::require_non_negative("deformation-radius", o.deformation_radius);
  cli::require_non_negative("drag-days", o.drag_days);
  // Combinations last: every value above is wrong on its own, these only together.
  if (o.members % ranks != 0) {
    throw UsageError("--members: '" + std::to_string(o.members) + "' is not divisible by the " +
                     std::to_string(ranks) + " processes of this run; valid process counts: " +
                     join(valid_process_counts(o.members)));
  }

  ExperimentSettings& s = config.settings;
  ModelParameters& m = s.model;
  m.grid = o.grid;
  m.basin_km = o.basin;
  m.depth_m = o.depth;
  m.lower_depth_m = o.lower_depth;
  m.latitude_deg = o.latitude;
  m.wind_stress = o.wind_stress;
  m.deformation_radius_km = o.deformation_radius;
  m.drag_days = o.drag_days;
  m.no_slip = o.walls == Walls::no_slip;
  if (o.viscosity.automatic()) {
    m.viscosity = resolving_viscosity(m);
  } else {
    cli::require_non_negative("viscosity", *o.viscosity.number);
    m.viscosity = *o.viscosity.number;
  }
  if (o.steps_per_day.automatic()) {
    m.steps_per_day = stable_steps_per_day(m);
  } else {
    const double steps = *o.steps_per_day.number;
    if (!(steps >= 1 && steps == std::floor(steps) && steps <= 1e6)) {
      throw cli::ValueError("steps-per-day", "--steps-per-day: '" + o.steps_per_day.text +
                                                 "' is not 'auto' or a positive whole number");
    }
    m.steps_per_day = static_cast<int>(steps);
  }

  s.members = o.members;
  s.days = o.days;
  s.analysis_every = o.analysis_every;
  s.observations = static_cast<std::size_t>(o.observations);
  s.analysis.filter = o.filter;
  s.analysis.observation_variance = o.obs_variance;
  s.analysis.inflation = o.inflation;
  s.analysis.localisation_km =
      o.localisation.automatic() ? default_localisation_km(o.filter) : *o.localisation.number;
  s.analysis.relaxation = o.relaxation;
  s.layout = o.layout;
  s.initial_spread_m = o.initial_spread;
  s.initial_length_km = o.initial_length;
  s.spinup_days = o.spinup_days;
  s.seed = o.run.seed;
  s.truth_seed = o.truth_seed;
  s.spinup_seed = o.spinup_seed;
  s.free_run = !o.no_free_run;
  check_restart_options(parsed.vm, ranks, is_root, config);
  return true;
}

}  // namespace mcb::ensflow

namespace mcb::ensflow {

cli::RunShape check_options(int argc, const char* const* argv, int ranks) {
  if (ranks <= 0) {
    throw cli::ValueError("ranks", "--ranks: missing; mcb-ensflow needs the process count P");
  }
  EnsflowConfig config;
  if (!parse_options(argc, argv, ranks, true, config)) return {};
  const int clusters = harness::check_clusters(
      config.options.run, ranks, [&](int c) { return default_cluster_map(ranks, c); });
  return {ranks, clusters};
}

harness::ClusterMap default_cluster_map(int ranks, int clusters) {
  if (ranks % clusters != 0) {
    throw UsageError("--clusters: '" + std::to_string(clusters) + "' does not divide the " +
                     std::to_string(ranks) + " processes of this run");
  }
  return harness::ClusterMap::blocks(ranks, clusters);
}

}  // namespace mcb::ensflow
