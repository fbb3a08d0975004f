#pragma once
/// @file
/// @brief Where the grid's jobs come from: a synthetic workload (Poisson arrivals per site and
/// for the global jobs at the configured loads) or a given list, and the source that turns each
/// global job into its copies for the engine.

#include "common/rng.hpp"
#include "redundant/grid.hpp"

#include <vector>

namespace mcb::redundant {

/// @brief Jobs in submit order.
class WorkloadGenerator {
 public:
  virtual ~WorkloadGenerator() = default;
  /// False at the end. @p index is the job's number in the workload.
  virtual bool next(ListedJob& job, std::int64_t& index) = 0;
  /// Global jobs the workload holds.
  virtual std::uint64_t global_jobs() const = 0;
};

/// @brief Poisson arrivals: each site's local jobs at its local load, the global jobs at the
/// global load; local jobs stop at the last global arrival.
class SyntheticWorkload final : public WorkloadGenerator {
 public:
  explicit SyntheticWorkload(const GridConfig& config);
  bool next(ListedJob& job, std::int64_t& index) override;
  std::uint64_t global_jobs() const override { return config_.global_jobs; }
  /// Mean processor-seconds of a job (sizes and runtimes independent).
  static double mean_work(const WorkloadParams& work);

 private:
  void draw(Rng& rng, int largest, ListedJob& job) const;

  GridConfig config_;
  std::vector<Rng> arrivals_, shapes_;  //!< per site, then the global stream last
  std::vector<double> rates_;
  std::vector<Time> next_;
  std::uint64_t globals_ = 0;
  std::int64_t count_ = 0;
  Time horizon_ = sim::kNever;
};

/// @brief A given list (tests, hand-worked schedules).
class ListedWorkload final : public WorkloadGenerator {
 public:
  /// @throws UsageError naming the list entry that is out of order or does not fit.
  ListedWorkload(const GridConfig& config, std::vector<ListedJob> jobs);
  bool next(ListedJob& job, std::int64_t& index) override;
  std::uint64_t global_jobs() const override { return globals_; }

 private:
  std::vector<ListedJob> jobs_;
  size_t at_ = 0;
  std::uint64_t globals_ = 0;
};

/// @brief Feeds the engine: a local job as it is, a global job as min(d + 1, sites that can
/// hold it) copies with the same submit time (copy k goes to the k-th ranked site); a
/// co-allocated job as min(d + 2, sites that can hold a part) copies of its part. Parts the
/// run resubmits (GridState::resubmits) come before the next job of the workload.
class CopySource final : public sim::JobSource {
 public:
  CopySource(GridState& state, WorkloadGenerator& generator);
  bool next(sim::Job& job) override;
  bool earlier(sim::Job& pending, bool have_pending) override;

 private:
  /// Opens the group of a global job and returns its number of copies.
  int open_group(std::int64_t index);

  GridState& state_;
  WorkloadGenerator& generator_;
  ListedJob current_;
  std::vector<sim::Job> stash_;  //!< the workload's next job, put back behind a resubmission
  std::int64_t group_ = -1;
  int copies_left_ = 0, copy_ = 0;
};

}  // namespace mcb::redundant
