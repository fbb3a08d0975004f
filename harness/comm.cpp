#include "harness/comm.hpp"

#include "harness/mpi_count.hpp"
#include "harness/wide_area.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace mcb::harness {
namespace {

int mpi_peer(int peer) { return peer == kNoPeer ? MPI_PROC_NULL : peer; }

const char* class_name(int c) { return c == 0 ? "intra" : "inter"; }

}  // namespace

InstrumentedComm::InstrumentedComm(MPI_Comm comm, ClusterMap map, std::vector<std::string> channels,
                                   bool instrumented)
    : comm_(comm),
      map_(std::move(map)),
      names_(std::move(channels)),
      stats_(names_.size()),
      instrumented_(instrumented) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  if (map_.ranks() != size_) {
    throw std::invalid_argument("cluster map has " + std::to_string(map_.ranks()) +
                                " ranks, communicator " + std::to_string(size_));
  }
}

InstrumentedComm::InstrumentedComm(MPI_Comm comm, ClusterMap map, std::vector<std::string> channels,
                                   bool instrumented, std::shared_ptr<WideArea> wide_area)
    : InstrumentedComm(comm, std::move(map), std::move(channels), instrumented) {
  wan_ = std::move(wide_area);
  if (!wan_) return;
  if (wan_->size() != size_) {
    throw std::invalid_argument("wide area made for " + std::to_string(wan_->size()) +
                                " ranks, communicator has " + std::to_string(size_));
  }
  relay_ = wan_->relays();
}

void InstrumentedComm::set_relay(bool on) {
  if (on && !(wan_ && wan_->relays())) {
    throw std::logic_error("relay switched on for a communicator without a relaying wide area");
  }
  relay_ = on;
}

int InstrumentedComm::channel(std::string_view name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) throw std::out_of_range("unknown channel '" + std::string(name) + "'");
  return static_cast<int>(it - names_.begin());
}

void InstrumentedComm::count_send(int channel, int dest, std::size_t bytes) {
  if (!instrumented_ || dest == kNoPeer) return;
  Traffic& t = stats_[static_cast<size_t>(channel)].sent[static_cast<size_t>(peer_class(dest))];
  ++t.messages;
  t.bytes += bytes;
}

void InstrumentedComm::count_recv(int channel, int src, const MPI_Status& status) {
  if (!instrumented_ || src == kNoPeer) return;
  int received = 0;
  MPI_Get_count(&status, MPI_BYTE, &received);
  Traffic& t = stats_[static_cast<size_t>(channel)].received[static_cast<size_t>(peer_class(src))];
  ++t.messages;
  t.bytes += static_cast<std::uint64_t>(received);
}

void InstrumentedComm::sendrecv(int channel, const void* send, std::size_t send_bytes, int dest,
                                void* recv, std::size_t recv_bytes, int src, int tag) {
  if (wan_ && (route(dest) != Route::plain || route(src) != Route::plain)) {
    sendrecv_wide(channel, send, send_bytes, dest, recv, recv_bytes, src, tag);
    return;
  }
  MPI_Status status;
  if (!instrumented_) {
    MPI_Sendrecv(send, as_count(send_bytes), MPI_BYTE, mpi_peer(dest), tag, recv,
                 as_count(recv_bytes), MPI_BYTE, mpi_peer(src), tag, comm_, &status);
    return;
  }
  const double start = MPI_Wtime();
  MPI_Sendrecv(send, as_count(send_bytes), MPI_BYTE, mpi_peer(dest), tag, recv,
               as_count(recv_bytes), MPI_BYTE, mpi_peer(src), tag, comm_, &status);
  const double elapsed = MPI_Wtime() - start;
  const int step_peer = src != kNoPeer ? src : dest;
  if (step_peer != kNoPeer) {
    stats_[static_cast<size_t>(channel)].time[static_cast<size_t>(peer_class(step_peer))] +=
        elapsed;
  }
  count_send(channel, dest, send_bytes);
  count_recv(channel, src, status);
}

void InstrumentedComm::send(int channel, const void* buffer, std::size_t bytes, int dest, int tag) {
  if (wan_ && route(dest) != Route::plain) {
    send_wide(channel, buffer, bytes, dest, tag);
    return;
  }
  const double start = instrumented_ ? MPI_Wtime() : 0.0;
  MPI_Send(buffer, as_count(bytes), MPI_BYTE, mpi_peer(dest), tag, comm_);
  if (!instrumented_ || dest == kNoPeer) return;
  stats_[static_cast<size_t>(channel)].time[static_cast<size_t>(peer_class(dest))] +=
      MPI_Wtime() - start;
  count_send(channel, dest, bytes);
}

void InstrumentedComm::recv(int channel, void* buffer, std::size_t bytes, int src, int tag) {
  if (wan_ && route(src) != Route::plain) {
    recv_wide(channel, buffer, bytes, src, tag);
    return;
  }
  MPI_Status status;
  const double start = instrumented_ ? MPI_Wtime() : 0.0;
  MPI_Recv(buffer, as_count(bytes), MPI_BYTE, mpi_peer(src), tag, comm_, &status);
  if (!instrumented_ || src == kNoPeer) return;
  stats_[static_cast<size_t>(channel)].time[static_cast<size_t>(peer_class(src))] +=
      MPI_Wtime() - start;
  count_recv(channel, src, status);
}

void InstrumentedComm::Batch::clear() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (persistent_ && !finalized) {
    for (MPI_Request& r : requests_) {
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    }
  }
  persistent_ = false;
  persistent_sends_.clear();
  requests_.clear();
  recv_peers_.clear();
  recv_slots_.clear();
  any_inter_ = false;
  wide_ = false;
  stamps_.clear();
  arrivals_.clear();
  staging_.clear();
}

void InstrumentedComm::post_send(int channel, Batch& batch, const void* buffer, std::size_t bytes,
                                 int dest, int tag) {
  if (dest == kNoPeer) return;
  if (wan_) {
    start_send(batch, buffer, bytes, dest, tag);
  } else {
    batch.requests_.emplace_back();
    MPI_Isend(buffer, as_count(bytes), MPI_BYTE, dest, tag, comm_, &batch.requests_.back());
  }
  batch.any_inter_ = batch.any_inter_ || peer_class(dest) == PeerClass::inter;
  count_send(channel, dest, bytes);
}

void InstrumentedComm::post_recv(int /*channel*/, Batch& batch, void* buffer, std::size_t bytes,
                                 int src, int tag) {
  if (src == kNoPeer) return;
  if (wan_) {
    start_recv(batch, buffer, bytes, src, tag);
  } else {
    batch.recv_slots_.push_back(batch.requests_.size());
    batch.recv_peers_.push_back(src);
    batch.requests_.emplace_back();
    MPI_Irecv(buffer, as_count(bytes), MPI_BYTE, src, tag, comm_, &batch.requests_.back());
  }
  batch.any_inter_ = batch.any_inter_ || peer_class(src) == PeerClass::inter;
}

void InstrumentedComm::complete(int channel, Batch& batch) {
  std::vector<MPI_Status>& statuses = batch.statuses_;
  statuses.resize(batch.requests_.size());
  const double start = instrumented_ ? MPI_Wtime() : 0.0;
  wait_batch(batch, statuses.data());
  if (instrumented_) {
    const auto cls = batch.any_inter_ ? PeerClass::inter : PeerClass::intra;
    stats_[static_cast<size_t>(channel)].time[static_cast<size_t>(cls)] += MPI_Wtime() - start;
    for (std::size_t i = 0; i < batch.recv_slots_.size(); ++i) {
      count_recv(channel, batch.recv_peers_[i], statuses[batch.recv_slots_[i]]);
    }
  }
  if (!batch.persistent_) batch.clear();
}

void InstrumentedComm::init_send(Batch& batch, const void* buffer, std::size_t bytes, int dest,
                                 int tag) {
  if (dest == kNoPeer) return;
  if (wan_ && route(dest) != Route::plain) {
    throw std::logic_error("persistent sends take plain MPI, not the wide area");
  }
  batch.persistent_ = true;
  batch.requests_.emplace_back();
  MPI_Send_init(buffer, as_count(bytes), MPI_BYTE, dest, tag, comm_, &batch.requests_.back());
  batch.persistent_sends_.emplace_back(dest, bytes);
  batch.any_inter_ = batch.any_inter_ || peer_class(dest) == PeerClass::inter;
}

void InstrumentedComm::init_recv(Batch& batch, void* buffer, std::size_t bytes, int src, int tag) {
  if (src == kNoPeer) return;
  if (wan_ && route(src) != Route::plain) {
    throw std::logic_error("persistent receives take plain MPI, not the wide area");
  }
  batch.persistent_ = true;
  batch.recv_slots_.push_back(batch.requests_.size());
  batch.recv_peers_.push_back(src);
  batch.requests_.emplace_back();
  MPI_Recv_init(buffer, as_count(bytes), MPI_BYTE, src, tag, comm_, &batch.requests_.back());
  batch.any_inter_ = batch.any_inter_ || peer_class(src) == PeerClass::inter;
}

void InstrumentedComm::start(int channel, Batch& batch) {
  if (batch.requests_.empty()) return;
  MPI_Startall(static_cast<int>(batch.requests_.size()), batch.requests_.data());
  for (const auto& [dest, bytes] : batch.persistent_sends_) count_send(channel, dest, bytes);
}

double InstrumentedComm::total_time() const {
  double total = 0;
  for (const auto& s : stats_) total += s.total_time();
  return total;
}

nlohmann::json InstrumentedComm::stats_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t ch = 0; ch < names_.size(); ++ch) {
    const ChannelStats& s = stats_[ch];
    nlohmann::json entry{{"time", nlohmann::json::object()},
                         {"sent", nlohmann::json::object()},
                         {"received", nlohmann::json::object()}};
    for (int c = 0; c < 2; ++c) {
      entry["time"][class_name(c)] = s.time[static_cast<size_t>(c)];
      entry["sent"][class_name(c)] = {{"messages", s.sent[static_cast<size_t>(c)].messages},
                                      {"bytes", s.sent[static_cast<size_t>(c)].bytes}};
      entry["received"][class_name(c)] = {{"messages", s.received[static_cast<size_t>(c)].messages},
                                          {"bytes", s.received[static_cast<size_t>(c)].bytes}};
    }
    out[names_[ch]] = entry;
  }
  return out;
}

}  // namespace mcb::harness
