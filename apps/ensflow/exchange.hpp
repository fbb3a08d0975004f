#pragma once
/// @file
/// @brief The collectives of the analysis, built from the harness's point-to-point calls so that
/// every byte is booked per channel and per peer class (intra-/inter-cluster), and so that
/// wide-area emulation, which acts on point-to-point traffic, sees all of it. Both use the
/// pairwise-exchange schedule: in step s = 1..P-1 rank r sends to r+s and receives from r-s
/// (mod P), one sendrecv per step, so each step's time is booked to the class of the peer it
/// waited for.

#include "harness/comm.hpp"

#include <cstddef>
#include <vector>

namespace mcb::ensflow {

/// @brief Every rank contributes @p count doubles; @p all receives P * count doubles, rank r's
/// contribution at offset r * count. Collective over comm.
void pairwise_allgather(harness::InstrumentedComm& comm, int channel, const double* mine,
                        std::size_t count, double* all);

/// @brief Where each peer's part lies in a buffer: offset and count (doubles), per rank.
struct Segments {
  std::vector<std::size_t> offset;
  std::vector<std::size_t> count;
};

/// @brief All-to-all with a segment per peer: rank r's send segment for rank d arrives in d's
/// receive segment for r. Counts must agree pairwise (send.count[d] on r equals
/// recv.count[r] on d); empty segments send nothing. Collective over comm.
void pairwise_alltoallv(harness::InstrumentedComm& comm, int channel, const double* send,
                        const Segments& send_segments, double* recv, const Segments& recv_segments);

}  // namespace mcb::ensflow
