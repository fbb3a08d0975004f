#pragma once
/// @file
/// @brief Service times: from runtime tables by (application, total size, clusters used), or
/// from a trace's runtime times a co-allocation factor when the job is spread; stretched by the
/// slowest processor speed among the clusters used (001 section IV.B).

#include "simulator/job.hpp"
#include "simulator/machine.hpp"
#include "simulator/moldable.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace mcb::sim {

/// @brief Numbers of clusters a request may end up on (bit k), for a system of C clusters.
std::uint64_t feasible_counts(const Request& req, int clusters);

/// @brief Turns a job and its placement into service, net and requested times.
class ServiceModel {
 public:
  /// @param coalloc_factor runtime multiplier for a trace job spread over several clusters
  /// @param estimate_factor requested time = factor x service time where the workload gives none
  ServiceModel(double coalloc_factor, double estimate_factor)
      : coalloc_(kMaxClusters + 1, coalloc_factor), estimate_(estimate_factor) {}
  /// @param by_count runtime multiplier by the number of clusters used, index k (from
  /// parse_coalloc_factors; entries 0 and 1 are not used)
  ServiceModel(std::vector<double> by_count, double estimate_factor)
      : coalloc_(std::move(by_count)), estimate_(estimate_factor) {}

  /// Service time at speed 1 on k clusters. Table prices without an entry for k use the next
  /// larger tabulated count (only non-fixed requests can get there).
  double base(const Job& job, int k) const;
  /// Single-cluster service time at speed 1 (the net service time of section 6).
  double net_base(const Job& job) const { return base(job, 1); }
  /// Requested time at speed 1 on k clusters (>= base(job, k)).
  double requested_base(const Job& job, int k) const;
  /// Upper bound on the requested time of any placement the job may get, in seconds.
  double plan(const Job& job, const Machine& machine) const;

  /// The speedup model of moldable jobs (linear unless set).
  void set_speedup(SpeedupModel speedup) { speedup_ = speedup; }
  const SpeedupModel& speedup() const { return speedup_; }
  /// Factor on a moldable job's time on @p alloc (fewer processors than requested, 001 V);
  /// 1 for other requests.
  double stretch(const Job& job, std::span<const int> alloc) const;

  /// Runtime multiplier of a trace-priced job on k clusters (1 on one cluster).
  double coalloc_factor(int k) const {
    return k > 1 ? coalloc_[static_cast<size_t>(std::min(k, static_cast<int>(coalloc_.size()) - 1))]
                 : 1.0;
  }
  double estimate_factor() const { return estimate_; }

 private:
  std::vector<double> coalloc_;  //!< index k: factor on k clusters
  double estimate_;
  SpeedupModel speedup_;
};

}  // namespace mcb::sim
