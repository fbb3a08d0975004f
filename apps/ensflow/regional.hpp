#pragma once
/// @file
/// @brief The local analysis (LETKF) on the regional layout (layout.hpp): each process holds a
/// band of grid rows of every member and analyses only its own points. The transforms of its
/// points need the observations within the localisation support of the nodes around its band;
/// those in its own band it observes from its own rows, the others arrive in a halo exchange
/// from the processes whose bands hold them (channel "halo"), point to point, only between
/// processes whose regions lie within reach of each other. Nothing is gathered from every
/// process, and no process computes another's transforms.
///
/// Every process derives the whole exchange plan (which of its observations each peer needs)
/// from the geometry and the layout, which all know: no negotiation.

#include "apps/ensflow/exchange.hpp"
#include "apps/ensflow/innovations.hpp"
#include "apps/ensflow/layout.hpp"
#include "apps/ensflow/letkf.hpp"
#include "harness/comm.hpp"

#include <Eigen/Dense>

#include <cstddef>
#include <vector>

namespace mcb::ensflow {

class RegionalAnalysis {
 public:
  /// @throws std::invalid_argument unless @p layout is regional.
  RegionalAnalysis(const AnalysisSettings& settings, const AnalysisGeometry& geometry,
                   const EnsembleLayout& layout, int rank, double ssh_per_psi);

  /// @brief The observations on this process's rows, ascending.
  const std::vector<std::size_t>& own() const { return own_; }
  /// @brief The observations this process's analysis sees: its own and the halo, ascending.
  const std::vector<std::size_t>& available() const { return available_; }
  /// @brief How many of its observations this process sends to each peer per analysis.
  std::vector<std::size_t> halo_sends() const;

  /// @brief HX^f of the own observations (own().size() x M) from this process's @p slice of
  /// streamfunction rows (rows x M, the regional layout).
  Eigen::MatrixXd observe(const Eigen::MatrixXd& slice) const;

  /// @brief The halo exchange over @p channel: returns HX^f of available() (one row each).
  Eigen::MatrixXd exchange(harness::InstrumentedComm& comm, int channel,
                           const Eigen::MatrixXd& own_observed) const;

  /// @brief This process's transforms from HX^f of available() and all observations @p y.
  void prepare(const Eigen::MatrixXd& available_observed, const Eigen::VectorXd& y);

  /// @brief The analysis of this process's @p slice (rows x M) after prepare, block by block.
  Eigen::MatrixXd apply(const Eigen::MatrixXd& slice, double relaxation) const;

  /// @brief The innovation terms of the own observations (own() order), after prepare.
  std::vector<ObservationTerms> terms(const Eigen::MatrixXd& own_observed, const Eigen::VectorXd& y,
                                      int analysis, double variance, std::int64_t seed) const;

 private:
  std::size_t slice_row(std::size_t state_row) const;

  const EnsembleLayout& layout_;
  int rank_;
  int grid_;
  double ssh_per_psi_;
  std::vector<std::size_t> sites_;
  LocalEnsembleTransform letkf_;
  std::vector<std::size_t> nodes_;                 // this process's nodes
  std::vector<std::size_t> own_;                   // observation indices on its rows
  std::vector<std::size_t> available_;             // own and halo
  std::vector<std::vector<std::size_t>> send_;     // per peer: own() positions it needs
  std::vector<std::vector<std::size_t>> receive_;  // per peer: available() positions it fills
  Segments send_segments_;
  Segments receive_segments_;
};

}  // namespace mcb::ensflow
