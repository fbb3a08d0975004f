#pragma once
/// @file
/// @brief How one site (cluster) is chosen for a job that runs whole on one cluster: by idle
/// processors (the placement rule's own choice), or by free computing power, the number of
/// free processors times the speed of one processor (001 section V); and the adaptive
/// allocation of moldable requests, which shrinks a job to fit one site at once.

#include "simulator/types.hpp"

#include <span>
#include <string>

namespace mcb::sim {

/// @brief The criterion for choosing one site.
enum class SiteSelection : std::uint8_t {
  kIdle,   //!< the placement rule's choice by idle processors (Worst Fit: the most idle)
  kPower,  //!< the most free computing power (idle processors x speed)
};

/// @brief "idle" or "power". @throws UsageError naming --site-select.
SiteSelection parse_site_selection(const std::string& text);
std::string_view to_string(SiteSelection selection);

/// @brief Speed of cluster @p c (1 where @p speeds does not say).
inline double speed_of(std::span<const double> speeds, size_t c) {
  return c < speeds.size() ? speeds[c] : 1.0;
}

/// @brief Among the clusters with at least @p size of @p free processors (and, with
/// @p distinct, not used yet by @p taken), the one with the most free computing power
/// free x speed; ties to the lower index. -1 if none holds @p size.
int site_by_power(int size, std::span<const int> free, std::span<const int> taken, bool distinct,
                  std::span<const double> speeds);

/// @brief Adaptive processor allocation of a moldable request on @p avail (001 V). A job runs
/// on one site, never on fewer processors than its smallest size.
/// - By idle processors: the most idle site that holds the smallest size; the job takes its
///   requested size there, or all the site's idle processors if fewer.
/// - By computing power: a site satisfies the job when it can give the job's required power
///   (requested processors x home speed) with at most the requested processors. Among the
///   satisfying sites the one with the most free computing power is taken, and the job gets
///   the fewest processors that give its required power (fewer than requested on a faster
///   site). When no site satisfies it, the site with the most free computing power is taken
///   and the job shrinks to that site's idle processors (at most the requested size).
/// Writes the processors per cluster to @p out; false (the job waits) when no site has the
/// smallest size idle.
bool place_moldable(const Request& req, std::span<const int> avail, std::span<const double> speeds,
                    SiteSelection selection, std::span<int> out);

}  // namespace mcb::sim
