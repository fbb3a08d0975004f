#include "harness/wide_area.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "harness/simulation.hpp"

#include <string_view>

namespace mcb::harness {
namespace {

// Every rank of @p comm on one host (one shared-memory domain)? The same answer on every rank.
bool on_one_host(MPI_Comm comm, int& hosts) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  const int leader = node_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &hosts, 1, MPI_INT, MPI_SUM, comm);
  return hosts == 1;
}

}  // namespace

std::shared_ptr<WideArea> WideArea::create(MPI_Comm comm, const RunOptions& options,
                                           const ClusterMap& map) {
  std::optional<LinkTable> links = LinkTable::from_options(options, map);
  if (!links && !options.relay) return nullptr;
  const std::string option =
      !options.wan_latency && !options.platform.empty() ? "--platform" : "--wan-latency";
  try {
    return create(comm, map, std::move(links), options.relay);
  } catch (const UsageError& e) {
    const std::string text = e.what();
    if (text.rfind("--wan-latency: ", 0) == 0 && option != "--wan-latency") {
      throw UsageError(option + ": " + text.substr(std::string_view("--wan-latency: ").size()));
    }
    throw;
  }
}

std::shared_ptr<WideArea> WideArea::create(MPI_Comm comm, const ClusterMap& map,
                                           std::optional<LinkTable> links, bool relay) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (map.ranks() != size) {
    throw std::invalid_argument("cluster map has " + std::to_string(map.ranks()) +
                                " ranks, communicator " + std::to_string(size));
  }
  if (simulated() && links) {
    // The emulation keeps its link state in host shared memory and waits on the host's clock;
    // in a simulation the platform file's links are the wide area.
    throw UsageError(
        "--wan-latency: link emulation is not for the SMPI flavour: the simulated platform's "
        "links are the wide area (give smpirun a platform, e.g. scripts/smpi-platform.sh)");
  }
  if (simulated() && relay) {
    throw UsageError(
        "--relay: the gateways forward in a progress thread (MPI_THREAD_MULTIPLE), which SMPI's "
        "simulated ranks cannot run; use the real MPI build");
  }
  std::shared_ptr<WideArea> wide(new WideArea(map, size));
  if (links) {
    int hosts = 0;
    if (!on_one_host(comm, hosts)) {
      throw UsageError(
          "--wan-latency: link emulation needs every rank on one host (ranks of "
          "different clusters share the emulated links' state); this run spans " +
          std::to_string(hosts) + " hosts");
    }
    wide->clock_ = std::make_unique<LinkClock>(comm, std::move(*links));
  }
  if (relay) {
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_MULTIPLE) {
      throw UsageError(
          "--relay: the gateways forward in a progress thread, which needs MPI "
          "started with MPI_THREAD_MULTIPLE, and MPI granted less");
    }
    wide->relay_ = std::make_unique<RelayService>(comm, map, wide->clock_.get());
  }
  return wide;
}

nlohmann::json WideArea::wan_json() const {
  if (!clock_) return nullptr;
  return clock_->links().to_json(map_);
}

nlohmann::json WideArea::relay_json() const {
  if (!relay_) return nullptr;
  return {{"gateways", relay_->gateways()},
          {"hops", "sender -> gateway -> gateway -> receiver"},
          {"forwarding", "progress thread on each gateway rank"},
          {"poll_interval", RelayService::kPollInterval * 1e-9}};
}

void WideArea::finish() {
  if (relay_) relay_->finish();
}

std::string system_label(const RunOptions& options, const WideArea* wide_area) {
  if (!options.system.empty()) return options.system;
  if (simulated()) return "smpi-" + simulated_platform();
  std::string label = "local";
  if (wide_area != nullptr && wide_area->emulated()) {
    label = "emulated-" + wide_area->clock()->links().label();
  }
  if (wide_area != nullptr && wide_area->relays()) label += "-relay";
  return label;
}

bool argv_asks_for_relay(int argc, const char* const* argv) {
  return cli::switch_requested(argc, argv, "relay");
}

}  // namespace mcb::harness
