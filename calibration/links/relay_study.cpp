#include "calibration/links/relay_study.hpp"

#include "common/units.hpp"
#include "harness/wide_area.hpp"

#include <algorithm>
#include <cstring>

namespace mcb::links {
namespace {

constexpr int kChannel = 0;
constexpr int kTag = 3;

// Binomial-tree broadcast from rank 0 over the instrumented point-to-point calls.
void broadcast(harness::InstrumentedComm& comm, unsigned char* data, std::size_t bytes) {
  const int rank = comm.rank();
  const int size = comm.size();
  int mask = 1;
  while (mask < size) {
    if (rank & mask) {
      comm.recv(kChannel, data, bytes, rank - mask, kTag);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rank + mask < size) comm.send(kChannel, data, bytes, rank + mask, kTag);
  }
}

// Every rank sends a block to every other rank, all messages posted at once.
void alltoall(harness::InstrumentedComm& comm, const unsigned char* out, unsigned char* in,
              std::size_t block) {
  harness::InstrumentedComm::Batch batch;
  for (int peer = 0; peer < comm.size(); ++peer) {
    if (peer == comm.rank()) continue;
    comm.post_recv(kChannel, batch, in + block * static_cast<size_t>(peer), block, peer, kTag);
  }
  for (int peer = 0; peer < comm.size(); ++peer) {
    if (peer == comm.rank()) continue;
    comm.post_send(kChannel, batch, out + block * static_cast<size_t>(peer), block, peer, kTag);
  }
  comm.complete(kChannel, batch);
}

// The bytes that must cross the busiest link direction in an all-to-all of one block.
double busiest_link_bytes(const harness::ClusterMap& map, std::size_t block) {
  std::vector<int> members(static_cast<size_t>(map.clusters()), 0);
  for (int r = 0; r < map.ranks(); ++r) ++members[static_cast<size_t>(map.cluster_of(r))];
  double most = 0;
  for (int a = 0; a < map.clusters(); ++a) {
    for (int b = 0; b < map.clusters(); ++b) {
      if (a != b) {
        most = std::max(most, static_cast<double>(members[static_cast<size_t>(a)]) *
                                  members[static_cast<size_t>(b)] * static_cast<double>(block));
      }
    }
  }
  return most;
}

// Times one operation on both routes: the same steps with the relay off, then on.
RelayPoint both_routes(harness::InstrumentedComm& comm, std::size_t bytes, double lower_bound,
                       const MeasureSettings& s, const Step& step) {
  RelayPoint point;
  point.bytes = bytes;
  point.lower_bound = lower_bound;
  comm.set_relay(false);
  point.direct = Stats::of(measure(comm.mpi(), 1, s, step)[0]);
  comm.set_relay(true);
  point.relay = Stats::of(measure(comm.mpi(), 1, s, step)[0]);
  return point;
}

}  // namespace

nlohmann::json RelayPoint::to_json() const {
  auto over = [](double a, double b) { return b > 0 ? a / b - 1.0 : 0.0; };
  return {{"bytes", bytes},
          {"direct", direct.to_json()},
          {"relay", relay.to_json()},
          {"lower_bound", lower_bound},
          {"relay_over_direct", over(relay.avg, direct.avg)},
          {"relay_over_bound", over(relay.avg, lower_bound)},
          {"direct_over_bound", over(direct.avg, lower_bound)}};
}

nlohmann::json RelayStudy::to_json() const {
  auto points = [](const std::vector<RelayPoint>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : list) out.push_back(p.to_json());
    return out;
  };
  return {{"pair", {pair.first, pair.second}},
          {"gateways", gateways},
          {"lower_bound",
           {{"formula",
             "t0 + bytes / bandwidth (alltoall: bytes over the busiest "
             "link direction)"},
            {"t0", bound.t0},
            {"bandwidth", megabytes_per_second(bound.bandwidth)},
            {"from", "cross_cluster fit"}}},
          {"point_to_point", points(point_to_point)},
          {"broadcast", {{"root", 0}, {"points", points(broadcast)}}},
          {"alltoall", {{"points", points(alltoall)}}}};
}

RelayStudy relay_study(harness::InstrumentedComm& comm, RankPair pair,
                       const std::vector<std::size_t>& sizes, const MeasureSettings& s,
                       const LinkFit& bound, bool& data_ok) {
  RelayStudy study;
  study.pair = pair;
  study.gateways = comm.wide_area()->relay()->gateways();
  study.bound = bound;
  const int rank = comm.rank();
  const int size = comm.size();
  const auto& map = comm.cluster_map();
  const std::size_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  std::vector<unsigned char> out(largest * static_cast<size_t>(size));
  std::vector<unsigned char> in(largest * static_cast<size_t>(size));
  const int pair_seed = pair.first * 7919 + pair.second;

  for (const std::size_t bytes : sizes) {
    // Point to point: a ping-pong between two ranks that are not gateways.
    fill_pattern(out.data(), bytes, pair_seed);
    study.point_to_point.push_back(
        both_routes(comm, bytes, bound.at(static_cast<double>(bytes)), s,
                    [&](std::vector<double>& seconds, bool verify) {
                      if (rank != pair.first && rank != pair.second) return;
                      const int peer = rank == pair.first ? pair.second : pair.first;
                      if (verify) std::memset(in.data(), 0, bytes);
                      const double start = MPI_Wtime();
                      if (rank == pair.first) {
                        comm.send(kChannel, out.data(), bytes, peer, kTag);
                        comm.recv(kChannel, in.data(), bytes, peer, kTag);
                      } else {
                        comm.recv(kChannel, in.data(), bytes, peer, kTag);
                        comm.send(kChannel, in.data(), bytes, peer, kTag);
                      }
                      seconds[0] += (MPI_Wtime() - start) / 2;
                      if (verify) data_ok = data_ok && has_pattern(in.data(), bytes, pair_seed);
                    }));

    // Broadcast from rank 0: time until this rank holds the data, after a barrier.
    study.broadcast.push_back(both_routes(comm, bytes, bound.at(static_cast<double>(bytes)), s,
                                          [&](std::vector<double>& seconds, bool verify) {
                                            unsigned char* data =
                                                rank == 0 ? out.data() : in.data();
                                            if (rank == 0) fill_pattern(out.data(), bytes, 0);
                                            if (verify && rank != 0)
                                              std::memset(in.data(), 0, bytes);
                                            MPI_Barrier(comm.mpi());
                                            const double start = MPI_Wtime();
                                            broadcast(comm, data, bytes);
                                            seconds[0] += MPI_Wtime() - start;
                                            if (verify)
                                              data_ok = data_ok && has_pattern(data, bytes, 0);
                                          }));

    // All-to-all: block `bytes` from every rank to every other.
    for (int peer = 0; peer < size; ++peer) {
      fill_pattern(out.data() + bytes * static_cast<size_t>(peer), bytes, rank * size + peer);
    }
    const double crossing = busiest_link_bytes(map, bytes);
    study.alltoall.push_back(both_routes(
        comm, bytes, bound.t0 + (bound.bandwidth > 0 ? crossing / bound.bandwidth : 0.0), s,
        [&](std::vector<double>& seconds, bool verify) {
          if (verify) std::memset(in.data(), 0, bytes * static_cast<size_t>(size));
          MPI_Barrier(comm.mpi());
          const double start = MPI_Wtime();
          alltoall(comm, out.data(), in.data(), bytes);
          seconds[0] += MPI_Wtime() - start;
          if (!verify) return;
          for (int peer = 0; peer < size; ++peer) {
            if (peer == rank) continue;
            data_ok = data_ok && has_pattern(in.data() + bytes * static_cast<size_t>(peer), bytes,
                                             peer * size + rank);
          }
        }));
  }
  return study;
}

}  // namespace mcb::links
