#pragma once
/// @file
/// @brief One whole twin experiment on a communicator: the paper's main loop (evolve every
/// member one day; on analysis days, analyse and update), timed, then the same initial ensemble
/// again without analyses (the free run), untimed, for the verdict.

#include "apps/ensflow/checkpoint.hpp"
#include "apps/ensflow/diagnostics.hpp"
#include "apps/ensflow/ensemble.hpp"
#include "apps/ensflow/observations.hpp"
#include "apps/ensflow/reference_analysis.hpp"
#include "apps/ensflow/settings.hpp"
#include "apps/ensflow/truth.hpp"
#include "harness/comm.hpp"
#include "harness/counters.hpp"
#include "harness/timeline.hpp"

#include <Eigen/Dense>

#include <vector>

namespace mcb::ensflow {

struct ExperimentOutcome {
  PhaseTimes times;                     //!< this rank, assimilating run
  double wall_time = 0;                 //!< this rank, the timed loop
  double setup_time = 0;                //!< this rank: spin-up, truth, initial ensemble (untimed)
  double free_run_time = 0;             //!< this rank: the free run (untimed); 0 when off
  harness::CommTimeline timeline;       //!< phase ends of the assimilating run
  std::vector<DiagnosticPoint> points;  //!< same on every rank
  std::vector<InnovationStatistics> innovations;  //!< per analysis, same on every rank
  Eigen::MatrixXd final_states;  //!< this rank's members (q) at the end of the assimilating run
  ReferenceCheck reference;      //!< the first analysis against the reference, same on every rank
  int first_day = 1;             //!< the first day this run computed (after a restart's day)
  int last_day = 0;              //!< the last day it computed (--stop-at-day or the run's last)
  CheckpointBook checkpoints;    //!< restart files read and written
};

/// @brief Whether @p settings analyse in the regional layout on @p ranks processes.
bool uses_regional_layout(const ExperimentSettings& settings, int ranks);

/// @brief The analysis layout of @p settings on @p ranks processes (layout.hpp).
EnsembleLayout analysis_layout(const ExperimentSettings& settings, int ranks);

/// @brief Runs the experiment on @p comm's ranks (its size must divide the member count).
/// Everything before the timed loop (spin-up, truth, initial ensemble) and after it (final
/// diagnostics, the reference check, free run) stays out of the analysis channels' books and out of
/// wall_time.
/// @p counters, when given, count the timed loop only. With @p restart, the run continues from
/// its day (the truth, members and diagnostics so far from the file; no spin-up, no initial
/// ensemble); @p plan says when it writes restart files (their time stays out of wall_time) and
/// where it stops: a run stopped before its last day has no final diagnostics and no free run.
/// Points and innovations are always the whole run's. Collective.
ExperimentOutcome run_experiment(const ExperimentSettings& settings,
                                 harness::InstrumentedComm& comm,
                                 harness::Counters* counters = nullptr,
                                 const CheckpointPlan& plan = {},
                                 const RestartSource* restart = nullptr);

/// @brief The points of one kind, in day order.
std::vector<DiagnosticPoint> points_of(const std::vector<DiagnosticPoint>& points,
                                       const std::string& kind);

}  // namespace mcb::ensflow
