#pragma once
/// @file
/// @brief mcb-links's options: one struct, defaults here, checked at parse time.

#include "calibration/links/measure.hpp"
#include "common/check.hpp"
#include "common/option_types.hpp"
#include "harness/run_options.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace mcb::links {

struct LinksOptions {
  std::string sizes = "1:4MiB";          //!< --sizes MIN:MAX (powers of two) or a list
  int warmup = 10;                       //!< --warmup
  int iterations = 100;                  //!< --iterations
  int repetitions = 5;                   //!< --repetitions
  cli::Duration max_time{0.2, "200ms"};  //!< --max-time: per point and repetition
  int window = 64;                       //!< --window: messages in flight (bandwidth)
  std::string window_bytes = "4MiB";     //!< --window-bytes: cap on a window's bytes
  harness::RunOptions run;
};

struct LinksConfig {
  LinksOptions options;
  std::vector<std::size_t> sizes;
  MeasureSettings settings;
};

/// @brief "1:4MiB" (every power of two from 1 to 4 MiB) or "1,1024,1MiB" (each a power of
/// two), ascending and without repeats. @throws mcb::UsageError naming --sizes.
std::vector<std::size_t> parse_sizes(const std::string& text);

/// @brief Parses and checks argv. Returns false after --help. @throws mcb::UsageError.
bool parse_options(int argc, const char* const* argv, bool is_root, LinksConfig& config);

/// @brief Refuses fewer than 2 ranks. @throws mcb::UsageError.
void check_ranks(int ranks);

/// @brief The run's map without --cluster-map: @p clusters equal blocks of consecutive ranks.
/// @throws mcb::UsageError naming --clusters when they do not divide @p ranks.
harness::ClusterMap default_cluster_map(int ranks, int clusters);

/// @brief The --check mode: parse_options, the rank count and the run's clusters, without MPI.
cli::RunShape check_options(int argc, const char* const* argv, int ranks);

}  // namespace mcb::links
