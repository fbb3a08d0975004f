#pragma once
/// @file
/// @brief The vocabulary of the simulator: time, request types (001 section II) and a job's
/// request for processors.

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcb::sim {

/// Simulated time in seconds.
using Time = double;
inline constexpr Time kNever = std::numeric_limits<Time>::infinity();

/// Most clusters a system may have (a job's usable clusters are a 64-bit mask).
inline constexpr int kMaxClusters = 64;
using ClusterMask = std::uint64_t;
inline constexpr ClusterMask kAllClusters = ~ClusterMask{0};

/// @brief Processors per component or per cluster, with room for four inline: a job's sizes and
/// allocations need no heap block of their own on machines of up to four clusters (a heap block
/// per job slot cost a malloc on its first use and a free at the end of the run).
/// Boost 1.74's iterators are not contiguous ones to the standard library, so the conversion to
/// the std::span its readers take is spelled out.
class Counts : public boost::container::small_vector<int, 4> {
 public:
  using small_vector::small_vector;
  Counts& operator=(std::initializer_list<int> values) {
    assign(values);
    return *this;
  }
  operator std::span<const int>() const { return {data(), size()}; }
  operator std::span<int>() { return {data(), size()}; }
};

/// @brief How a job states its processor needs (001 section II; the DAS-2 paper's unordered).
enum class RequestType : std::uint8_t {
  kFixed,      //!< component sizes and their clusters given
  kNonFixed,   //!< component sizes given; clusters chosen, several components may share one
  kUnordered,  //!< component sizes given; distinct clusters, placed in decreasing size
  kFlexible,   //!< only the total given; the scheduler splits it
  kMoldable,   //!< requested and smallest size; runs whole on one cluster, shrunk if need be
};

std::string_view to_string(RequestType type);
/// @throws std::invalid_argument for an unknown name.
RequestType parse_request_type(std::string_view name);

/// @brief A job's request. Component sizes are kept in decreasing order except for fixed
/// requests, whose sizes pair with @ref clusters.
struct Request {
  RequestType type = RequestType::kUnordered;
  Counts sizes;               //!< component sizes (flexible: one entry, the total)
  std::vector<int> clusters;  //!< fixed requests: the cluster of each component
  int total = 0;              //!< sum of the sizes
  int max_component = 0;      //!< flexible: largest component allowed (0: no limit)
  int min_component = 1;      //!< flexible: smallest component allowed
  int max_components = 0;     //!< flexible: most components (0: no limit)
  int min_size = 0;           //!< moldable: smallest size accepted
  int app = 0;       //!< the job's application (set at admission): its model under --job-model
  double power = 0;  //!< moldable: required computing power (set at admission, 001 V)
  /// Bit k set: a placement over k clusters can be priced (flexible requests only use these).
  std::uint64_t allowed_counts = ~std::uint64_t{0};

  /// Sets what a workload's job may leave out (clusters, bounds, power, allowed counts) to the
  /// defaults above, keeping the vectors' room: sources fill one Request job after job.
  void clear_bounds() {
    clusters.clear();
    min_component = 1;
    max_component = 0;
    max_components = 0;
    min_size = 0;
    power = 0;
    allowed_counts = ~std::uint64_t{0};
  }
};

/// Number of set bits.
inline int popcount(std::uint64_t x) { return __builtin_popcountll(x); }

}  // namespace mcb::sim
