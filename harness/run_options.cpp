#include "harness/run_options.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "harness/simulation.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace mcb::harness {

namespace po = boost::program_options;

void add_run_options(po::options_description& desc, RunOptions& o) {
  // Simulated ranks count no hardware events (PAPI would count the simulator's host).
  if (simulated()) o.counters.clear();
  // One option per line, as --help prints them.
  // clang-format off
  desc.add_options()
      ("clusters", po::value(&o.clusters)->default_value(o.clusters)->value_name("C"),
       "number of clusters the ranks are split over (the paper's split by default); with "
       "--cluster-map the map decides, and a different count here is refused")
      ("cluster-map", po::value(&o.cluster_map)->value_name("FILE|env:VAR"),
       "explicit rank-to-cluster map: a file with one cluster label per rank, or env:VAR to "
       "take each rank's cluster label from its environment variable VAR")
      ("output", po::value(&o.output)->default_value(o.output)->value_name("FILE|none"),
       "JSON Lines file the run record is appended to ('none' for no record)")
      ("seed", po::value(&o.seed)->default_value(o.seed)->value_name("S"),
       "random seed (recorded)")
      ("run-id", po::value(&o.run_id)->value_name("ID"),
       "stable run id (campaigns set campaign-index-repetition); generated when absent")
      ("campaign", po::value(&o.campaign)->value_name("NAME"), "campaign name (recorded)")
      ("repetition", po::value(&o.repetition)->default_value(o.repetition)->value_name("R"),
       "repetition number (recorded)")
      ("system", po::value(&o.system)->value_name("LABEL"),
       "system label the calibration groups by (default: local, or the emulated link)")
      ("counters", po::value(&o.counters)->default_value(o.counters)->value_name("LIST"),
       "PAPI events to count, comma-separated; empty for none")
      ("quiet", po::bool_switch(&o.quiet), "print only the verdict line")
      ("wan-latency", po::value<cli::Duration>()->value_name("TIME")
                          ->notifier([&o](const cli::Duration& d) { o.wan_latency = d; }),
       "emulate wide-area links between clusters on this host: one-way latency (e.g. 1ms); "
       "needs --wan-bandwidth")
      ("wan-bandwidth", po::value<cli::Rate>()->value_name("RATE")
                            ->notifier([&o](const cli::Rate& r) { o.wan_bandwidth = r; }),
       "bandwidth of each emulated link direction (e.g. 100Mbit/s), shared by concurrent "
       "transfers; needs --wan-latency")
      ("platform", po::value(&o.platform)->value_name("FILE"),
       "per-cluster-pair links: lines 'CLUSTER CLUSTER LATENCY BANDWIDTH' ('* *' for every "
       "pair not listed); overrides --wan-latency/--wan-bandwidth for the pairs it names")
      ("node-load", po::value<std::string>()->value_name("SPEC")
                        ->notifier([&o](const std::string& text) {
                          try {
                            o.node_load = parse_node_load(text);
                          } catch (const std::invalid_argument& e) {
                            throw cli::ValueError("node-load",
                                                  "--node-load: '" + text + "': " + e.what());
                          }
                        }),
       "background load on every host while the run measures (mcb-nodeload): cpu=P% of every "
       "core, memory=RATE of streaming copy, network=RATE of UDP to the next host, port=N; "
       "comma-separated (e.g. cpu=50%,memory=1GB/s), or none")
      ("relay", po::bool_switch(&o.relay),
       "route inter-cluster messages sender -> gateway -> gateway -> receiver (the lowest rank "
       "of each cluster is its gateway; MPI then starts with thread support)");
  // clang-format on
}

void check_run_options(RunOptions& o, const po::variables_map& vm, bool is_root) {
  o.clusters_given = vm.count("clusters") > 0 && !vm["clusters"].defaulted();
  cli::require_positive("clusters", o.clusters);
  cli::require_positive("repetition", o.repetition);
  cli::require_non_negative("seed", static_cast<double>(o.seed));
  if (is_root && writes_records(o)) check_writable_file("output", o.output);
  if (simulated() && !o.counters.empty()) {
    throw UsageError("--counters: '" + o.counters +
                     "': the SMPI flavour counts no hardware events (they would be the "
                     "simulator's host's, not the simulated node's); give --counters ''");
  }
  if (simulated() && o.cluster_map.rfind("env:", 0) == 0) {
    throw UsageError("--cluster-map: '" + o.cluster_map +
                     "': simulated ranks share one environment; give a map file");
  }
  if (o.wan_latency.has_value() != o.wan_bandwidth.has_value()) {
    throw UsageError(
        o.wan_latency
            ? "--wan-latency: '" + o.wan_latency->text + "' given without --wan-bandwidth"
            : "--wan-bandwidth: '" + o.wan_bandwidth->text + "' given without --wan-latency");
  }
}

namespace {

// Reads the map named by --cluster-map: a file, or env:VAR for each rank's own variable.
ClusterMap read_cluster_map(MPI_Comm comm, const std::string& source, int size) {
  if (source.rfind("env:", 0) == 0) {
    const std::string var = source.substr(4);
    const char* value = var.empty() ? nullptr : std::getenv(var.c_str());
    std::string label = value ? value : "";
    // Gather every rank's label (fixed width keeps it to one collective).
    constexpr int kWidth = 128;
    std::vector<char> mine(kWidth, '\0');
    label.copy(mine.data(), kWidth - 1);
    std::vector<char> all(static_cast<size_t>(kWidth) * static_cast<size_t>(size));
    MPI_Allgather(mine.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, comm);
    std::vector<std::string> labels;
    for (int r = 0; r < size; ++r) {
      labels.emplace_back(all.data() + static_cast<size_t>(r) * kWidth);
      if (labels.back().empty()) {
        throw UsageError("--cluster-map: '" + source + "': variable " +
                         (var.empty() ? std::string("name missing")
                                      : var + " is not set on rank " + std::to_string(r)));
      }
    }
    return ClusterMap::from_labels(labels);
  }
  return ClusterMap::from_file(source, size);
}

// --clusters against the map of --cluster-map.
void check_agreement(const RunOptions& o, const ClusterMap& map) {
  // Only a count the user chose can contradict the map (--clusters 1 included).
  if (o.clusters_given && o.clusters != map.clusters()) {
    const int n = map.clusters();
    throw UsageError("--clusters: '" + std::to_string(o.clusters) +
                     "' disagrees with --cluster-map '" + o.cluster_map + "', which has " +
                     std::to_string(n) + (n == 1 ? " cluster" : " clusters"));
  }
}

}  // namespace

ClusterMap resolve_cluster_map(MPI_Comm comm, const RunOptions& o,
                               const std::function<ClusterMap(int)>& default_map) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (o.cluster_map.empty()) return default_map(o.clusters);
  ClusterMap map = read_cluster_map(comm, o.cluster_map, size);
  check_agreement(o, map);
  return map;
}

int check_clusters(const RunOptions& o, int ranks,
                   const std::function<ClusterMap(int)>& default_map) {
  if (o.cluster_map.empty()) return default_map(o.clusters).clusters();
  if (o.cluster_map.rfind("env:", 0) == 0) return o.clusters;
  const ClusterMap map = ClusterMap::from_file(o.cluster_map, ranks);
  check_agreement(o, map);
  return map.clusters();
}

std::string default_run_id(const std::string& app) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
  return app + "-" + stamp + "-" + std::to_string(::getpid());
}

}  // namespace mcb::harness
