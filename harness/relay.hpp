#pragma once
/// @file
/// @brief The 3-hop message relay of the SGR paper (004, section 4.3): an inter-cluster message
/// goes sender -> gateway of the sender's cluster -> gateway of the receiver's cluster ->
/// receiver, as on sites whose compute nodes have no public address. The gateway of a cluster is
/// its lowest rank, which also computes.
///
/// Forwarding runs in a progress thread on each gateway rank (MPI_THREAD_MULTIPLE). Forwarding
/// inside the harness's own communication calls was the alternative and is unsafe: a gateway
/// that has finished its own exchange and sits in a collective (the global error, a barrier)
/// would never forward the messages its cluster still waits for, and the run would hang. The
/// thread sleeps between polls, so on an oversubscribed host it takes little from the
/// computation; each hop costs at most one poll interval of extra latency.
///
/// With emulated links the middle hop (gateway to gateway) is the one that crosses the wide
/// area: the forwarding gateway books the link, and the receiving gateway hands the message on
/// when it has arrived. Message order between one sender and one receiver is kept.

#include "harness/cluster_map.hpp"
#include "harness/link_clock.hpp"

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace mcb::harness {

class RelayService {
 public:
  /// @brief An idle gateway looks for work this often (ns); the most a hop waits for it.
  static constexpr std::int64_t kPollInterval = 20'000;

  /// @brief Collective over @p comm. @p clock books the gateway-to-gateway hop on emulated
  /// links (nullptr: no emulation). Starts the forwarding thread on gateway ranks.
  /// @throws std::runtime_error when MPI was not started with MPI_THREAD_MULTIPLE.
  RelayService(MPI_Comm comm, const ClusterMap& map, LinkClock* clock);
  /// @brief Stops the forwarding thread (local; call finish() first in a correct program).
  ~RelayService();
  RelayService(const RelayService&) = delete;
  RelayService& operator=(const RelayService&) = delete;

  int gateway(int cluster) const { return gateways_.at(static_cast<size_t>(cluster)); }
  const std::vector<int>& gateways() const { return gateways_; }
  bool is_gateway() const {
    return gateways_[static_cast<size_t>(map_.cluster_of(rank_))] == rank_;
  }

  /// @brief Starts sending @p bytes to @p dest (another cluster) with @p tag: fills @p staging
  /// with the relay header and the payload and posts its first hop. @p staging must live until
  /// @p request completes.
  void post_send(std::vector<char>& staging, const void* buffer, std::size_t bytes, int dest,
                 int tag, MPI_Request* request);

  /// @brief Posts the receive of a message from @p source (another cluster) sent with @p tag;
  /// it arrives from this cluster's gateway.
  void post_recv(void* buffer, std::size_t bytes, int source, int tag, MPI_Request* request);

  /// @brief Collective: waits until every rank has stopped communicating, then stops
  /// forwarding. Messages nobody received are reported on stderr.
  void finish();

  /// @brief Messages this rank's forwarding thread has handed on (both relay roles).
  std::uint64_t forwarded() const { return forwarded_.load(); }

 private:
  void serve();
  void stop();
  int encode_tag(int source, int tag) const;

  MPI_Comm forward_ = MPI_COMM_NULL;  // hops to and between gateways (received by the thread)
  MPI_Comm deliver_ = MPI_COMM_NULL;  // last hop, gateway to receiver (received by the app)
  ClusterMap map_;
  LinkClock* clock_;
  std::vector<int> gateways_;
  int rank_ = 0;
  int size_ = 0;
  int tag_limit_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> forwarded_{0};
  std::thread thread_;
};

}  // namespace mcb::harness
