#pragma once
/// @file
/// @brief The solver loop of the paper (section 3.2): update black, update red, exchange
/// borders, collect the global error; until the error falls below the limit or the iteration
/// cap. Two halo modes:
///  - paper: one whole-border exchange per iteration after both colours (what the paper
///    measured; a process's red update sees its neighbours' black borders of the previous
///    iteration, so the iteration count depends on the decomposition);
///  - exact: each colour's border points exchanged right after that colour's update, which
///    reproduces the single-process iteration exactly for every decomposition;
///  - overlap: exact's updates and messages, with the exchange hidden behind computation: the
///    exchange of one colour's border is posted, the next colour's interior updated meanwhile,
///    then the exchange completed and that colour's border updated. The same solution and
///    iterations as exact, bit for bit (seed 000 expects such an application to suffer less
///    from slow wide-area links).

#include "apps/poisson/decomposition.hpp"
#include "apps/poisson/halo.hpp"
#include "harness/comm.hpp"
#include "harness/timeline.hpp"

#include <mpi.h>

#include <string>

namespace mcb::poisson {

enum class HaloMode { paper, exact, overlap };

struct SolverSettings {
  HaloMode halo = HaloMode::paper;
  bool sync = false;        //!< barrier before each communication phase
  double omega = 1.0;       //!< over-relaxation factor; 1 = Gauss-Seidel
  double tolerance = 1e-6;  //!< stop when residual max-norm <= tolerance * max|f|
  long max_iterations = 100000;
  bool fixed_iterations = false;  //!< run all max_iterations, no convergence stop
  int sample = 0;                 //!< SMPI build: execute the first N sweeps per rank only
  double sweep_rate = 0;          //!< SMPI build with sample: simulated points per second
  bool tuned = true;              //!< tuned kernels (false: the frozen reference)
  bool instrumented = true;       //!< time compute phases and stamp the timeline
};

struct SolverOutcome {
  long iterations = 0;
  bool converged = false;
  double global_error = 0;    //!< last residual max-norm seen by the sweeps
  double wall_time = 0;       //!< this rank, whole loop
  double compute_time = 0;    //!< this rank, sweeps
  double allreduce_time = 0;  //!< this rank, collecting the global error
  double sync_time = 0;       //!< this rank, barriers (synchronized mode)
  long fused_iterations = 0;  //!< iterations swept in the same pass as the one before
  harness::CommTimeline timeline;
};

/// @brief Optimal over-relaxation for the model problem: 2 / (1 + sin(pi h)).
double optimal_omega(double h);

/// @brief Iterates on @p problem until converged or the cap; collective over @p comm.
SolverOutcome solve(LocalProblem& problem, HaloExchange& halo, harness::InstrumentedComm& comm,
                    const SolverSettings& settings);

/// @brief The run's check: true residual and error against the manufactured solution.
struct Verification {
  double residual = 0;     //!< max-norm of f - A u over the whole grid
  double error = 0;        //!< max-norm of u - u_exact
  double error_bound = 0;  //!< what discretisation plus residual allow
  bool finite = true;
};

/// @brief Refreshes halos (untimed) and computes the verification quantities. Collective.
Verification verify(LocalProblem& problem, HaloExchange& halo, MPI_Comm comm,
                    const harness::ClusterMap& map);

}  // namespace mcb::poisson
