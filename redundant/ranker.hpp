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

/// @brief Ranks the sites for one global job.
class Ranker {
 public:
  virtual ~Ranker() = default;
  virtual std::string_view name() const = 0;
  /// Score of site @p site for a job of @p size processors (lower ranks higher).
  virtual double score(const sim::Sim& sim, const GridState& state, int site, int size) = 0;
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

/// @brief How long a job of @p size would wait at @p site if it joined its queue now: the
/// site's discipline replayed over the running and queued jobs, with their requested times
/// (@p actual false: what a scheduler knows) or their actual runtimes (the benchmark).
double forecast_wait(const sim::Sim& sim, const GridState& state, int site, int size, bool actual);

}  // namespace mcb::redundant
