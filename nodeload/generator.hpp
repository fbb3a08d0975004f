#pragma once
/// @file
/// @brief The load generator of one node: CPU threads with a duty cycle, a streaming copy at a
/// memory rate, and UDP traffic at a network rate to a peer (and a receiver for the peers' own).

#include "common/node_load.hpp"

#include <atomic>
#include <functional>
#include <string>

namespace mcb::nodeload {

/// @brief Runs @p spec on this node until @p stop is set or @p duration seconds passed
/// (duration <= 0: until stopped). Network load goes to @p peer:spec.port over UDP.
/// @p started is called once every load is running.
/// @throws std::runtime_error when the UDP port cannot be bound or the peer not resolved.
NodeLoadAchieved generate(const NodeLoadSpec& spec, const std::string& peer,
                          const std::atomic<bool>& stop, double duration,
                          const std::function<void()>& started);

}  // namespace mcb::nodeload
