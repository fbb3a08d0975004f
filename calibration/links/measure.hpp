#pragma once
/// @file
/// @brief OSU-style measurement (as osu_latency and osu_bw do it): per message size and
/// repetition, a barrier, warm-up iterations, a barrier, then timed iterations; min/avg/max over
/// repetitions. Slow points (an emulated wide-area link and megabyte messages) get fewer
/// iterations: as many as fit in --max-time, at least one. Every message carries a known byte
/// pattern that the warm-up iterations check, so a wrong route or a torn message shows.

#include "calibration/links/link_classes.hpp"
#include "harness/comm.hpp"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <functional>
#include <vector>

namespace mcb::links {

struct Stats {
  double min = 0, avg = 0, max = 0;
  static Stats of(const std::vector<double>& values);
  nlohmann::json to_json() const { return {{"min", min}, {"avg", avg}, {"max", max}}; }
  /// @brief Rates in bytes per second as the records write them: in MB/s.
  nlohmann::json rate_json() const;
};

struct MeasureSettings {
  int warmup = 10;       //!< warm-up iterations per repetition (fewer when slow)
  int iterations = 100;  //!< timed iterations per repetition (fewer when slow)
  int repetitions = 5;
  int min_iterations = 1;  //!< timed iterations at least, however slow
  double max_time = 0.2;   //!< seconds the timed iterations of one repetition aim at
  int window = 64;         //!< messages in flight in the bandwidth test
  std::size_t window_bytes = std::size_t{4} << 20;  //!< cap on a window's bytes (fewer messages)
};

/// @brief One iteration of a measured operation on this rank: adds the seconds it measured to
/// the slot(s) it times; @p verify asks it to check the data it received.
using Step = std::function<void(std::vector<double>& seconds, bool verify)>;

/// @brief Runs @p step OSU-style on every rank of @p world. Returns, per slot, one value per
/// repetition: the largest per-rank time of that slot divided by the iterations. Collective.
/// Ranks that take no part in a step wait for the others asleep, not spinning, so on a host
/// with more ranks than cores they leave the processor to the pair being measured.
std::vector<std::vector<double>> measure(MPI_Comm world, int slots, const MeasureSettings& s,
                                         const Step& step);

/// @brief The byte pattern of a message identified by @p seed.
void fill_pattern(unsigned char* data, std::size_t bytes, int seed);
bool has_pattern(const unsigned char* data, std::size_t bytes, int seed);

/// @brief One-way time (half the round trip) between the ranks of @p pair, per size.
/// Collective over comm; @p data_ok turns false when a message arrived wrong.
std::vector<Stats> ping_pong(harness::InstrumentedComm& comm, RankPair pair,
                             const std::vector<std::size_t>& sizes, const MeasureSettings& s,
                             bool& data_ok);

/// @brief Bandwidth (bytes/s) from first to second rank of @p pair with a window of messages in
/// flight, acknowledged by one small message, per size. Collective over comm.
std::vector<Stats> window_bandwidth(harness::InstrumentedComm& comm, RankPair pair,
                                    const std::vector<std::size_t>& sizes, const MeasureSettings& s,
                                    bool& data_ok);

/// @brief Two transfers crossing one link direction at once, against the first alone.
struct SharedLink {
  std::array<RankPair, 2> pairs;
  std::size_t bytes = 0;
  Stats alone;                    //!< bytes/s of the first pair by itself
  std::array<Stats, 2> together;  //!< bytes/s of each pair while both stream
  nlohmann::json to_json() const;
};
SharedLink shared_link(harness::InstrumentedComm& comm, const std::array<RankPair, 2>& pairs,
                       std::size_t bytes, const MeasureSettings& s, bool& data_ok);

}  // namespace mcb::links
