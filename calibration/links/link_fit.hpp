#pragma once
/// @file
/// @brief The lower bound of the SGR paper (004, section 5.1), T(N) = T0 + N / B, fitted to
/// measured one-way times: relative least squares (each residual divided by its measured time),
/// so a 1-byte point and a 4 MiB point count alike.

#include <nlohmann/json.hpp>

#include <vector>

namespace mcb::links {

struct LinkFit {
  double t0 = 0;                //!< seconds
  double bandwidth = 0;         //!< bytes per second; 0 when the fitted slope is not positive
  double r2 = 0;                //!< weighted coefficient of determination
  double max_relative_gap = 0;  //!< max over points of |measured - fit| / fit
  std::vector<double> gaps;     //!< (measured - fit) / fit per point
  bool usable() const { return bandwidth > 0; }

  double at(double bytes) const { return t0 + (bandwidth > 0 ? bytes / bandwidth : 0.0); }
  /// @brief {"t0", "bandwidth", "r2", "max_relative_gap"}.
  nlohmann::json to_json() const;
};

/// @brief Fits @p seconds (one-way times) against @p bytes. Needs two distinct sizes.
/// @throws std::invalid_argument otherwise.
LinkFit fit_link(const std::vector<double>& bytes, const std::vector<double>& seconds);

}  // namespace mcb::links
