#pragma once
/// @file
/// @brief One process's share of the ensemble and the distributed analysis.
///
/// Between analyses the process holds M/P whole members (potential vorticity q) and evolves
/// them independently: no communication. An analysis then runs in seven steps; the gathered
/// layout (the stochastic filter, the global analysis):
///  1. observe (compute): each member's streamfunction psi = invert(q) and its SSH at the
///     observation sites; psi rows packed for the transpose;
///  2. gather (channel "gather"): all-gather of the observed ensemble HX (m x M);
///  3. transform (compute): every process runs the same observation-space step of the update
///     (update.hpp) from HX, the observations and the member-keyed observation perturbations,
///     and the same innovation statistics (innovations.hpp);
///  4. transpose (channel "transpose"): all-to-all, members -> row blocks of psi;
///  5. apply (compute): the update on each block of psi rows, then relaxation to prior
///     spread; forecast and analysis error and spread are summed on the same rows;
///  6. update (channel "update"): all-to-all back, row blocks -> members;
///  7. restore (compute): each member's q = (Laplace_h - 1/Ld^2) psi^a.
/// The regional layout (the local analysis, regional.hpp) transposes first and exchanges only
/// nearby observations: 1. psi and packing; 2. transpose; 3. observe its own sites from its
/// rows; 4. halo (channel "halo"): the observed ensemble at the sites near its band, from the
/// neighbours that hold them; 5. transform (its own nodes only) and apply; 6. update;
/// 7. restore. Its innovation terms are combined after the run, outside the analysis channels.
/// The filter state is the streamfunction: the model's q <-> psi map is linear and invertible,
/// so updating psi and rebuilding q is the same analysis as updating q, and the transposed rows
/// carry SSH directly for the error diagnostics.

#include "apps/ensflow/diagnostics.hpp"
#include "apps/ensflow/exchange.hpp"
#include "apps/ensflow/innovations.hpp"
#include "apps/ensflow/layout.hpp"
#include "apps/ensflow/model.hpp"
#include "apps/ensflow/observations.hpp"
#include "apps/ensflow/reference_analysis.hpp"
#include "apps/ensflow/regional.hpp"
#include "apps/ensflow/settings.hpp"
#include "apps/ensflow/update.hpp"
#include "harness/comm.hpp"
#include "harness/timeline.hpp"

#include <mpi.h>
#include <Eigen/Dense>

#include <memory>
#include <vector>

namespace mcb::ensflow {

/// @brief Channel names of the analysis traffic, in the order the record lists them.
inline const std::vector<std::string>& channel_names() {
  static const std::vector<std::string> names{"gather", "transpose", "halo", "update"};
  return names;
}

/// @brief Seconds this rank spent in each computation phase.
struct PhaseTimes {
  double forecast = 0;
  double observe = 0;
  double transform = 0;
  double apply = 0;
  double restore = 0;
  double diagnostics = 0;
  double compute() const { return forecast + observe + transform + apply + restore + diagnostics; }
  double analysis_compute() const { return observe + transform + apply + restore; }
};

class Ensemble {
 public:
  Ensemble(const ExperimentSettings& settings, const EnsembleLayout& layout, int rank,
           const ObservationNetwork& network);

  /// @brief This rank's members at day 0: background plus each member's departure, drawn from
  /// the stream (seed, member perturbation, member index).
  void start(const std::vector<double>& background, QgModel& model, PerturbationField& field);

  /// @brief This rank's members from @p all, every member's q one after the other (M x n, a
  /// restart file's order), whatever the process count that wrote them.
  void resume(const std::vector<double>& all);

  /// @brief Every local member one model day ahead.
  void forecast_day(QgModel& model);

  /// @brief The analysis of @p day (see the file comment). Stamps @p timeline around each of
  /// the three exchanges and adds the forecast/analysis diagnostics.
  void analyse(int day, const Eigen::VectorXd& observations, const double* true_psi, QgModel& model,
               harness::InstrumentedComm& comm, PhaseTimes& times, harness::CommTimeline& timeline,
               Diagnostics& diagnostics);

  /// @brief The innovation statistics of every analysis so far, identical on every rank
  /// (the regional layout's terms travel by MPI_Allgatherv here, outside any timed phase).
  /// Collective.
  std::vector<InnovationStatistics> innovations(MPI_Comm comm) const;

  /// @brief The first analysis against the reference analysis (reference_analysis.hpp): rank 0
  /// gathers the rows the reference needs, recomputes them and tells every rank the result.
  /// @p observations are the first analysis's y. Collective; through the raw communicator,
  /// outside every channel's books. Unchecked when no analysis was made.
  ReferenceCheck check_first_analysis(const Eigen::VectorXd& observations, MPI_Comm comm) const;

  /// @brief The regional analysis, when the layout is regional (else null).
  const RegionalAnalysis* regional() const { return regional_.get(); }

  /// @brief Adds a diagnostic point for the current members (transposes through @p comm, which
  /// callers pass uninstrumented: diagnostics outside analyses are not part of the measurement).
  void diagnose(const std::string& kind, int day, const double* true_psi, QgModel& model,
                harness::InstrumentedComm& comm, Diagnostics& diagnostics);

  /// @brief Local members' q, one column per member (n x M/P).
  const Eigen::MatrixXd& states() const { return states_; }
  const EnsembleLayout& layout() const { return layout_; }

 private:
  // psi of every local member, packed per destination rank (step 1).
  void observe_and_pack(QgModel& model, bool observe);
  // Steps 4 and 6 over `comm`.
  void transpose(harness::InstrumentedComm& comm);
  void transpose_back(harness::InstrumentedComm& comm);
  // Step 7.
  void restore(QgModel& model);
  // Steps 1-4 (gathered) or 1-5 (regional): everything before the forecast diagnostics.
  void prepare_gathered(int day, const Eigen::VectorXd& observations, QgModel& model,
                        harness::InstrumentedComm& comm, PhaseTimes& times,
                        harness::CommTimeline& timeline);
  void prepare_regional(int day, const Eigen::VectorXd& observations, QgModel& model,
                        harness::InstrumentedComm& comm, PhaseTimes& times,
                        harness::CommTimeline& timeline);

  struct PendingTerms {
    int day;
    std::vector<ObservationTerms> terms;  // own observations, in own() order
  };

  const ExperimentSettings& settings_;
  AnalysisGeometry geometry_;
  const EnsembleLayout& layout_;
  int rank_;
  const ObservationNetwork& network_;
  std::unique_ptr<UpdateStep> update_;             // gathered layout
  std::unique_ptr<RegionalAnalysis> regional_;     // regional layout
  std::vector<InnovationStatistics> innovations_;  // gathered layout: complete on every rank
  std::vector<PendingTerms> pending_terms_;        // regional layout: own observations
  Eigen::MatrixXd states_;                         // q, n x M/P
  Eigen::MatrixXd psi_;                            // psi, n x M/P
  Eigen::MatrixXd observed_;                       // HX of local members, m x M/P
  Eigen::MatrixXd observed_all_;                   // m x M
  std::vector<double> packed_;      // psi rows per destination (and the update's landing area)
  Eigen::MatrixXd slice_;           // this rank's rows of every member's psi, rows x M
  Eigen::MatrixXd analysed_;        // the same rows after the analysis
  Segments by_destination_;         // packed_ segments, per peer rank
  Segments by_source_;              // slice_ / analysed_ segments, per peer rank
  Eigen::MatrixXd first_forecast_;  // slice_ and analysed_ of the first analysis, kept for
  Eigen::MatrixXd first_analysed_;  // check_first_analysis (a process may hold no rows)
  bool first_kept_ = false;
};

}  // namespace mcb::ensflow
