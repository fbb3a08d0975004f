#include "apps/ensflow/exchange.hpp"

#include <cstring>
#include <stdexcept>

namespace mcb::ensflow {
namespace {

// Tags keep the two collectives apart if a program ever interleaves them. Small: the gateway
// relay encodes tag * ranks + source within MPI's tag range.
constexpr int kAllgatherTag = 11;
constexpr int kAlltoallTag = 12;

}  // namespace

void pairwise_allgather(harness::InstrumentedComm& comm, int channel, const double* mine,
                        std::size_t count, double* all) {
  const int p = comm.size();
  const int r = comm.rank();
  if (count > 0)
    std::memcpy(all + static_cast<std::size_t>(r) * count, mine, count * sizeof(double));
  if (count == 0) return;
  for (int s = 1; s < p; ++s) {
    const int dest = (r + s) % p;
    const int src = (r - s + p) % p;
    comm.sendrecv(channel, mine, count * sizeof(double), dest,
                  all + static_cast<std::size_t>(src) * count, count * sizeof(double), src,
                  kAllgatherTag);
  }
}

void pairwise_alltoallv(harness::InstrumentedComm& comm, int channel, const double* send,
                        const Segments& send_segments, double* recv,
                        const Segments& recv_segments) {
  const int p = comm.size();
  const int r = comm.rank();
  const auto peers = static_cast<std::size_t>(p);
  if (send_segments.offset.size() != peers || send_segments.count.size() != peers ||
      recv_segments.offset.size() != peers || recv_segments.count.size() != peers) {
    throw std::invalid_argument("all-to-all segments must list every rank");
  }
  const auto self = static_cast<std::size_t>(r);
  if (send_segments.count[self] != recv_segments.count[self]) {
    throw std::invalid_argument("all-to-all: own send and receive segments differ in size");
  }
  if (send_segments.count[self] > 0) {
    std::memcpy(recv + recv_segments.offset[self], send + send_segments.offset[self],
                send_segments.count[self] * sizeof(double));
  }
  for (int s = 1; s < p; ++s) {
    const auto dest = static_cast<std::size_t>((r + s) % p);
    const auto src = static_cast<std::size_t>((r - s + p) % p);
    const std::size_t out = send_segments.count[dest];
    const std::size_t in = recv_segments.count[src];
    if (out == 0 && in == 0) continue;
    comm.sendrecv(channel, send + send_segments.offset[dest], out * sizeof(double),
                  out > 0 ? static_cast<int>(dest) : harness::kNoPeer,
                  recv + recv_segments.offset[src], in * sizeof(double),
                  in > 0 ? static_cast<int>(src) : harness::kNoPeer, kAlltoallTag);
  }
}

}  // namespace mcb::ensflow
