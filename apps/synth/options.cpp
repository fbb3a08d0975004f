#include "apps/synth/options.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

namespace mcb::synth {

namespace po = boost::program_options;

namespace {

// A message is a whole number of 64-bit words (the checksum's unit); one above this would not
// fit MPI's int count of bytes with room for the all-to-all's buffers.
constexpr double kLargestMessage = 256.0 * 1024 * 1024;
constexpr int kLargestBlock = 2048;
constexpr double kLargestBytes = 1e15;  // per iteration; ids and counts stay exact in doubles

std::string text_of(double value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

std::uint64_t message_bytes(const std::string& text) {
  double bytes = 0;
  try {
    bytes = parse_bytes(text);
  } catch (const std::invalid_argument& e) {
    throw cli::ValueError("message-size", "--message-size: '" + text + "' " + e.what());
  }
  if (!(bytes >= 8) || bytes > kLargestMessage || std::fmod(bytes, 8.0) != 0) {
    throw cli::ValueError(
        "message-size",
        "--message-size: '" + text + "' must be a multiple of 8 bytes from 8 B to 256 MiB");
  }
  return static_cast<std::uint64_t>(bytes);
}

// Refuses triad arrays that need more memory than this machine has (the dense blocks are small).
void check_memory(const SynthOptions& o, long triad_elements) {
  const long page = ::sysconf(_SC_PAGESIZE), pages = ::sysconf(_SC_PHYS_PAGES);
  if (page <= 0 || pages <= 0) return;
  const double machine = static_cast<double>(page) * static_cast<double>(pages);
  // The arrays hold no more than one iteration's elements.
  const double need = 3.0 * sizeof(double) * static_cast<double>(std::min(o.array, triad_elements));
  if (need > machine) {
    std::ostringstream os;
    os << "--array: '" << o.array << "' needs " << need / 1e9
       << " GB per process for the triad's three arrays; this machine has " << machine / 1e9
       << " GB";
    throw UsageError(os.str());
  }
}

void check_work(const SynthOptions& o) {
  cli::require_positive("iterations", o.iterations);
  cli::require_at_most("iterations", static_cast<double>(o.iterations), cli::kMaxCount);
  cli::require_non_negative("flops", o.flops);
  cli::require_at_most("flops", o.flops, kLargestBytes);
  cli::require_non_negative("bytes", o.bytes);
  cli::require_at_most("bytes", o.bytes, kLargestBytes);
  cli::require_positive("block", o.block);
  cli::require_at_most("block", o.block, kLargestBlock);
  cli::require_positive("array", o.array);
  cli::require_at_most("array", static_cast<double>(o.array), cli::kMaxCount);
}

}  // namespace

const char* name_of(Pattern pattern) {
  switch (pattern) {
    case Pattern::nearest:
      return "nearest";
    case Pattern::ring:
      return "ring";
    case Pattern::all_to_all:
      return "all-to-all";
    case Pattern::master_worker:
      return "master-worker";
    case Pattern::allreduce:
      return "allreduce";
  }
  return "?";
}

void validate(boost::any& v, const std::vector<std::string>& values, Pattern*, int) {
  cli::validate_choice(v, values,
                       {Pattern::nearest, Pattern::ring, Pattern::all_to_all,
                        Pattern::master_worker, Pattern::allreduce},
                       [](Pattern p) { return name_of(p); });
}

std::ostream& operator<<(std::ostream& os, Pattern pattern) { return os << name_of(pattern); }

harness::ProcessGrid squarest_grid(int ranks) {
  int v = static_cast<int>(std::sqrt(static_cast<double>(ranks)));
  while (v > 1 && ranks % v != 0) --v;
  return {ranks / v, v};
}

harness::ClusterMap default_cluster_map(int ranks, int clusters) {
  if (clusters > ranks) {
    throw UsageError("--clusters: '" + std::to_string(clusters) + "' is more than the " +
                     std::to_string(ranks) + " processes of this run");
  }
  std::vector<int> of(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    of[static_cast<std::size_t>(r)] =
        static_cast<int>(static_cast<long long>(r) * clusters / ranks);
  }
  return harness::ClusterMap(std::move(of));
}

bool parse_options(int argc, const char* const* argv, int ranks, bool is_root,
                   SynthConfig& config) {
  SynthOptions& o = config.options;
  po::options_description desc(
      "mcb-synth: synthetic bulk-synchronous application (computation, then communication)");
  // One option per line, as --help prints them.
  // clang-format off
  desc.add_options()
      ("pattern", po::value(&o.pattern)->default_value(o.pattern)
           ->value_name("nearest|ring|all-to-all|master-worker|allreduce"),
       "communication of every iteration: nearest (2-D grid, four neighbours), ring (to the "
       "next rank), all-to-all, master-worker (rank 0 sends a task to every rank and takes its "
       "result back), allreduce (a sum over every rank, reduced and broadcast along a tree)")
      ("iterations", po::value(&o.iterations)->default_value(o.iterations)->value_name("K"),
       "iterations (computation, then communication)")
      ("message-size", po::value(&o.message_size)->default_value(o.message_size)
           ->value_name("BYTES"),
       "bytes of every message (a multiple of 8: 8B, 4KiB, 1MB)")
      ("flops", po::value(&o.flops)->default_value(o.flops)->value_name("F"),
       "floating-point operations per rank and iteration, as dense block products "
       "(2 N^3 each; rounded up to whole products)")
      ("bytes", po::value(&o.bytes)->default_value(o.bytes)->value_name("B"),
       "memory traffic per rank and iteration, as a streaming triad a = b + s c "
       "(24 bytes per element)")
      ("block", po::value(&o.block)->default_value(o.block)->value_name("N"),
       "side of the dense block")
      ("array", po::value(&o.array)->default_value(o.array)->value_name("N"),
       "elements of each of the triad's three arrays (the triad cycles over them)");
  // clang-format on
  harness::add_run_options(desc, o.run);

  const auto parsed = cli::parse(argc, argv, desc, "mpirun -np P mcb-synth [options]");
  if (parsed.help_printed) return false;

  harness::check_run_options(o.run, parsed.vm, is_root);
  check_work(o);
  config.message_bytes = message_bytes(o.message_size);
  const double per_product = 2.0 * o.block * o.block * o.block;
  const double products = std::ceil(o.flops / per_product);
  if (products > cli::kMaxCount) {
    throw cli::ValueError("flops", "--flops: '" + text_of(o.flops) + "' needs " +
                                       text_of(products) + " products of --block " +
                                       std::to_string(o.block) + ", above the cap of 1e9");
  }
  config.products = static_cast<long>(products);
  config.triad_elements = static_cast<long>(std::floor(o.bytes / 24.0));
  check_memory(o, config.triad_elements);
  if (ranks <= 0) {
    throw cli::ValueError("ranks", "--ranks: missing; mcb-synth needs the process count P");
  }
  config.ranks = ranks;
  config.grid = squarest_grid(ranks);
  if (o.run.cluster_map.empty()) default_cluster_map(ranks, o.run.clusters);
  return true;
}

cli::RunShape check_options(int argc, const char* const* argv, int ranks) {
  SynthConfig config;
  if (!parse_options(argc, argv, ranks, true, config)) return {};
  const int clusters = harness::check_clusters(
      config.options.run, ranks, [&](int c) { return default_cluster_map(ranks, c); });
  return {ranks, clusters};
}

}  // namespace mcb::synth
