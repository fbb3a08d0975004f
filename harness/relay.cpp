#include "harness/relay.hpp"

#include "harness/mpi_count.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace mcb::harness {
namespace {

// What travels in front of the payload on the hops to and between gateways.
struct RelayHeader {
  std::int32_t dest;    // final receiver
  std::int32_t source;  // original sender
  std::int32_t tag;     // the application's tag
  std::int32_t unused;
  std::int64_t arrival;  // when the wide-area hop delivers it (LinkClock::now scale); 0: at once
};

constexpr int kForwardTag = 0;
// After finish() a gateway gives its last sends this long to be taken by their receivers.
constexpr auto kDrainLimit = std::chrono::seconds(2);

}  // namespace

RelayService::RelayService(MPI_Comm comm, const ClusterMap& map, LinkClock* clock)
    : map_(map), clock_(clock) {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE) {
    throw std::runtime_error(
        "the gateway relay forwards in a progress thread and needs MPI "
        "started with MPI_THREAD_MULTIPLE");
  }
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  gateways_.assign(static_cast<size_t>(map_.clusters()), -1);
  for (int r = size_ - 1; r >= 0; --r) gateways_[static_cast<size_t>(map_.cluster_of(r))] = r;
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &found);
  // A communicator made by MPI_Intercomm_merge (a joined run) carries no attributes, and the
  // standard's floor of 32767 is too low for the encoded tags. The bound is the
  // implementation's, which MPI_COMM_WORLD always carries.
  if (!found) MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
  tag_limit_ = found ? *static_cast<int*>(value) : 32767;
  MPI_Comm_dup(comm, &forward_);
  MPI_Comm_dup(comm, &deliver_);
  if (is_gateway()) thread_ = std::thread([this] { serve(); });
}

RelayService::~RelayService() {
  stop();
  MPI_Comm_free(&forward_);
  MPI_Comm_free(&deliver_);
}

int RelayService::encode_tag(int source, int tag) const {
  // The last hop comes from the gateway for every sender: the tag carries the sender.
  const long long encoded = static_cast<long long>(tag) * size_ + source;
  if (tag < 0 || encoded > tag_limit_) {
    throw std::out_of_range("tag " + std::to_string(tag) +
                            " is beyond what the relay can carry "
                            "with " +
                            std::to_string(size_) + " ranks (at most " +
                            std::to_string(tag_limit_ / size_ - 1) + ")");
  }
  return static_cast<int>(encoded);
}

void RelayService::post_send(std::vector<char>& staging, const void* buffer, std::size_t bytes,
                             int dest, int tag, MPI_Request* request) {
  encode_tag(rank_, tag);  // refuse an oversized tag here, at its sender
  RelayHeader header{dest, rank_, tag, 0, 0};
  const int from = map_.cluster_of(rank_);
  const int to = map_.cluster_of(dest);
  int next = gateway(from);
  if (next == rank_) {
    // The sender is its cluster's gateway: the first hop is empty, the wide-area one starts now.
    next = gateway(to);
    if (clock_ != nullptr) header.arrival = clock_->reserve(from, to, bytes);
  }
  staging.resize(sizeof header + bytes);
  std::memcpy(staging.data(), &header, sizeof header);
  if (bytes > 0) std::memcpy(staging.data() + sizeof header, buffer, bytes);
  MPI_Isend(staging.data(), as_count(staging.size()), MPI_BYTE, next, kForwardTag, forward_,
            request);
}

void RelayService::post_recv(void* buffer, std::size_t bytes, int source, int tag,
                             MPI_Request* request) {
  MPI_Irecv(buffer, as_count(bytes), MPI_BYTE, gateway(map_.cluster_of(rank_)),
            encode_tag(source, tag), deliver_, request);
}

void RelayService::serve() {
  LinkClock::make_wakeups_prompt();
  struct Outgoing {
    std::vector<char> data;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  struct Due {  // a message waiting for its wide-area arrival before the last hop
    std::vector<char> data;
  };
  const int here = map_.cluster_of(rank_);
  std::multimap<std::pair<std::int64_t, std::uint64_t>, Due> due;  // (arrival, order) -> message
  std::uint64_t order = 0;
  std::vector<Outgoing> outgoing;

  auto send_last_hop = [&](std::vector<char>&& data) {
    RelayHeader header{};
    std::memcpy(&header, data.data(), sizeof header);
    outgoing.push_back({std::move(data), MPI_REQUEST_NULL});
    Outgoing& out = outgoing.back();
    MPI_Isend(out.data.data() + sizeof header, as_count(out.data.size() - sizeof header), MPI_BYTE,
              header.dest, encode_tag(header.source, header.tag), deliver_, &out.request);
    forwarded_.fetch_add(1);
  };

  bool draining = false;
  std::chrono::steady_clock::time_point drain_start;
  for (;;) {
    bool busy = false;
    // Take every message that has reached this gateway.
    for (;;) {
      int flag = 0;
      MPI_Message message;
      MPI_Status status;
      MPI_Improbe(MPI_ANY_SOURCE, kForwardTag, forward_, &flag, &message, &status);
      if (!flag) break;
      busy = true;
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      std::vector<char> data(static_cast<size_t>(count));
      MPI_Mrecv(data.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
      RelayHeader header{};
      std::memcpy(&header, data.data(), sizeof header);
      const int to = map_.cluster_of(header.dest);
      if (to == here) {
        due.emplace(std::pair{header.arrival, order++}, Due{std::move(data)});
      } else {
        // First gateway: hand it over the wide area to the receiver's gateway.
        if (clock_ != nullptr) {
          header.arrival = clock_->reserve(here, to, data.size() - sizeof header);
          std::memcpy(data.data(), &header, sizeof header);
        }
        outgoing.push_back({std::move(data), MPI_REQUEST_NULL});
        Outgoing& out = outgoing.back();
        MPI_Isend(out.data.data(), as_count(out.data.size()), MPI_BYTE, gateway(to), kForwardTag,
                  forward_, &out.request);
        forwarded_.fetch_add(1);
      }
    }
    // Hand on what has arrived over the wide area.
    const std::int64_t now = LinkClock::now();
    while (!due.empty() && due.begin()->first.first <= now) {
      send_last_hop(std::move(due.begin()->second.data));
      due.erase(due.begin());
      busy = true;
    }
    // Release buffers whose sends are done.
    for (std::size_t i = 0; i < outgoing.size();) {
      int done = 0;
      MPI_Test(&outgoing[i].request, &done, MPI_STATUS_IGNORE);
      if (done) {
        outgoing[i] = std::move(outgoing.back());
        outgoing.pop_back();
      } else {
        ++i;
      }
    }
    if (stopping_.load()) {
      if (!draining) {
        draining = true;
        drain_start = std::chrono::steady_clock::now();
      }
      const bool late = std::chrono::steady_clock::now() - drain_start > kDrainLimit;
      if ((outgoing.empty() && due.empty()) || late) {
        if (!outgoing.empty() || !due.empty()) {
          std::cerr << "relay: gateway rank " << rank_ << " stops with "
                    << outgoing.size() + due.size()
                    << " message(s) no receiver took (a send without a matching receive)\n";
        }
        return;
      }
    }
    if (!busy) {
      std::int64_t pause = kPollInterval;
      if (!due.empty())
        pause = std::min(pause, std::max<std::int64_t>(0, due.begin()->first.first - now));
      LinkClock::sleep_for(pause);
    }
  }
}

void RelayService::stop() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
}

void RelayService::finish() {
  // Every rank is past its last receive, so every relayed message has been taken.
  MPI_Barrier(forward_);
  stop();
}

}  // namespace mcb::harness
