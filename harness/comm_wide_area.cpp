// InstrumentedComm's paths for messages between clusters over a WideArea: emulated links and
// the gateway relay. Only reached when a WideArea is attached; the plain paths are in comm.cpp.
//
// Emulated link, direct route: the sender books the link (LinkClock::reserve) and sends the
// arrival time in an 8-byte message just before the payload, with the same tag, so MPI's
// ordering pairs them; the receiver takes both and waits until the arrival time. The sender
// never waits (the link is modelled as fed from ample buffers, as a socket is).
// Relay route: the message goes through RelayService (harness/relay.hpp), which books the link
// on the gateway-to-gateway hop and hands the message on when it has arrived.
#include "harness/comm.hpp"

#include "harness/mpi_count.hpp"
#include "harness/wide_area.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace mcb::harness {

InstrumentedComm::Route InstrumentedComm::route(int peer) const {
  if (!wan_ || peer == kNoPeer || map_.same_cluster(rank_, peer)) return Route::plain;
  if (relay_) return Route::relayed;
  return wan_->emulated() ? Route::emulated : Route::plain;
}

void InstrumentedComm::start_send(Batch& batch, const void* buffer, std::size_t bytes, int dest,
                                  int tag) {
  switch (route(dest)) {
    case Route::plain:
      batch.requests_.emplace_back();
      MPI_Isend(buffer, as_count(bytes), MPI_BYTE, dest, tag, comm_, &batch.requests_.back());
      return;
    case Route::emulated: {
      const int count = as_count(bytes);
      batch.wide_ = true;
      batch.stamps_.push_back(wan_->clock()->reserve(cluster(), map_.cluster_of(dest), bytes));
      batch.requests_.emplace_back();
      MPI_Isend(&batch.stamps_.back(), sizeof(std::int64_t), MPI_BYTE, dest, tag, comm_,
                &batch.requests_.back());
      batch.requests_.emplace_back();
      MPI_Isend(buffer, count, MPI_BYTE, dest, tag, comm_, &batch.requests_.back());
      return;
    }
    case Route::relayed:
      batch.wide_ = true;
      batch.staging_.emplace_back();
      batch.requests_.emplace_back();
      wan_->relay()->post_send(batch.staging_.back(), buffer, bytes, dest, tag,
                               &batch.requests_.back());
      return;
  }
}

void InstrumentedComm::start_recv(Batch& batch, void* buffer, std::size_t bytes, int src, int tag) {
  const int count = as_count(bytes);
  batch.recv_peers_.push_back(src);
  switch (route(src)) {
    case Route::plain:
      batch.recv_slots_.push_back(batch.requests_.size());
      batch.requests_.emplace_back();
      MPI_Irecv(buffer, count, MPI_BYTE, src, tag, comm_, &batch.requests_.back());
      return;
    case Route::emulated:
      batch.wide_ = true;
      batch.stamps_.push_back(0);
      batch.arrivals_.emplace_back(batch.requests_.size(), &batch.stamps_.back());
      batch.requests_.emplace_back();
      MPI_Irecv(&batch.stamps_.back(), sizeof(std::int64_t), MPI_BYTE, src, tag, comm_,
                &batch.requests_.back());
      batch.recv_slots_.push_back(batch.requests_.size());
      batch.requests_.emplace_back();
      MPI_Irecv(buffer, count, MPI_BYTE, src, tag, comm_, &batch.requests_.back());
      return;
    case Route::relayed:
      batch.wide_ = true;
      batch.recv_slots_.push_back(batch.requests_.size());
      batch.requests_.emplace_back();
      wan_->relay()->post_recv(buffer, bytes, src, tag, &batch.requests_.back());
      return;
  }
}

void InstrumentedComm::wait_batch(Batch& batch, MPI_Status* statuses) {
  if (batch.wide_) {
    wait_wide(batch, statuses);
  } else {
    MPI_Waitall(static_cast<int>(batch.requests_.size()), batch.requests_.data(), statuses);
  }
}

void InstrumentedComm::wait_wide(Batch& batch, MPI_Status* statuses) {
  // Waiting for a message over the wide area takes a millisecond or more. A rank that spun in
  // MPI_Waitall that long would, on a busy or oversubscribed host, use up its share of the
  // processor and be descheduled when its message arrives; so it polls, sleeping in between,
  // and keeps MPI's progress going for its other messages. Once every message is in, it
  // waits for the latest arrival time.
  const int n = static_cast<int>(batch.requests_.size());
  std::int64_t last = 0;
  std::size_t stamps_in = 0;
  for (;;) {
    // Arrival times are known as soon as their stamps are in (they travel first).
    for (; stamps_in < batch.arrivals_.size(); ++stamps_in) {
      const auto [slot, arrival] = batch.arrivals_[stamps_in];
      int done = 0;
      MPI_Test(&batch.requests_[slot], &done, MPI_STATUS_IGNORE);
      if (!done) break;
      last = std::max(last, *arrival);
    }
    int all = 0;
    if (stamps_in == batch.arrivals_.size()) MPI_Testall(n, batch.requests_.data(), &all, statuses);
    if (all) break;
    std::int64_t pause = RelayService::kPollInterval;
    if (stamps_in == batch.arrivals_.size() && last > 0) {
      pause = std::min(pause, last - LinkClock::now());
    }
    LinkClock::sleep_for(pause);
  }
  if (last > 0) LinkClock::wait_until(last);
}

void InstrumentedComm::sendrecv_wide(int channel, const void* send, std::size_t send_bytes,
                                     int dest, void* recv, std::size_t recv_bytes, int src,
                                     int tag) {
  Batch batch;
  const double start = instrumented_ ? MPI_Wtime() : 0.0;
  if (dest != kNoPeer) start_send(batch, send, send_bytes, dest, tag);
  if (src != kNoPeer) start_recv(batch, recv, recv_bytes, src, tag);
  std::vector<MPI_Status> statuses(batch.requests_.size());
  wait_batch(batch, statuses.data());
  if (!instrumented_) return;
  const double elapsed = MPI_Wtime() - start;
  const int step_peer = src != kNoPeer ? src : dest;
  stats_[static_cast<size_t>(channel)].time[static_cast<size_t>(peer_class(step_peer))] += elapsed;
  count_send(channel, dest, send_bytes);
  if (src != kNoPeer) count_recv(channel, src, statuses[batch.recv_slots_.front()]);
}

void InstrumentedComm::send_wide(int channel, const void* buffer, std::size_t bytes, int dest,
                                 int tag) {
  Batch batch;
  const double start = instrumented_ ? MPI_Wtime() : 0.0;
  start_send(batch, buffer, bytes, dest, tag);
  std::vector<MPI_Status> statuses(batch.requests_.size());
  wait_batch(batch, statuses.data());
  if (!instrumented_) return;
  stats_[static_cast<size_t>(channel)].time[static_cast<size_t>(peer_class(dest))] +=
      MPI_Wtime() - start;
  count_send(channel, dest, bytes);
}

void InstrumentedComm::recv_wide(int channel, void* buffer, std::size_t bytes, int src, int tag) {
  Batch batch;
  const double start = instrumented_ ? MPI_Wtime() : 0.0;
  start_recv(batch, buffer, bytes, src, tag);
  std::vector<MPI_Status> statuses(batch.requests_.size());
  wait_batch(batch, statuses.data());
  if (!instrumented_) return;
  stats_[static_cast<size_t>(channel)].time[static_cast<size_t>(peer_class(src))] +=
      MPI_Wtime() - start;
  count_recv(channel, src, statuses[batch.recv_slots_.front()]);
}

void InstrumentedComm::routed_send(const void* buffer, std::size_t bytes, int dest, int tag) {
  Batch batch;
  start_send(batch, buffer, bytes, dest, tag);
  std::vector<MPI_Status> statuses(batch.requests_.size());
  wait_batch(batch, statuses.data());
}

void InstrumentedComm::routed_recv(void* buffer, std::size_t bytes, int src, int tag) {
  Batch batch;
  start_recv(batch, buffer, bytes, src, tag);
  std::vector<MPI_Status> statuses(batch.requests_.size());
  wait_batch(batch, statuses.data());
}

namespace {
// Tags of the tree collectives; above any tag the applications use.
constexpr int kReduceTag = 32760;
constexpr int kBroadcastTag = 32761;
}  // namespace

double InstrumentedComm::allreduce_max(double value) {
  if (!wan_) {
    double result = 0;
    MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm_);
    return result;
  }
  // Binomial reduction to rank 0, then binomial broadcast back: 2 log2(P) rounds, each one
  // message per rank at most, over the plain, emulated or relayed route of each pair.
  int mask = 1;
  for (; mask < size_; mask <<= 1) {
    if (rank_ & mask) {
      routed_send(&value, sizeof value, rank_ - mask, kReduceTag);
      break;
    }
    if (rank_ + mask < size_) {
      double other = 0;
      routed_recv(&other, sizeof other, rank_ + mask, kReduceTag);
      value = std::max(value, other);
    }
  }
  // Back down the same tree: a rank gets the result from the rank it sent to, then passes it
  // to its children r + m for every power of two m below its lowest set bit (rank 0: all).
  const int lowest_bit = rank_ & -rank_;
  if (rank_ != 0) routed_recv(&value, sizeof value, rank_ - lowest_bit, kBroadcastTag);
  int children = rank_ == 0 ? 1 : lowest_bit;
  if (rank_ == 0) {
    while (children < size_) children <<= 1;
  }
  for (int m = children >> 1; m > 0; m >>= 1) {
    if (rank_ + m < size_) routed_send(&value, sizeof value, rank_ + m, kBroadcastTag);
  }
  return value;
}

void InstrumentedComm::barrier() {
  if (!wan_) {
    MPI_Barrier(comm_);
    return;
  }
  allreduce_max(0.0);
}

}  // namespace mcb::harness
