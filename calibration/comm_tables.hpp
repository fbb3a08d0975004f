#pragma once
/// @file
/// @brief The communication outputs of the DAS-2 study's appendix, made from Poisson records:
/// total border-exchange time (Tables 9 and 10), per-rank per-direction times (Figures 9 and
/// 10) and the border-exchange transfer rate (Figure 12).

#include "calibration/records.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace mcb::calib {

/// @brief CSV texts of the four communication outputs.
struct CommTables {
  /// comm_time.csv: problem,grid,procs,total_size,components,system,sync,iterations,n,min,avg,
  /// max,median,stddev — statistics over runs of result.comm_time_paper (Table 9 is the rows
  /// with sync=true; Table 10 in long form).
  std::string comm_time;
  /// comm_sync.csv: problem,grid,procs,total_size,components,system,iterations,sync_n,sync_avg,
  /// nosync_n,nosync_avg — Table 10, the two modes side by side (empty cells for a mode not run).
  std::string comm_sync;
  /// rank_comm.csv: problem,grid,procs,total_size,components,system,sync,rank,column,row,cluster,
  /// direction,n,min,avg,max,intra_avg,inter_avg — per rank and channel (plus `total`, the sum of
  /// channels: Figure 9), statistics over runs of time.intra + time.inter (Figure 10).
  std::string rank_comm;
  /// transfer_rates.csv: problem,grid,procs,total_size,components,system,sync,n,min,avg,max,
  /// median,stddev — statistics over runs of result.transfer_rate in MB/s (Figure 12).
  std::string transfer_rates;
  std::size_t configurations = 0;  //!< rows of comm_time.csv
};

/// @brief Builds the communication outputs from valid Poisson runs. Runs pool by (problem, grid,
/// procs, total_size, components, system, sync) and the compared configuration.
/// @param hint filter option suggested when runs of one row differ in configuration.
/// @throws mcb::UsageError when a row's runs differ in a configuration field.
CommTables build_comm_tables(const std::vector<const Record*>& poisson_runs,
                             const std::string& hint);

}  // namespace mcb::calib
