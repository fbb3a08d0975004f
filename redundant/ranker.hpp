#pragma once
/// @file
/// @brief Site rankers of seed 004 section 3: a score per site for a global job, lower is
/// better. One file each: Random, Qlen, Workload, Est. QT, Ideal Min.

#include "common/rng.hpp"
#include "redundant/grid.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mcb::redundant {

/// @brief The global job being ranked for: its processors and lengths (s).
struct RankedJob {
  int size = 0;
  double requested = 0;  //!< what the sites' schedulers reserve
  double runtime = 0;    //!< what it will really run (known to Ideal Min only)
};

/// @brief Ranks the sites for one global job.
class Ranker {
 public:
  virtual ~Ranker() = default;
  virtual std::string_view name() const = 0;
  /// Score of site @p site for the job @p job (lower ranks higher).
  virtual double score(const sim::Sim& sim, const GridState& state, int site,
                       const RankedJob& job) = 0;
};

/// The names make_ranker accepts, in the paper's order.
const std::vector<std::string>& ranker_names();

/// @brief The ranker named random, qlen, workload, est-qt or ideal-min.
/// @throws std::invalid_argument otherwise.
std::unique_ptr<Ranker> make_ranker(std::string_view name, std::uint64_t seed);

std::unique_ptr<Ranker> make_random_ranker(std::uint64_t seed);
std::unique_ptr<Ranker> make_qlen_ranker();
std::unique_ptr<Ranker> make_workload_ranker();
std::unique_ptr<Ranker> make_est_qt_ranker();
std::unique_ptr<Ranker> make_ideal_min_ranker();

/// @brief How long @p job would wait at @p site if it joined its queue now: the site's
/// discipline replayed over the running and queued jobs and the job itself.
/// @p actual false (Est. QT): the site's own plan, every job reserved for its requested time.
/// @p actual true (Ideal Min, seed 004: "calculated based on the actual execution times of all
/// queuing and running jobs"): the start the job really gets. Under FCFS that is the plan with
/// actual runtimes; under conservative backfilling the site reserves requested times and
/// compresses its plan as jobs end early, so the plan is played forward through those ends.
double forecast_wait(const sim::Sim& sim, const GridState& state, int site, const RankedJob& job,
                     bool actual);

}  // namespace mcb::redundant
