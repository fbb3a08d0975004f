#pragma once
/// @file
/// @brief Point-to-point communication that keeps books: per channel (a direction of the border
/// exchange, or a phase of an application), time, messages and bytes, each split into traffic
/// inside the rank's cluster (intra) and traffic to other clusters (inter). Given a WideArea,
/// messages between clusters take the emulated links and/or the gateway relay; every
/// point-to-point path (sendrecv, send/recv, batches) does, and intra-cluster messages never.

#include "harness/cluster_map.hpp"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcb::harness {

class WideArea;

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
  /// @brief As above; messages between clusters go over @p wide_area (see harness/wide_area.hpp):
  /// emulated links delay them to at least latency + bytes / bandwidth, sharing each link, and
  /// the relay routes them through the gateways. nullptr: plain MPI, as the constructor above.
  /// @p comm must be the communicator @p wide_area was created on (or a congruent one).
  InstrumentedComm(MPI_Comm comm, ClusterMap map, std::vector<std::string> channels,
                   bool instrumented, std::shared_ptr<WideArea> wide_area);

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm mpi() const { return comm_; }
  const ClusterMap& cluster_map() const { return map_; }
  int cluster() const { return map_.cluster_of(rank_); }
  bool instrumented() const { return instrumented_; }
  /// @brief The wide area messages between clusters take (nullptr: plain MPI).
  const WideArea* wide_area() const { return wan_.get(); }
  /// @brief Whether messages between clusters go through the gateways (by default when the
  /// wide area relays); switch off to compare relay and direct routes in one run.
  /// @throws std::logic_error switching on without a relaying wide area.
  void set_relay(bool on);
  bool relays() const { return relay_; }

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
    /// @brief Forgets the operations (and frees persistent ones; see init_send).
    void clear();
    bool persistent() const { return persistent_; }

   private:
    friend class InstrumentedComm;
    bool persistent_ = false;  // persistent requests, kept by complete() for the next start()
    std::vector<std::pair<int, std::size_t>> persistent_sends_;  // dest, bytes: booked per start
    std::vector<MPI_Request> requests_;
    std::vector<int> recv_peers_;
    std::vector<std::size_t> recv_slots_;  // index into requests_ of each receive
    std::vector<MPI_Status> statuses_;     // kept between uses: no allocation per completion
    bool any_inter_ = false;
    // Wide area only, and empty otherwise: an empty list allocates nothing, and a list's
    // elements stay put while MPI reads or writes them.
    bool wide_ = false;               // holds an emulated or relayed message
    std::list<std::int64_t> stamps_;  // arrival times sent and received
    std::vector<std::pair<std::size_t, const std::int64_t*>> arrivals_;  // received: slot, time
    std::list<std::vector<char>> staging_;  // relayed messages with their headers
  };
  void post_send(int channel, Batch& batch, const void* buffer, std::size_t bytes, int dest,
                 int tag);
  void post_recv(int channel, Batch& batch, void* buffer, std::size_t bytes, int src, int tag);
  /// @brief Waits for every operation of the batch and books the wait and received bytes.
  /// A persistent batch keeps its operations for the next start().
  void complete(int channel, Batch& batch);

  /// @brief Persistent operations (MPI_Send_init, MPI_Recv_init) for a batch that carries the
  /// same messages between the same buffers every time: set up once, then start() and
  /// complete() as often as needed, and clear() to free them. They skip the per-message setup
  /// of post_send and post_recv. Plain MPI only.
  /// @throws std::logic_error for a peer in another cluster over a wide area.
  void init_send(Batch& batch, const void* buffer, std::size_t bytes, int dest, int tag);
  void init_recv(Batch& batch, void* buffer, std::size_t bytes, int src, int tag);
  /// @brief Starts every operation of a persistent batch (MPI_Startall) and books its sends.
  void start(int channel, Batch& batch);

  /// @brief Maximum of @p value over all ranks, on every rank; and a barrier. Not booked to
  /// any channel. Without a wide area these are MPI_Allreduce and MPI_Barrier; with one, a
  /// binomial tree of point-to-point messages over the same routes as all other traffic, so a
  /// global reduction pays the emulated links (and the relay) as it would between real clusters.
  double allreduce_max(double value);
  void barrier();

  const ChannelStats& stats(int channel) const { return stats_.at(static_cast<size_t>(channel)); }
  /// @brief Sum of all channels' times.
  double total_time() const;
  /// @brief {"<channel>": {"time": {"intra": s, "inter": s}, "sent": {"intra": {"messages": n,
  /// "bytes": b}, "inter": {...}}, "received": {...}}, ...}
  nlohmann::json stats_json() const;

 private:
  void count_send(int channel, int dest, std::size_t bytes);
  void count_recv(int channel, int src, const MPI_Status& status);

  // The wide-area paths (comm_wide_area.cpp); only taken with a WideArea.
  enum class Route { plain, emulated, relayed };
  Route route(int peer) const;
  void start_send(Batch& batch, const void* buffer, std::size_t bytes, int dest, int tag);
  void start_recv(Batch& batch, void* buffer, std::size_t bytes, int src, int tag);
  static void wait_batch(Batch& batch, MPI_Status* statuses);
  // One unbooked message over the routes (for the tree collectives).
  void routed_send(const void* buffer, std::size_t bytes, int dest, int tag);
  void routed_recv(void* buffer, std::size_t bytes, int src, int tag);
  static void wait_wide(Batch& batch, MPI_Status* statuses);
  void sendrecv_wide(int channel, const void* send, std::size_t send_bytes, int dest, void* recv,
                     std::size_t recv_bytes, int src, int tag);
  void send_wide(int channel, const void* buffer, std::size_t bytes, int dest, int tag);
  void recv_wide(int channel, void* buffer, std::size_t bytes, int src, int tag);

  MPI_Comm comm_;
  ClusterMap map_;
  std::vector<std::string> names_;
  std::vector<ChannelStats> stats_;
  bool instrumented_;
  int rank_ = 0;
  int size_ = 0;
  std::shared_ptr<WideArea> wan_;
  bool relay_ = false;
};

}  // namespace mcb::harness
