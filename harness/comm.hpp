#pragma once
/// @file
/// @brief Point-to-point communication that keeps books: per channel (a direction of the border
/// exchange, or a phase of an application), time, messages and bytes, each split into traffic
/// inside the rank's cluster (intra) and traffic to other clusters (inter).

#include "harness/cluster_map.hpp"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcb::harness {

/// @brief Whether a peer is in the rank's own cluster.
enum class PeerClass { intra = 0, inter = 1 };

/// @brief "No peer" for sendrecv steps at the edge of a grid.
inline constexpr int kNoPeer = -1;

/// @brief Messages and bytes of one class.
struct Traffic {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

/// @brief The books of one channel on one rank.
struct ChannelStats {
  std::array<double, 2> time{};  //!< seconds, indexed by PeerClass of the step (see sendrecv)
  std::array<Traffic, 2> sent{};
  std::array<Traffic, 2> received{};

  double total_time() const { return time[0] + time[1]; }
  std::uint64_t total_bytes() const {
    return sent[0].bytes + sent[1].bytes + received[0].bytes + received[1].bytes;
  }
};

/// @brief A communicator with per-channel, per-class accounting.
class InstrumentedComm {
 public:
  /// @param comm the communicator (its ranks are the map's ranks)
  /// @param map which cluster each rank is in
  /// @param channels names of the channels, e.g. {"top","bottom","left","right"}
  /// @param instrumented false turns all timing and counting off (to measure its cost)
  InstrumentedComm(MPI_Comm comm, ClusterMap map, std::vector<std::string> channels,
                   bool instrumented = true);

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm mpi() const { return comm_; }
  const ClusterMap& cluster_map() const { return map_; }
  int cluster() const { return map_.cluster_of(rank_); }
  bool instrumented() const { return instrumented_; }

  /// @brief Index of a channel by name. @throws std::out_of_range for unknown names.
  int channel(std::string_view name) const;
  const std::vector<std::string>& channel_names() const { return names_; }

  PeerClass peer_class(int peer) const {
    return map_.same_cluster(rank_, peer) ? PeerClass::intra : PeerClass::inter;
  }

  /// @brief One step of a shift: send @p send_bytes to @p dest and receive up to @p recv_bytes
  /// from @p src (either may be kNoPeer). The step's time counts for the class of @p src (the
  /// receive is what the step waits for), or of @p dest when there is no source.
  void sendrecv(int channel, const void* send, std::size_t send_bytes, int dest, void* recv,
                std::size_t recv_bytes, int src, int tag);

  /// @brief Blocking send and receive, accounted to @p channel.
  void send(int channel, const void* buffer, std::size_t bytes, int dest, int tag);
  void recv(int channel, void* buffer, std::size_t bytes, int src, int tag);

  /// @brief A set of nonblocking operations completed together; its time counts as inter when
  /// any of its peers is in another cluster.
  class Batch {
   public:
    void clear();

   private:
    friend class InstrumentedComm;
    std::vector<MPI_Request> requests_;
    std::vector<int> recv_peers_;
    std::vector<std::size_t> recv_slots_;  // index into requests_ of each receive
    bool any_inter_ = false;
  };
  void post_send(int channel, Batch& batch, const void* buffer, std::size_t bytes, int dest,
                 int tag);
  void post_recv(int channel, Batch& batch, void* buffer, std::size_t bytes, int src, int tag);
  /// @brief Waits for every operation of the batch and books the wait and received bytes.
  void complete(int channel, Batch& batch);

  /// @brief Adds @p seconds spent in @p channel outside these calls (e.g. a collective).
  void add_time(int channel, PeerClass cls, double seconds);

  const ChannelStats& stats(int channel) const { return stats_.at(static_cast<size_t>(channel)); }
  /// @brief Sum of all channels' times.
  double total_time() const;
  /// @brief {"<channel>": {"time": {"intra": s, "inter": s}, "sent": {"intra": {"messages": n,
  /// "bytes": b}, "inter": {...}}, "received": {...}}, ...}
  nlohmann::json stats_json() const;
  void reset_stats();

 private:
  void count_send(int channel, int dest, std::size_t bytes);
  void count_recv(int channel, int src, const MPI_Status& status);

  MPI_Comm comm_;
  ClusterMap map_;
  std::vector<std::string> names_;
  std::vector<ChannelStats> stats_;
  bool instrumented_;
  int rank_ = 0;
  int size_ = 0;
};

}  // namespace mcb::harness
