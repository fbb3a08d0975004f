#pragma once
/// @file
/// @brief mcb-synth's options: one struct, defaults here, checked at parse time.

#include "common/check.hpp"
#include "harness/cluster_map.hpp"
#include "harness/grid.hpp"
#include "harness/run_options.hpp"

#include <boost/program_options.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace mcb::synth {

/// @brief --pattern: what every iteration communicates after its computation.
enum class Pattern { nearest, ring, all_to_all, master_worker, allreduce };

/// @brief The option spellings: "nearest", "ring", "all-to-all", "master-worker", "allreduce".
const char* name_of(Pattern pattern);
// Typed at parse time (cli::validate_choice); operator<< prints the spelling in --help.
void validate(boost::any& v, const std::vector<std::string>& values, Pattern*, int);
std::ostream& operator<<(std::ostream& os, Pattern pattern);

struct SynthOptions {
  Pattern pattern = Pattern::nearest;  //!< --pattern
  long iterations = 100;               //!< --iterations K
  std::string message_size = "64KiB";  //!< --message-size: bytes of each message
  double flops = 1e6;                  //!< --flops: dense-block flops per rank and iteration
  double bytes = 1e6;                  //!< --bytes: triad bytes per rank and iteration
  int block = 48;                      //!< --block N: side of the dense block
  long array = 1L << 18;               //!< --array N: elements of each triad array
  harness::RunOptions run;
};

/// @brief What the options mean for this run, after checks.
struct SynthConfig {
  SynthOptions options;
  std::uint64_t message_bytes = 0;  //!< --message-size in bytes (a multiple of 8)
  long products = 0;                //!< dense-block products per iteration (from --flops)
  long triad_elements = 0;          //!< triad elements per iteration (from --bytes)
  int ranks = 0;
  harness::ProcessGrid grid{1, 1};  //!< the 2-D grid of --pattern nearest (squarest, h >= v)
};

/// @brief Parses and checks argv for a run on @p ranks ranks. Returns false after --help.
/// @throws mcb::UsageError naming the option and value.
bool parse_options(int argc, const char* const* argv, int ranks, bool is_root, SynthConfig& config);

/// @brief The --check mode: parse_options for @p ranks (needed: the rank count is not an option)
/// and the run's clusters, without MPI.
cli::RunShape check_options(int argc, const char* const* argv, int ranks);

/// @brief The ranks split over @p clusters in consecutive blocks as equal as they come (rank r in
/// cluster r * clusters / ranks), so 1 to 4 clusters run at the same total ranks.
/// @throws mcb::UsageError when there are more clusters than ranks.
harness::ClusterMap default_cluster_map(int ranks, int clusters);

/// @brief The squarest h x v grid of @p ranks with h >= v (column-major, as harness/grid.hpp).
harness::ProcessGrid squarest_grid(int ranks);

}  // namespace mcb::synth
