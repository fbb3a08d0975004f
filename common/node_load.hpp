#pragma once
/// @file
/// @brief The background load a run puts on its nodes (seed 002's non-dedicated clusters), as
/// written on the command line and in records: "cpu=50%,memory=2GB/s,network=10MB/s" or "none".
/// mcb-nodeload generates it; the measurement programs take it as --node-load and record it.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace mcb {

/// @brief What each node of a run is loaded with. Zero means no load of that kind.
struct NodeLoadSpec {
  double cpu_share = 0;     //!< share of every core kept busy, in [0, 1)
  double memory_rate = 0;   //!< bytes per second streamed through a buffer larger than caches
  double network_rate = 0;  //!< bytes per second sent to the next host of the run (UDP)
  int port = 47990;         //!< UDP port every node's generator receives on

  bool any() const { return cpu_share > 0 || memory_rate > 0 || network_rate > 0; }
};

/// @brief Parses "none" or comma-separated kind=value pairs: cpu=P% (0 <= P < 100), memory=RATE,
/// network=RATE (rates as common/units.hpp reads them, "2GB/s", "100Mbit/s"), port=N.
/// @throws std::invalid_argument naming the bad part.
NodeLoadSpec parse_node_load(std::string_view text);

/// @brief The canonical text of @p spec ("none" when it loads nothing; rates in bit/s with six
/// significant digits, as links are written), which parse_node_load reads back.
std::string format_node_load(const NodeLoadSpec& spec);

/// @brief The spec as a record's object: {"cpu_share", "memory_bytes_per_second",
/// "network_bytes_per_second", "port", "text"}.
nlohmann::json node_load_json(const NodeLoadSpec& spec);

/// @brief What one node's generator achieved (mcb-nodeload's summary, schema "mcb-nodeload/1"),
/// which the run's record carries beside the spec it asked for.
struct NodeLoadAchieved {
  std::string host;
  double seconds = 0;           //!< how long the load ran
  int cpu_threads = 0;          //!< one per core
  double cpu_seconds = 0;       //!< CPU time the threads used
  double memory_bytes = 0;      //!< bytes read and written by the streaming copy
  std::string peer;             //!< where the network load went ("" without one)
  double sent_bytes = 0;        //!< UDP payload sent to the peer
  double received_bytes = 0;    //!< UDP payload received from the run's other generators

  /// @brief The busy share of the node's cores that the CPU load reached.
  double cpu_share() const;
};

/// @brief The summary as mcb-nodeload writes it, the spec included.
nlohmann::json node_load_summary(const NodeLoadSpec& spec, const NodeLoadAchieved& achieved);

/// @brief Reads a summary back. @throws std::invalid_argument naming the missing field.
NodeLoadAchieved read_node_load_summary(const nlohmann::json& summary);

}  // namespace mcb
