#include "apps/ensflow/experiment.hpp"

#include "apps/ensflow/layout.hpp"
#include "apps/ensflow/phase_clock.hpp"

#include <mpi.h>

#include <filesystem>
#include <iterator>
#include <memory>
#include <string>

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

namespace {

// What a run carries over from before its first day: from day 0, or from a restart file.
struct Start {
  Truth truth;
  int day = 0;                                    // days already done
  std::vector<DiagnosticPoint> points;            // finished before this run
  std::vector<InnovationStatistics> innovations;  // likewise
  ReferenceCheck reference;                       // the first analysis's, when made before
};

// Spin-up, truth and initial ensemble; or, with a restart, all of it from the file.
Start start_run(const ExperimentSettings& s, harness::InstrumentedComm& comm,
                harness::InstrumentedComm& quiet, QgModel& model, PerturbationField& field,
                const ObservationNetwork& network, Ensemble& ensemble, Diagnostics& diagnostics,
                const RestartSource* restart, const std::string& config, CheckpointBook& book) {
  Start start;
  if (restart == nullptr) {
    // Rank 0 spins up and sends the background: the same bits every rank would compute (one
    // binary, FFTW_ESTIMATE), at one process's cost instead of P's on an oversubscribed host.
    ExperimentSettings with = s;
    if (!s.background) {
      std::vector<double> q(model.size());
      if (quiet.rank() == 0) q = spin_up(model, s.spinup_days, s.spinup_seed);
      MPI_Bcast(q.data(), static_cast<int>(q.size()), MPI_DOUBLE, 0, quiet.mpi());
      with.background = std::make_shared<const std::vector<double>>(std::move(q));
    }
    start.truth = make_truth(with, model, field, network);
    ensemble.start(start.truth.background, model, field);
    ensemble.diagnose("initial", 0, start.truth.psi.at(0).data(), model, quiet, diagnostics);
    return start;
  }
  const double begin = MPI_Wtime();
  RestartState state = receive_restart(comm.mpi(), *restart, config, s);
  ensemble.resume(state.states);
  start.truth = std::move(state.truth);
  start.day = state.day;
  start.points = std::move(state.points);
  start.innovations = std::move(state.innovations);
  start.reference = state.reference;
  double distribute = MPI_Wtime() - begin;
  MPI_Allreduce(MPI_IN_PLACE, &distribute, 1, MPI_DOUBLE, MPI_MAX, comm.mpi());
  book.restart_file = restart->file;
  book.restart_day = state.day;
  book.restart_bytes = restart->bytes.size();
  book.read_time = restart->read_time;
  book.distribute_time = distribute;
  return start;
}

template <typename T>
std::vector<T> joined(const std::vector<T>& before, std::vector<T> after) {
  std::vector<T> out = before;
  out.insert(out.end(), std::make_move_iterator(after.begin()),
             std::make_move_iterator(after.end()));
  return out;
}

// The restart file at the end of @p day: everything a run needs to go on from there.
void checkpoint(const ExperimentSettings& s, const CheckpointPlan& plan, const std::string& config,
                int day, const Start& start, const Ensemble& ensemble,
                const Diagnostics& diagnostics, const ReferenceCheck& reference, MPI_Comm comm,
                CheckpointBook& book) {
  const double begin = MPI_Wtime();
  RestartState head;
  head.config = config;
  head.day = day;
  head.next_analysis = day / s.analysis_every;
  head.members = s.members;
  head.state_size = static_cast<std::size_t>(ensemble.states().rows());
  head.observations = s.observations;
  head.truth = start.truth;
  head.points = joined(start.points, diagnostics.finish(comm));
  head.innovations = joined(start.innovations, ensemble.innovations(comm));
  head.reference = reference;
  const std::size_t bytes = write_checkpoint(comm, plan.file, head, ensemble.states());
  book.writes.push_back({day, bytes, MPI_Wtime() - begin});
}

// Whether @p stop_file exists, as rank 0 sees it (one file system view decides for every rank,
// so all stop at the same day); the look and its broadcast stay out of wall_time.
bool stop_asked(const std::string& stop_file, MPI_Comm comm, double& untimed) {
  if (stop_file.empty()) return false;
  const double begin = MPI_Wtime();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int stop = 0;
  if (rank == 0) {
    std::error_code ec;
    stop = std::filesystem::exists(stop_file, ec) ? 1 : 0;
  }
  MPI_Bcast(&stop, 1, MPI_INT, 0, comm);
  untimed += MPI_Wtime() - begin;
  return stop != 0;
}

// The final diagnostics, then the same initial ensemble without analyses: what the observations
// were worth.
void finish_run(const ExperimentSettings& s, const Truth& truth, QgModel& model,
                PerturbationField& field, Ensemble& ensemble, harness::InstrumentedComm& quiet,
                Diagnostics& diagnostics, ExperimentOutcome& out) {
  ensemble.diagnose("final", s.days, truth.psi.at(s.days).data(), model, quiet, diagnostics);
  if (!s.free_run) return;
  const double free_start = MPI_Wtime();
  ensemble.start(truth.background, model, field);
  for (int day = 1; day <= s.days; ++day) {
    ensemble.forecast_day(model);
    if (s.is_analysis_day(day) || day == s.days)
      ensemble.diagnose("free", day, truth.psi.at(day).data(), model, quiet, diagnostics);
  }
  out.free_run_time = MPI_Wtime() - free_start;
}

}  // namespace

ExperimentOutcome run_experiment(const ExperimentSettings& s, harness::InstrumentedComm& comm,
                                 harness::Counters* counters, const CheckpointPlan& plan,
                                 const RestartSource* restart) {
  ExperimentOutcome out;
  const int rank = comm.rank();
  const double setup_start = MPI_Wtime();
  QgModel model(s.model);
  PerturbationField field(s.model, s.initial_spread_m, s.initial_length_km);
  const ObservationNetwork network(s.model, s.observations, s.analysis.observation_variance,
                                   s.truth_seed);
  const EnsembleLayout layout = analysis_layout(s, comm.size());
  const std::string config = restart_config_text(s, layout.is_regional());
  Diagnostics diagnostics(layout, rank, s.model.ssh_per_streamfunction(), model.layer_size());
  // Diagnostics outside the analyses travel through a communicator that keeps no books.
  harness::InstrumentedComm quiet(comm.mpi(), comm.cluster_map(), comm.channel_names(), false);
  Ensemble ensemble(s, layout, rank, network);
  const Start start = start_run(s, comm, quiet, model, field, network, ensemble, diagnostics,
                                restart, config, out.checkpoints);
  const Truth& truth = start.truth;
  out.setup_time = MPI_Wtime() - setup_start;

  // The paper's main loop, timed; restart files stay out of its time.
  out.first_day = start.day + 1;
  out.last_day = plan.last_day(s);
  out.timeline = harness::CommTimeline(comm.instrumented());
  out.timeline.reserve(3 * static_cast<std::size_t>(s.analyses()));
  MPI_Barrier(comm.mpi());
  if (counters != nullptr) counters->start();
  const double start_time = MPI_Wtime();
  double untimed = 0;               // the reference check and restart files
  out.reference = start.reference;  // made before a restart, or still to come
  for (int day = out.first_day; day <= out.last_day; ++day) {
    {
      PhaseClock clock(out.times.forecast);
      ensemble.forecast_day(model);
    }
    if (s.is_analysis_day(day)) {
      ensemble.analyse(day, truth.observations.at(static_cast<std::size_t>(s.analysis_index(day))),
                       truth.psi.at(day).data(), model, comm, out.times, out.timeline, diagnostics);
      // Checked at once, so that every restart file after it carries the result; its time
      // stays out of wall_time like the restart files'.
      if (s.analysis_index(day) == 0) {
        const double begin = MPI_Wtime();
        out.reference = ensemble.check_first_analysis(truth.observations.at(0), comm.mpi());
        untimed += MPI_Wtime() - begin;
      }
    }
    const bool stop = day < out.last_day && s.is_analysis_day(day) &&
                      stop_asked(plan.stop_file, comm.mpi(), untimed);
    if (plan.due(s, day) || stop) {
      const double begin = MPI_Wtime();
      checkpoint(s, plan, config, day, start, ensemble, diagnostics, out.reference, comm.mpi(),
                 out.checkpoints);
      untimed += MPI_Wtime() - begin;
    }
    if (stop) {
      out.last_day = day;
      out.checkpoints.stopped_by = "--stop-file";
      break;
    }
  }
  out.wall_time = MPI_Wtime() - start_time - untimed;
  if (counters != nullptr) counters->stop();
  out.final_states = ensemble.states();
  if (out.last_day < s.days) {  // stopped early: the rest is the next run's
    out.checkpoints.stopped_at = out.last_day;
    if (out.checkpoints.stopped_by.empty()) out.checkpoints.stopped_by = "--stop-at-day";
  } else {
    finish_run(s, truth, model, field, ensemble, quiet, diagnostics, out);
  }
  out.points = joined(start.points, diagnostics.finish(comm.mpi()));
  out.innovations = joined(start.innovations, ensemble.innovations(comm.mpi()));
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
