#pragma once
/// @file
/// @brief The experiment of seed 002's section 4.1 (Figs. 5-8): synthetic multiclusters whose
/// per-node bandwidth demand (PNBW), local activity (LA), number of nodes and number of
/// inter-cluster links vary, each matched by the three matchers, recording the communication
/// slowdown and the solver time. The settings the paper leaves open are fixed here and argued
/// in matching/README.md.

#include "matching/matcher.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mcb::matching {

/// @brief The fixed parts of every study platform and job.
struct StudyConfig {
  int tasks = 12;                    //!< t^j: more than one cluster of 8 holds, so the job spans
  double comm_share = 0.5;           //!< T^c / (T^p + T^c)
  double link_max = 2.0;             //!< BW^max of every inter-cluster link, in node-link units
  double consumed_share = 0.5;       //!< BW^consumed drawn uniformly in [0, share x BW^max]
  double local_availability = 0.85;  //!< A of a node running local_bench (15% CPU, section 4)
  int replications = 5;
  std::uint64_t seed = 1;
  double time_limit = 60.0;  //!< per match, seconds
};

/// @brief One point of a figure: a platform shape and a load.
struct StudyPoint {
  std::string figure;  //!< "5-6", "7-pnbw", "7-la", "8"
  int clusters = 4;
  int nodes_per_cluster = 8;
  double pnbw = 0.5;            //!< PNBW^j, as a share of a node's link (1 unit)
  double local_activity = 0.0;  //!< share of the nodes running local_bench
  std::vector<Matcher> matchers;
};

/// @brief The points of Figs. 5-8 (see README for the ranges).
std::vector<StudyPoint> study_points();

/// @brief The platform of one replication: every node P = 1; round(LA x nodes) nodes, drawn at
/// random, get A = local_availability; each link's consumed bandwidth is drawn uniformly.
Platform study_platform(const StudyPoint& point, const StudyConfig& config, std::uint64_t seed);

/// @brief The job of the study at @p pnbw.
Job study_job(const StudyConfig& config, double pnbw);

/// @brief The seed of replication @p r of point @p index (every matcher sees the same platform).
std::uint64_t replication_seed(std::uint64_t seed, std::size_t index, int r);

}  // namespace mcb::matching
