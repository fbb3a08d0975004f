#include "apps/ensflow/experiment.hpp"

#include "apps/ensflow/layout.hpp"
#include "apps/ensflow/phase_clock.hpp"

#include <mpi.h>

namespace mcb::ensflow {

bool uses_regional_layout(const ExperimentSettings& s, int ranks) {
  if (s.layout != AnalysisLayout::automatic) return s.layout == AnalysisLayout::regional;
  return s.analysis.filter == FilterKind::square_root && s.analysis.localisation_km > 0 &&
         !s.update_factory && ranks <= s.model.grid;
}

EnsembleLayout analysis_layout(const ExperimentSettings& s, int ranks) {
  if (uses_regional_layout(s, ranks))
    return EnsembleLayout::regional(s.members, ranks, s.model.grid, s.model.layers());
  return EnsembleLayout(s.members, ranks,
                        static_cast<std::size_t>(s.model.layers()) * s.model.points());
}

ExperimentOutcome run_experiment(const ExperimentSettings& s, harness::InstrumentedComm& comm,
                                 harness::Counters* counters) {
  ExperimentOutcome out;
  const int rank = comm.rank();
  const double setup_start = MPI_Wtime();
  QgModel model(s.model);
  PerturbationField field(s.model, s.initial_spread_m, s.initial_length_km);
  const ObservationNetwork network(s.model, s.observations, s.analysis.observation_variance,
                                   s.truth_seed);
  const Truth truth = make_truth(s, model, field, network);
  const EnsembleLayout layout = analysis_layout(s, comm.size());
  Diagnostics diagnostics(layout, rank, s.model.ssh_per_streamfunction(), model.layer_size());
  // Diagnostics outside the analyses travel through a communicator that keeps no books.
  harness::InstrumentedComm quiet(comm.mpi(), comm.cluster_map(), comm.channel_names(), false);
  Ensemble ensemble(s, layout, rank, network);
  ensemble.start(truth.background, model, field);
  ensemble.diagnose("initial", 0, truth.psi.at(0).data(), model, quiet, diagnostics);
  out.setup_time = MPI_Wtime() - setup_start;

  // The paper's main loop, timed.
  out.timeline = harness::CommTimeline(comm.instrumented());
  out.timeline.reserve(3 * static_cast<std::size_t>(s.analyses()));
  MPI_Barrier(comm.mpi());
  if (counters != nullptr) counters->start();
  const double start = MPI_Wtime();
  for (int day = 1; day <= s.days; ++day) {
    {
      PhaseClock clock(out.times.forecast);
      ensemble.forecast_day(model);
    }
    if (s.is_analysis_day(day)) {
      ensemble.analyse(day, truth.observations.at(static_cast<std::size_t>(s.analysis_index(day))),
                       truth.psi.at(day).data(), model, comm, out.times, out.timeline, diagnostics);
    }
  }
  out.wall_time = MPI_Wtime() - start;
  if (counters != nullptr) counters->stop();
  out.final_states = ensemble.states();
  if (s.analyses() > 0)
    out.reference = ensemble.check_first_analysis(truth.observations.at(0), comm.mpi());
  ensemble.diagnose("final", s.days, truth.psi.at(s.days).data(), model, quiet, diagnostics);

  // The same initial ensemble without analyses: what the observations were worth.
  if (s.free_run) {
    const double free_start = MPI_Wtime();
    ensemble.start(truth.background, model, field);
    for (int day = 1; day <= s.days; ++day) {
      ensemble.forecast_day(model);
      if (s.is_analysis_day(day) || day == s.days) {
        ensemble.diagnose("free", day, truth.psi.at(day).data(), model, quiet, diagnostics);
      }
    }
    out.free_run_time = MPI_Wtime() - free_start;
  }
  out.points = diagnostics.finish(comm.mpi());
  out.innovations = ensemble.innovations(comm.mpi());
  return out;
}

std::vector<DiagnosticPoint> points_of(const std::vector<DiagnosticPoint>& points,
                                       const std::string& kind) {
  std::vector<DiagnosticPoint> out;
  for (const auto& p : points) {
    if (p.kind == kind) out.push_back(p);
  }
  return out;
}

}  // namespace mcb::ensflow
