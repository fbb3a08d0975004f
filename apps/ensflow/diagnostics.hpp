#pragma once
/// @file
/// @brief Error and spread of the ensemble against the truth, in sea-surface height:
/// RMSE = sqrt(basin mean of (ensemble-mean SSH - true SSH)^2), spread = sqrt(basin mean of the
/// ensemble variance of SSH, N - 1 in the denominator). Each process sums over the row blocks
/// it owns in the transposed layout; the sums are combined block by block in block order, so
/// the figures are bit-identical for every process count. Only the upper layer's rows (the
/// first @p surface_rows of the state) carry SSH; a two-layer state's lower rows are skipped.

#include "apps/ensflow/layout.hpp"

#include <mpi.h>
#include <Eigen/Dense>

#include <string>
#include <vector>

namespace mcb::ensflow {

/// @brief One diagnosed moment of a run.
struct DiagnosticPoint {
  std::string kind;  //!< initial, forecast, analysis, final; free (the run without analyses)
  int day = 0;
  double rmse = 0;    //!< m of SSH
  double spread = 0;  //!< m of SSH
};

class Diagnostics {
 public:
  Diagnostics(const EnsembleLayout& layout, int rank, double ssh_per_psi, std::size_t surface_rows);

  /// @brief Records a point from this rank's slice of streamfunction rows (rows x M, the
  /// transposed layout) and the matching rows of the true streamfunction.
  void add(const std::string& kind, int day, const Eigen::MatrixXd& slice, const double* true_psi);

  /// @brief Combines every rank's block sums (MPI_Allgatherv outside any timed phase) and
  /// returns the points, identical on every rank. Collective; every rank must have added the
  /// same points in the same order.
  std::vector<DiagnosticPoint> finish(MPI_Comm comm) const;

 private:
  const EnsembleLayout& layout_;
  int rank_;
  double ssh_per_psi_;
  std::size_t surface_rows_;
  struct Pending {
    std::string kind;
    int day;
    std::vector<double> sums;  // per owned block: squared error, summed variance
  };
  std::vector<Pending> pending_;
};

}  // namespace mcb::ensflow
