#include "apps/poisson/solver.hpp"

#include "apps/poisson/kernels.hpp"
#include "apps/poisson/problem.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#ifdef MCB_SMPI
#include <smpi/smpi.h>
#endif

namespace mcb::poisson {
namespace {

// Wall clock of one region, only when instrumented.
class PhaseClock {
 public:
  explicit PhaseClock(bool on) : on_(on), start_(on ? MPI_Wtime() : 0.0) {}
  void add_to(double& total) const {
    if (on_) total += MPI_Wtime() - start_;
  }

 private:
  bool on_;
  double start_;
};

double sweep_colour(LocalProblem& p, const SolverSettings& s, int colour) {
  return s.tuned ? sweep_colour_tuned(p.u, p.h2f, p.sub, colour, s.omega)
                 : sweep_colour_reference(p.u, p.h2f, p.sub, colour, s.omega);
}

// Runs one sweep of @p points points and returns its largest update. In the SMPI build with
// --sample N, a rank executes its first N sweeps only; every sweep is charged to the simulated
// processor as points / --sweep-rate seconds (SimGrid's smpi_execute), so the simulated compute
// time does not depend on this host. Skipped sweeps leave the solution as it was (hence
// --iterations) and keep the last computed update.
template <class Sweep>
double sweep_or_sample([[maybe_unused]] const SolverSettings& s, [[maybe_unused]] long iteration,
                       [[maybe_unused]] double points, [[maybe_unused]] double last, Sweep sweep) {
#ifdef MCB_SMPI
  if (s.sample > 0) {
    if (iteration <= s.sample) last = sweep();
    smpi_execute(points / s.sweep_rate);
    return last;
  }
#endif
  return sweep();
}

// --halo overlap's half-iterations: per colour, the interior while the other colour's border
// exchange is in flight, then that exchange's completion (the communication phase the
// timeline stamps), then the border, then this colour's exchange posted.
struct OverlapSweeps {
  LocalProblem& p;
  HaloExchange& halo;
  harness::InstrumentedComm& comm;
  const SolverSettings& s;
  SolverOutcome& out;
  int pending = -1;  // the colour whose exchange is in flight, or -1
  double last_interior = 0, last_border = 0;

  double iterate(long it) {
    const double interior = std::max<double>(p.sub.nx - 2, 0) * std::max<double>(p.sub.ny - 2, 0);
    const double border = static_cast<double>(p.sub.nx) * p.sub.ny - interior;
    double local_max = 0;
    for (int colour : {kBlack, kRed}) {
      {
        PhaseClock clock(s.instrumented);
        last_interior = sweep_or_sample(s, it, interior / 2, last_interior, [&] {
          return sweep_colour_interior_tuned(p.u, p.h2f, p.sub, colour, s.omega);
        });
        clock.add_to(out.compute_time);
      }
      drain();
      {
        PhaseClock clock(s.instrumented);
        last_border = sweep_or_sample(s, it, border / 2, last_border, [&] {
          return sweep_colour_border_tuned(p.u, p.h2f, p.sub, colour, s.omega);
        });
        clock.add_to(out.compute_time);
      }
      local_max = std::max({local_max, last_interior, last_border});
      if (s.sync) {
        PhaseClock clock(s.instrumented);
        comm.barrier();
        clock.add_to(out.sync_time);
      }
      halo.post_colour(comm, p.u, colour);
      pending = colour;
    }
    return local_max;
  }

  // Completes the exchange in flight, if any.
  void drain() {
    if (pending < 0) return;
    out.timeline.computation_done();
    halo.complete_colour(comm, p.u, pending);
    out.timeline.communication_done();
    pending = -1;
  }
};

}  // namespace

double optimal_omega(double h) { return 2.0 / (1.0 + std::sin(std::numbers::pi * h)); }

SolverOutcome solve(LocalProblem& p, HaloExchange& halo, harness::InstrumentedComm& comm,
                    const SolverSettings& s) {
  SolverOutcome out;
  out.timeline = harness::CommTimeline(s.instrumented);
  const int phases_per_iteration = s.halo == HaloMode::paper ? 1 : 2;
  out.timeline.reserve(static_cast<size_t>(std::min<long>(s.max_iterations, 1 << 20)) *
                       phases_per_iteration);
  const double h = p.sub.h;
  // |delta| is the pre-update residual times h^2 / 4: compare deltas, not residuals.
  const double delta_limit = s.tolerance * ManufacturedSolution::rhs_max() * h * h / 4;

  // Paper mode with the tuned sweep keeps the column borders staged in contiguous buffers
  // (see HaloExchange::stage_columns); the reference sweep works on the field alone.
  const bool staged = s.halo == HaloMode::paper && s.tuned;
  if (staged) halo.stage_columns(p.u);

  // One communication phase: optional barrier, then the border steps, stamped for the paper's
  // communication time.
  auto communicate = [&](int colour) {
    out.timeline.computation_done();
    if (s.sync) {
      PhaseClock clock(s.instrumented);
      comm.barrier();
      clock.add_to(out.sync_time);
    }
    if (colour < 0 && staged) {
      halo.exchange_staged(comm, p.u);
    } else if (colour < 0) {
      halo.exchange_all(comm, p.u);
    } else {
      halo.exchange_colour(comm, p.u, colour);
    }
    out.timeline.communication_done();
  };

  // A process with no neighbour (one rank: every halo is the Dirichlet boundary, which no
  // exchange changes) runs two iterations per pass over memory where that is exact: the second
  // runs only once the first's largest |delta| exceeds the convergence limit, i.e. only when
  // the first cannot be the last, and never past the iteration cap (sweep_two_tuned; with
  // fixed iterations, always). Each iteration is then booked, exchanged (nothing to send) and
  // checked as before, so the iterations and the solution are bit for bit those of one
  // iteration per pass. The non-finite stop needs no gate: for 0 < omega < 2 SOR on this
  // positive definite system does not grow the error's energy, so finite values stay finite.
  // With neighbours the halos change every iteration, which a fused pass would need twice as
  // deep: not done, each rank of a larger grid runs one iteration per pass.
  bool alone = true;
  for (int d = 0; d < harness::kDirections; ++d) {
    alone = alone && halo.neighbour(static_cast<harness::Direction>(d)) == harness::kNoPeer;
  }
  const bool fuse = staged && alone && s.sample == 0 && s.omega > 0 && s.omega < 2;
  std::optional<double> fused_next;  // the next iteration's largest |delta|, already swept
  const double gate = s.fixed_iterations ? -1.0 : delta_limit;

  double last_sweep = 0;  // the last executed sweep's update (kept while sampling)
  const double points = static_cast<double>(p.sub.nx) * p.sub.ny;
  OverlapSweeps overlap{p, halo, comm, s, out};
  MPI_Barrier(comm.mpi());
  const double start = MPI_Wtime();
  for (long it = 1; it <= s.max_iterations; ++it) {
    double local_max = 0;
    if (fused_next) {
      local_max = *fused_next;
      fused_next.reset();
      communicate(-1);
    } else if (fuse && it < s.max_iterations) {
      {
        PhaseClock clock(s.instrumented);
        const TwoSweeps two = sweep_two_tuned(p.u, p.h2f, p.sub, s.omega, gate);
        local_max = two.first;
        if (two.both) {
          fused_next = two.second;
          ++out.fused_iterations;
        }
        clock.add_to(out.compute_time);
      }
      communicate(-1);
    } else if (s.halo == HaloMode::paper) {
      {
        PhaseClock clock(s.instrumented);
        local_max = sweep_or_sample(s, it, points, last_sweep, [&] {
          return staged ? sweep_both_tuned(p.u, p.h2f, p.sub, s.omega, halo.column_borders())
                        : sweep_both_reference(p.u, p.h2f, p.sub, s.omega);
        });
        last_sweep = local_max;
        clock.add_to(out.compute_time);
      }
      communicate(-1);
    } else if (s.halo == HaloMode::overlap) {
      local_max = overlap.iterate(it);
    } else {
      for (int colour : {kBlack, kRed}) {
        PhaseClock clock(s.instrumented);
        last_sweep = sweep_or_sample(s, it, points / 2, last_sweep,
                                     [&] { return sweep_colour(p, s, colour); });
        local_max = std::max(local_max, last_sweep);
        clock.add_to(out.compute_time);
        communicate(colour);
      }
    }
    double global_max = 0;
    {
      PhaseClock clock(s.instrumented);
      global_max = comm.allreduce_max(local_max);
      clock.add_to(out.allreduce_time);
    }
    out.iterations = it;
    out.global_error = global_max * 4 / (h * h);
    if (!std::isfinite(global_max)) break;
    if (global_max <= delta_limit) {
      out.converged = true;
      if (!s.fixed_iterations) break;
    }
  }
  overlap.drain();
  out.wall_time = MPI_Wtime() - start;
  if (staged) halo.unstage_columns(p.u);
  return out;
}

Verification verify(LocalProblem& p, HaloExchange& halo, MPI_Comm comm,
                    const harness::ClusterMap& map) {
  // A bookkeeping-free communicator view: verification traffic is not part of the measurement.
  harness::InstrumentedComm quiet(comm, map, {"top", "bottom", "left", "right"}, false);
  halo.exchange_all(quiet, p.u);
  const Subdomain& s = p.sub;
  const double h = s.h;
  double local[3] = {0, 0, 0};  // residual, error, non-finite flag
  for (int j = 1; j <= s.ny; ++j) {
    for (int i = 1; i <= s.nx; ++i) {
      const double u = p.u.at(i, j);
      const double lap =
          (4 * u - p.u.at(i - 1, j) - p.u.at(i + 1, j) - p.u.at(i, j - 1) - p.u.at(i, j + 1)) /
          (h * h);
      const double f = p.h2f.at(i, j) / (h * h);
      const double exact = ManufacturedSolution::exact((s.x0 + i) * h, (s.y0 + j) * h);
      if (!std::isfinite(u)) local[2] = 1;
      local[0] = std::max(local[0], std::fabs(f - lap));
      local[1] = std::max(local[1], std::fabs(u - exact));
    }
  }
  double global[3] = {0, 0, 0};
  MPI_Allreduce(local, global, 3, MPI_DOUBLE, MPI_MAX, comm);
  Verification v;
  v.residual = global[0];
  v.error = global[1];
  v.finite = global[2] == 0;
  v.error_bound = ManufacturedSolution::error_bound(h, v.residual);
  return v;
}

}  // namespace mcb::poisson
