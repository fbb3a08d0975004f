#pragma once
/// @file
/// @brief The platform description of link-aware matching: one INI file in the suite's dialect
/// (common/ini.hpp, docs/input.md), one [cluster.NAME] section per cluster:
///
///     [cluster.fs0]
///     nodes = 8
///     power = 1                # P, one value for every node or one per node
///     availability = 1 1 0.85 1 1 1 1 1   # A, likewise
///     link_max = 1000          # BW^max of the cluster's inter-cluster link
///     link_consumed = 200      # BW^consumed of that link (default 0)
///     node_link_max = 100      # intra-cluster link of each node (default: unlimited)
///     node_link_consumed = 0   # one value or one per node (default 0)
///
/// Bandwidths are in any one unit, the unit of the job's per-node bandwidth.

#include "matching/model.hpp"

#include <string>

namespace mcb::matching {

/// @brief Reads the platform file @p path; messages start with @p prefix ("--platform: ").
/// @throws mcb::UsageError "<prefix><path>:<line>: <key>: ..." naming the bad value, or
/// "<prefix><path>: ..." for a file without clusters.
Platform read_platform(const std::string& path, const std::string& prefix);

}  // namespace mcb::matching
