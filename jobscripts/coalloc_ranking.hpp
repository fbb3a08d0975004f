#pragma once
/// @file
/// @brief Where a component's duplicates go (seed 004, section 3): the candidate systems
/// ranked by Random (a draw), Qlen (jobs waiting in the queue) or Est. QT (the system's own
/// estimate of when a request of this size would start; a system without one ranks last).

#include "jobscripts/coalloc_spec.hpp"
#include "jobscripts/queue.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief The ranked systems, best first, and the score each got (for the journal).
struct RankedSystems {
  std::vector<std::string> order;
  nlohmann::json scores = nlohmann::json::object();
};

/// @brief Ranks @p candidates (systems of @p queues) for a request of @p processors and
/// @p time_limit_s. Random draws from @p seed and @p stream alone, so a resumed coordinator
/// draws the same. Ties keep the candidates' order.
RankedSystems rank_systems(Ranking ranking, const std::vector<BatchQueue*>& candidates,
                           int processors, double time_limit_s, std::uint64_t seed,
                           std::uint64_t stream);

}  // namespace mcb::campaign
