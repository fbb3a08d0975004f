#pragma once
/// @file
/// @brief mcb-poisson's options: one struct, defaults here, checked at parse time.

#include "apps/poisson/solver.hpp"
#include "common/check.hpp"
#include "common/option_types.hpp"
#include "harness/grid.hpp"
#include "harness/run_options.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace mcb::poisson {

/// @brief --kernel: the sweep implementation (they agree bit for bit).
enum class Kernel { tuned, reference };

/// @brief The option spellings: "paper"|"exact", "tuned"|"reference".
const char* name_of(HaloMode halo);
const char* name_of(Kernel kernel);
// Typed at parse time (cli::validate_choice); operator<< prints the spelling in --help.
void validate(boost::any& v, const std::vector<std::string>& values, HaloMode*, int);
void validate(boost::any& v, const std::vector<std::string>& values, Kernel*, int);
std::ostream& operator<<(std::ostream& os, HaloMode halo);
std::ostream& operator<<(std::ostream& os, Kernel kernel);

struct PoissonOptions {
  int grid = 200;                   //!< --grid N: interior points per side
  std::string procs;                //!< --procs HxV; empty: chosen from the rank count
  HaloMode halo = HaloMode::paper;  //!< --halo paper|exact
  bool sync = false;                //!< --sync: barrier before communicating
  cli::NumberOrAuto omega;          //!< --omega W|auto
  double tolerance = 1e-6;          //!< --tolerance: relative residual limit
  long max_iterations = 200000;     //!< --max-iterations
  long iterations = 0;              //!< --iterations K: exactly K, no convergence test (0: off)
  int sample = 0;                   //!< --sample N: SMPI sampling of the sweep (0: off)
  double sweep_rate = 0;            //!< --sweep-rate R: simulated points per second
  Kernel kernel = Kernel::tuned;    //!< --kernel tuned|reference
  bool no_instrument = false;       //!< --no-instrument: measure the harness's own cost
  harness::RunOptions run;
};

/// @brief What the options mean for this run, after checks.
struct PoissonConfig {
  PoissonOptions options;
  harness::ProcessGrid grid{1, 1};
  SolverSettings solver;
};

/// @brief Parses and checks argv for a run on @p ranks ranks. Returns false after --help.
/// @throws mcb::UsageError naming the option and value.
bool parse_options(int argc, const char* const* argv, int ranks, bool is_root,
                   PoissonConfig& config);

/// @brief The --check mode: parse_options for @p ranks (0: the ranks --procs asks for) and the
/// run's clusters, without MPI.
cli::RunShape check_options(int argc, const char* const* argv, int ranks);

/// @brief The h x v grid for @p ranks when --procs is absent: h >= v, as square as possible,
/// with h divisible by @p clusters when such a split exists.
harness::ProcessGrid default_process_grid(int ranks, int clusters);

}  // namespace mcb::poisson
