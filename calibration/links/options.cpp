#include "calibration/links/options.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mcb::links {

namespace po = boost::program_options;

namespace {

std::size_t power_of_two(const std::string& word, const std::string& whole) {
  double value = 0;
  try {
    value = parse_bytes(word);
  } catch (const std::invalid_argument& e) {
    throw cli::ValueError("sizes", "--sizes: '" + whole + "': " + e.what());
  }
  const auto bytes = static_cast<std::size_t>(value);
  if (value < 1 || static_cast<double>(bytes) != value || (bytes & (bytes - 1)) != 0) {
    throw cli::ValueError(
        "sizes", "--sizes: '" + whole + "': '" + word + "' is not a power of two of bytes");
  }
  if (bytes > (std::size_t{1} << 30)) {
    throw cli::ValueError("sizes", "--sizes: '" + whole + "': '" + word + "' is above 1GiB");
  }
  return bytes;
}

}  // namespace

std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> sizes;
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    const std::size_t low = power_of_two(text.substr(0, colon), text);
    const std::size_t high = power_of_two(text.substr(colon + 1), text);
    if (low > high)
      throw cli::ValueError("sizes", "--sizes: '" + text + "': the range runs backwards");
    for (std::size_t n = low; n <= high; n *= 2) sizes.push_back(n);
    return sizes;
  }
  std::stringstream words(text);
  std::set<std::size_t> seen;
  for (std::string word; std::getline(words, word, ',');) {
    if (word.empty()) throw cli::ValueError("sizes", "--sizes: '" + text + "': an empty entry");
    const std::size_t bytes = power_of_two(word, text);
    if (!seen.insert(bytes).second) {
      throw cli::ValueError("sizes", "--sizes: '" + text + "': '" + word + "' appears twice");
    }
    sizes.push_back(bytes);
  }
  if (sizes.empty()) throw cli::ValueError("sizes", "--sizes: '" + text + "': no size");
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

bool parse_options(int argc, const char* const* argv, bool is_root, LinksConfig& config) {
  LinksOptions& o = config.options;
  po::options_description desc("mcb-links: latency and bandwidth of every link class of the run");
  // One option per line, as --help prints them.
  // clang-format off
  desc.add_options()
      ("sizes", po::value(&o.sizes)->default_value(o.sizes)->value_name("MIN:MAX|LIST"),
       "message sizes: every power of two from MIN to MAX, or a comma-separated list of powers "
       "of two (units B, KiB, MiB)")
      ("warmup", po::value(&o.warmup)->default_value(o.warmup)->value_name("K"),
       "warm-up iterations per point and repetition (fewer when an iteration is slow)")
      ("iterations", po::value(&o.iterations)->default_value(o.iterations)->value_name("K"),
       "timed iterations per point and repetition (as many as fit in --max-time, at least 1)")
      ("repetitions", po::value(&o.repetitions)->default_value(o.repetitions)->value_name("R"),
       "repetitions per point; min/avg/max are over these")
      ("max-time", po::value(&o.max_time)->default_value(o.max_time)->value_name("TIME"),
       "time the timed iterations of one repetition aim at")
      ("window", po::value(&o.window)->default_value(o.window)->value_name("W"),
       "messages in flight in the bandwidth test")
      ("window-bytes",
       po::value(&o.window_bytes)->default_value(o.window_bytes)->value_name("SIZE"),
       "at most this many bytes in flight in the bandwidth test (fewer messages for big sizes)");
  // clang-format on
  harness::add_run_options(desc, o.run);
  const auto parsed = cli::parse(argc, argv, desc, "mpirun -np P mcb-links [options]   (P >= 2)");
  if (parsed.help_printed) return false;

  harness::check_run_options(o.run, parsed.vm, is_root);
  cli::require_positive("iterations", o.iterations);
  cli::require_positive("repetitions", o.repetitions);
  cli::require_positive("window", o.window);
  cli::require_non_negative("warmup", o.warmup);
  config.sizes = parse_sizes(o.sizes);
  MeasureSettings& s = config.settings;
  s.warmup = o.warmup;
  s.iterations = o.iterations;
  s.repetitions = o.repetitions;
  s.window = o.window;
  s.max_time = o.max_time.seconds;
  if (!(s.max_time > 0) || !std::isfinite(s.max_time)) {
    throw cli::ValueError("max-time",
                          "--max-time: '" + o.max_time.text + "' must be positive and finite");
  }
  try {
    const double bytes = parse_bytes(o.window_bytes);
    if (!(bytes >= 1))
      throw std::invalid_argument("'" + o.window_bytes + "' must be at least 1 byte");
    // Past this no window fits in memory, and a cast past size_t's range is undefined.
    if (bytes > 1e12) throw std::invalid_argument("'" + o.window_bytes + "' is more than 1 TB");
    s.window_bytes = static_cast<std::size_t>(bytes);
  } catch (const std::invalid_argument& e) {
    throw cli::ValueError("window-bytes", std::string("--window-bytes: ") + e.what());
  }
  return true;
}

void check_ranks(int ranks) {
  if (ranks < 2) throw UsageError("mcb-links needs at least 2 ranks (mpirun -np 2)");
}

harness::ClusterMap default_cluster_map(int ranks, int clusters) {
  try {
    return harness::ClusterMap::blocks(ranks, clusters);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--clusters: '" + std::to_string(clusters) + "': " + e.what());
  }
}

cli::RunShape check_options(int argc, const char* const* argv, int ranks) {
  if (ranks <= 0) {
    throw cli::ValueError("ranks", "--ranks: missing; mcb-links needs the process count");
  }
  LinksConfig config;
  if (!parse_options(argc, argv, true, config)) return {};
  check_ranks(ranks);
  const int clusters = harness::check_clusters(
      config.options.run, ranks, [&](int c) { return default_cluster_map(ranks, c); });
  return {ranks, clusters};
}

}  // namespace mcb::links
