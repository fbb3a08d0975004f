#pragma once
/// @file
/// @brief The wide area between the clusters of a run: emulated links (when the clusters share
/// one host) and the gateway relay, set up once per run from the shared options and handed to
/// every InstrumentedComm that should use them.
///
///     auto wide = harness::WideArea::create(world, options.run, map);   // collective
///     harness::InstrumentedComm comm(world, map, channels, true, wide);
///     ... record["config"]["wan"] = wide ? wide->wan_json() : nullptr;
///
/// Without --wan-latency/--wan-bandwidth/--platform/--relay, create() returns nullptr and
/// InstrumentedComm takes its plain MPI path: nothing is added to any message.

#include "harness/cluster_map.hpp"
#include "harness/link_clock.hpp"
#include "harness/relay.hpp"
#include "harness/run_options.hpp"
#include "harness/wan_links.hpp"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

namespace mcb::harness {

class WideArea {
 public:
  /// @brief What the options ask for, or nullptr for nothing. Collective over @p comm.
  /// @throws mcb::UsageError naming the option (or platform file line): bad links, emulation
  /// over several hosts, --relay without thread support.
  static std::shared_ptr<WideArea> create(MPI_Comm comm, const RunOptions& options,
                                          const ClusterMap& map);

  /// @brief Emulates @p links (none: the real links) and/or relays through gateways.
  /// Collective over @p comm. @throws mcb::UsageError as above (naming --wan-latency/--relay).
  static std::shared_ptr<WideArea> create(MPI_Comm comm, const ClusterMap& map,
                                          std::optional<LinkTable> links, bool relay);

  WideArea(const WideArea&) = delete;
  WideArea& operator=(const WideArea&) = delete;

  bool emulated() const { return clock_ != nullptr; }
  bool relays() const { return relay_ != nullptr; }
  /// @brief The emulated links' state (nullptr when the links are real).
  LinkClock* clock() const { return clock_.get(); }
  /// @brief The relay (nullptr when messages go direct).
  RelayService* relay() const { return relay_.get(); }
  const ClusterMap& cluster_map() const { return map_; }
  int size() const { return size_; }

  /// @brief config.wan of a record: the emulated links, or null.
  nlohmann::json wan_json() const;
  /// @brief config.relay of a record: gateways and how they forward, or null.
  nlohmann::json relay_json() const;

  /// @brief Collective: call after the run's last inter-cluster message; stops the relay.
  void finish();

 private:
  WideArea(const ClusterMap& map, int size) : map_(map), size_(size) {}

  ClusterMap map_;
  int size_;
  std::unique_ptr<LinkClock> clock_;
  std::unique_ptr<RelayService> relay_;
};

/// @brief config.system of a run: --system when given, else (SMPI flavour) "smpi-<platform
/// name>", else "local" or
/// "emulated-<bandwidth>-<latency>" (or "emulated-<platform file stem>"), with "-relay"
/// appended when messages go through gateways.
std::string system_label(const RunOptions& options, const WideArea* wide_area);

/// @brief Whether the run asks for the gateway relay (--relay on the command line, or
/// relay = true in its --config file), which needs MPI_THREAD_MULTIPLE from MPI_Init_thread
/// (decided before the options are parsed).
bool argv_asks_for_relay(int argc, const char* const* argv);

}  // namespace mcb::harness
