#pragma once
/// @file
/// @brief The SGR paper's evaluation of its 3-hop relay (004, section 5.1), on this run's
/// clusters: point-to-point, broadcast and all-to-all, each timed with messages going direct
/// and through the gateways, per message size, against the lower bound T0 + N / B (T0 and B
/// from the cross-cluster fit). Both routes carry checked data: the results must be identical.

#include "calibration/links/link_fit.hpp"
#include "calibration/links/measure.hpp"
#include "harness/comm.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <vector>

namespace mcb::links {

struct RelayPoint {
  std::size_t bytes = 0;
  Stats direct;  //!< seconds
  Stats relay;   //!< seconds
  double lower_bound = 0;
  nlohmann::json to_json() const;
};

struct RelayStudy {
  RankPair pair;              //!< the point-to-point pair
  std::vector<int> gateways;  //!< per cluster
  LinkFit bound;              //!< T0 and B of the lower bound
  std::vector<RelayPoint> point_to_point, broadcast, alltoall;
  nlohmann::json to_json() const;
};

/// @brief Runs the study on @p comm (whose wide area relays); @p bound gives T0 and B.
/// Collective. @p data_ok turns false when any message arrived wrong on either route.
RelayStudy relay_study(harness::InstrumentedComm& comm, RankPair pair,
                       const std::vector<std::size_t>& sizes, const MeasureSettings& s,
                       const LinkFit& bound, bool& data_ok);

}  // namespace mcb::links
