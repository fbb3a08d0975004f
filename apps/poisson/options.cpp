#include "apps/poisson/options.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"

#include <unistd.h>

#include <cmath>
#include <ostream>
#include <sstream>

namespace mcb::poisson {

namespace po = boost::program_options;

// Refuses a grid whose largest subdomain (the solution and the right-hand side, two doubles
// per point with a halo) needs more memory than this machine has, instead of failing mid-run.
static void check_memory(int grid, const harness::ProcessGrid& procs) {
  const long page = ::sysconf(_SC_PAGESIZE), pages = ::sysconf(_SC_PHYS_PAGES);
  if (page <= 0 || pages <= 0) return;
  const double machine = static_cast<double>(page) * static_cast<double>(pages);
  const double nx = std::ceil(static_cast<double>(grid) / procs.h()) + 2;
  const double ny = std::ceil(static_cast<double>(grid) / procs.v()) + 2;
  const double need = 2 * sizeof(double) * nx * ny;
  if (need > machine) {
    std::ostringstream os;
    os << "--grid: '" << grid << "' needs " << need / 1e9 << " GB per process with --procs "
       << procs.to_string() << "; this machine has " << machine / 1e9 << " GB";
    throw UsageError(os.str());
  }
}

// --iterations replays a measured count; --sample skips sweeps, so without a fixed count the
// frozen solution would never converge. Sampling needs SimGrid, hence the SMPI build.
static void check_replay_options(const PoissonOptions& o, const po::variables_map& vm) {
  if (vm.count("iterations")) {
    cli::require_positive("iterations", o.iterations);
    cli::require_at_most("iterations", static_cast<double>(o.iterations), cli::kMaxCount);
  }
  if (vm.count("iterations") && !vm["max-iterations"].defaulted()) {
    throw UsageError("--iterations: '" + std::to_string(o.iterations) +
                     "' and --max-iterations cannot both be given");
  }
  if (vm.count("sweep-rate") && !vm.count("sample")) {
    throw UsageError("--sweep-rate: given without --sample");
  }
  if (!vm.count("sample")) return;
  cli::require_positive("sample", o.sample);
#ifndef MCB_SMPI
  throw UsageError("--sample: '" + std::to_string(o.sample) +
                   "' needs the SMPI build (./mcb smpi-build); this build runs every sweep");
#endif
  if (o.iterations == 0) {
    throw UsageError("--sample: '" + std::to_string(o.sample) +
                     "' needs --iterations (skipped sweeps leave the solution unconverged)");
  }
  if (!vm.count("sweep-rate")) throw UsageError("--sample: needs --sweep-rate");
  cli::require_positive_real("sweep-rate", o.sweep_rate);
}

harness::ProcessGrid default_process_grid(int ranks, int clusters) {
  // The squarest split (h >= v) whose columns divide into the clusters; else the squarest.
  int squarest = 0;
  for (int v = static_cast<int>(std::sqrt(static_cast<double>(ranks))); v >= 1; --v) {
    if (ranks % v != 0) continue;
    if ((ranks / v) % clusters == 0) return {ranks / v, v};
    if (squarest == 0) squarest = v;
  }
  return {ranks / squarest, squarest};
}

const char* name_of(HaloMode halo) {
  switch (halo) {
    case HaloMode::paper:
      return "paper";
    case HaloMode::exact:
      return "exact";
    case HaloMode::overlap:
      return "overlap";
  }
  return "?";
}

const char* name_of(Kernel kernel) { return kernel == Kernel::tuned ? "tuned" : "reference"; }

void validate(boost::any& v, const std::vector<std::string>& values, HaloMode*, int) {
  cli::validate_choice(v, values, {HaloMode::paper, HaloMode::exact, HaloMode::overlap},
                       [](HaloMode h) { return name_of(h); });
}

void validate(boost::any& v, const std::vector<std::string>& values, Kernel*, int) {
  cli::validate_choice(v, values, {Kernel::tuned, Kernel::reference},
                       [](Kernel k) { return name_of(k); });
}

std::ostream& operator<<(std::ostream& os, HaloMode halo) { return os << name_of(halo); }

std::ostream& operator<<(std::ostream& os, Kernel kernel) { return os << name_of(kernel); }

bool parse_options(int argc, const char* const* argv, int ranks, bool is_root,
                   PoissonConfig& config) {
  PoissonOptions& o = config.options;
  po::options_description desc("mcb-poisson: red-black Gauss-Seidel Poisson solver");
  // One option per line, as --help prints them.
  // clang-format off
  desc.add_options()
      ("grid", po::value(&o.grid)->default_value(o.grid)->value_name("N"),
       "interior grid points per side (the domain is the unit square)")
      ("procs", po::value(&o.procs)->value_name("HxV"),
       "process grid, H across and V up, ranks column-major (default: from the rank count)")
      ("halo", po::value(&o.halo)->default_value(o.halo)->value_name("paper|exact|overlap"),
       "paper: one border exchange per iteration; exact: each colour's border after its update; "
       "overlap: exact's exchanges, each hidden behind the next colour's interior update")
      ("sync", po::bool_switch(&o.sync), "synchronize (barrier) before every communication phase")
      ("omega", po::value(&o.omega)->default_value(o.omega)->value_name("W|auto"),
       "over-relaxation factor in (0, 2); 1 is plain Gauss-Seidel. auto: 2 / (1 + sin(pi h)) "
       "with --halo exact or overlap; 1 with --halo paper, whose once-per-iteration exchange makes "
       "over-relaxation unstable on 2-D process grids")
      ("tolerance", po::value(&o.tolerance)->default_value(o.tolerance)->value_name("T"),
       "stop when the residual max-norm falls below T * max|f| (the global error limit)")
      ("max-iterations",
       po::value(&o.max_iterations)->default_value(o.max_iterations)->value_name("K"),
       "iteration cap; a run that reaches it without converging is INVALID")
      ("iterations", po::value(&o.iterations)->value_name("K"),
       "run exactly K iterations with no convergence test, replaying a measured count (the "
       "DAS-2 paper's Table 2); judged on a finite solution within the error bound")
      ("sample", po::value(&o.sample)->value_name("N"),
       "SMPI build only: execute each rank's first N sweeps only, and charge every sweep to the "
       "simulated processor at --sweep-rate; needs --iterations")
      ("sweep-rate", po::value(&o.sweep_rate)->value_name("R"),
       "with --sample: points per second a simulated processor sweeps (e.g. 4.28e6, the DAS-2 "
       "rate of the paper's Table 2)")
      ("kernel", po::value(&o.kernel)->default_value(o.kernel)->value_name("tuned|reference"),
       "sweep implementation (they agree bit for bit)")
      ("no-instrument", po::bool_switch(&o.no_instrument),
       "turn off communication bookkeeping and phase timing (to measure their cost)");
  // clang-format on
  harness::add_run_options(desc, o.run);

  const auto parsed = cli::parse(argc, argv, desc, "mpirun -np P mcb-poisson [options]");
  if (parsed.help_printed) return false;

  harness::check_run_options(o.run, parsed.vm, is_root);
  cli::require_positive("grid", o.grid);
  cli::require_positive("max-iterations", o.max_iterations);
  cli::require_at_most("max-iterations", static_cast<double>(o.max_iterations), cli::kMaxCount);
  check_replay_options(o, parsed.vm);
  cli::require_positive_real("tolerance", o.tolerance);
  if (!(o.tolerance < 1)) {
    std::ostringstream os;
    os << "--tolerance: '" << o.tolerance
       << "' must be below 1 (a relative tolerance of 1 or more accepts the first iterate)";
    throw cli::ValueError("tolerance", os.str());
  }

  if (o.procs.empty()) {
    // Only --check runs without a rank count; the run's shape then comes from --procs.
    if (ranks <= 0) {
      throw cli::ValueError("ranks", "--procs: missing; give the rank count or --procs HxV");
    }
    config.grid = default_process_grid(ranks, o.run.clusters);
  } else {
    try {
      config.grid = harness::ProcessGrid::parse(o.procs);
    } catch (const std::invalid_argument& e) {
      throw cli::ValueError("procs", std::string("--procs: ") + e.what());
    }
  }
  if (ranks > 0 && config.grid.size() != ranks) {
    throw UsageError("--procs: '" + config.grid.to_string() + "' has " +
                     std::to_string(config.grid.size()) + " processes but the run has " +
                     std::to_string(ranks) + " ranks");
  }
  if (o.grid < config.grid.h() || o.grid < config.grid.v()) {
    throw UsageError("--grid: '" + std::to_string(o.grid) + "' is too small for process grid " +
                     config.grid.to_string() +
                     " (every process needs at least one point per side)");
  }
  check_memory(o.grid, config.grid);
  if (o.run.cluster_map.empty() && config.grid.h() % o.run.clusters != 0) {
    throw UsageError("--clusters: '" + std::to_string(o.run.clusters) + "' does not divide the " +
                     std::to_string(config.grid.h()) + " columns of process grid " +
                     config.grid.to_string());
  }

  SolverSettings& s = config.solver;
  s.halo = o.halo;
  s.sync = o.sync;
  s.tolerance = o.tolerance;
  s.max_iterations = o.iterations > 0 ? o.iterations : o.max_iterations;
  s.fixed_iterations = o.iterations > 0;
  s.sample = o.sample;
  s.sweep_rate = o.sweep_rate;
  s.tuned = o.kernel == Kernel::tuned;
  if (s.halo == HaloMode::overlap && !s.tuned) {
    throw UsageError(
        "--kernel: 'reference' is frozen as one whole sweep per colour, and --halo "
        "overlap splits each colour into interior and border: use --kernel tuned");
  }
  s.instrumented = !o.no_instrument;
  if (o.omega.automatic()) {
    s.omega = s.halo == HaloMode::paper ? 1.0 : optimal_omega(1.0 / (o.grid + 1));
  } else {
    s.omega = *o.omega.number;
    if (!(s.omega > 0 && s.omega < 2)) {
      throw cli::ValueError("omega",
                            "--omega: '" + o.omega.text + "' is not 'auto' or a number in (0, 2)");
    }
  }
  return true;
}

}  // namespace mcb::poisson

namespace mcb::poisson {

cli::RunShape check_options(int argc, const char* const* argv, int ranks) {
  PoissonConfig config;
  if (!parse_options(argc, argv, ranks, true, config)) return {};
  const int clusters = harness::check_clusters(config.options.run, config.grid.size(), [&](int c) {
    return harness::ClusterMap::strips(config.grid, c);
  });
  return {config.grid.size(), clusters};
}

}  // namespace mcb::poisson
