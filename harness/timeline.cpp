#include "harness/timeline.hpp"

#include <unistd.h>

#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace mcb::harness {
namespace {

constexpr int kClockTag = 7301;
constexpr int kPingPongs = 16;

}  // namespace

double estimate_clock_offset(MPI_Comm comm) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  char root_host[256] = {};
  if (rank == 0) std::memcpy(root_host, host, sizeof host);
  MPI_Bcast(root_host, sizeof root_host, MPI_CHAR, 0, comm);
  const int same_host = std::strcmp(host, root_host) == 0 ? 1 : 0;
  std::vector<int> same(static_cast<size_t>(size));
  MPI_Allgather(&same_host, 1, MPI_INT, same.data(), 1, MPI_INT, comm);

  double offset = 0.0;
  for (int peer = 1; peer < size; ++peer) {
    if (same[static_cast<size_t>(peer)]) continue;
    if (rank == 0) {
      for (int i = 0; i < kPingPongs; ++i) {
        double stamp = 0;
        MPI_Recv(&stamp, 1, MPI_DOUBLE, peer, kClockTag, comm, MPI_STATUS_IGNORE);
        const double now = MPI_Wtime();
        MPI_Send(&now, 1, MPI_DOUBLE, peer, kClockTag, comm);
      }
    } else if (rank == peer) {
      double best_rtt = std::numeric_limits<double>::max();
      for (int i = 0; i < kPingPongs; ++i) {
        const double sent = MPI_Wtime();
        MPI_Send(&sent, 1, MPI_DOUBLE, 0, kClockTag, comm);
        double root_time = 0;
        MPI_Recv(&root_time, 1, MPI_DOUBLE, 0, kClockTag, comm, MPI_STATUS_IGNORE);
        const double back = MPI_Wtime();
        if (back - sent < best_rtt) {
          best_rtt = back - sent;
          // The root stamped its clock about half a round trip after we sent.
          offset = root_time - (sent + back) / 2;
        }
      }
    }
  }
  return offset;
}

void CommTimeline::reserve(std::size_t phases) {
  if (!enabled_) return;
  compute_end_.reserve(phases);
  comm_end_.reserve(phases);
}

double CommTimeline::paper_time(MPI_Comm comm, double clock_offset) const {
  if (!enabled_) return 0.0;
  if (compute_end_.size() != comm_end_.size()) {
    throw std::logic_error("communication timeline: unmatched phase stamps");
  }
  const std::size_t n = comm_end_.size();
  unsigned long long local_n = n;
  unsigned long long min_n = 0;
  unsigned long long max_n = 0;
  MPI_Allreduce(&local_n, &min_n, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(&local_n, &max_n, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  if (min_n != max_n) {
    throw std::logic_error("communication timeline: ranks stamped " + std::to_string(min_n) +
                           " to " + std::to_string(max_n) + " phases");
  }
  // Reduce in chunks so very long runs need no large temporary buffers.
  constexpr std::size_t kChunk = 1 << 16;
  std::vector<double> local(2 * kChunk);
  std::vector<double> latest(2 * kChunk);
  double total = 0.0;
  for (std::size_t begin = 0; begin < n; begin += kChunk) {
    const std::size_t count = std::min(kChunk, n - begin);
    for (std::size_t i = 0; i < count; ++i) {
      local[i] = compute_end_[begin + i] + clock_offset;
      local[count + i] = comm_end_[begin + i] + clock_offset;
    }
    MPI_Allreduce(local.data(), latest.data(), static_cast<int>(2 * count), MPI_DOUBLE, MPI_MAX,
                  comm);
    for (std::size_t i = 0; i < count; ++i) total += latest[count + i] - latest[i];
  }
  return total;
}

}  // namespace mcb::harness
