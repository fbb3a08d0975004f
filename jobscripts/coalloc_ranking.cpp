#include "jobscripts/coalloc_ranking.hpp"

#include "common/rng.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace mcb::campaign {

RankedSystems rank_systems(Ranking ranking, const std::vector<BatchQueue*>& candidates,
                           int processors, double time_limit_s, std::uint64_t seed,
                           std::uint64_t stream) {
  std::vector<double> score(candidates.size(), 0);
  RankedSystems out;
  Rng rng(derive_seed(seed, stream));
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    BatchQueue& q = *candidates[i];
    if (ranking == Ranking::random) {
      score[i] = rng.uniform();
      out.scores[q.name()] = score[i];
    } else if (ranking == Ranking::qlen) {
      const QueueState state = q.queue_state();
      score[i] = state.pending_jobs + state.held_jobs;
      out.scores[q.name()] = {{"waiting_jobs", score[i]}};
    } else {
      const StartEstimate e = q.start_estimate(processors, time_limit_s);
      score[i] = e.start_time ? *e.start_time : std::numeric_limits<double>::infinity();
      out.scores[q.name()] = {{"start", e.start_time ? nlohmann::json(*e.start_time) : nullptr},
                              {"source", e.source}};
    }
  }
  std::vector<std::size_t> index(candidates.size());
  std::iota(index.begin(), index.end(), 0);
  std::stable_sort(index.begin(), index.end(),
                   [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
  for (const std::size_t i : index) out.order.push_back(candidates[i]->name());
  return out;
}

}  // namespace mcb::campaign
