#include "apps/synth/patterns.hpp"

#include <mpi.h>

#include <array>

namespace mcb::synth {

namespace {

using harness::Direction;
using harness::kNoPeer;

// The direction a message comes from in a shift towards d (harness/grid.hpp's order).
constexpr std::array<Direction, harness::kDirections> kOpposite = {
    Direction::bottom, Direction::top, Direction::right, Direction::left};

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The peers a rank exchanges with in a ring or an all-to-all (sends and receives alike).
std::vector<int> peers_of(Pattern pattern, int rank, int ranks) {
  std::vector<int> peers;
  if (pattern == Pattern::ring) {
    if (ranks > 1) peers.push_back((rank + 1) % ranks);
  } else {
    for (int q = 0; q < ranks; ++q) {
      if (q != rank) peers.push_back(q);
    }
  }
  return peers;
}

// The sum the all-reduce gives in word 0 of @p iteration.
std::uint64_t reduced_base(const SynthConfig& config, long iteration) {
  std::uint64_t sum = 0;
  for (int r = 0; r < config.ranks; ++r) {
    sum += message_base(config.options.run.seed, r, -1, iteration);
  }
  return sum;
}

}  // namespace

std::uint64_t message_base(std::int64_t seed, int source, int dest, long iteration) {
  std::uint64_t x = splitmix(static_cast<std::uint64_t>(seed));
  x = splitmix(x ^ static_cast<std::uint64_t>(source));
  x = splitmix(x ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(dest)));
  return splitmix(x ^ static_cast<std::uint64_t>(iteration));
}

std::uint64_t message_sum(std::uint64_t base, std::uint64_t words) {
  // words * (words - 1) / 2 without overflow before the halving: halve the even factor.
  const std::uint64_t pairs =
      words % 2 == 0 ? (words / 2) * (words - 1) : words * ((words - 1) / 2);
  return words * base + pairs;
}

std::vector<std::string> channel_names(Pattern pattern) {
  switch (pattern) {
    case Pattern::nearest:
      return {"top", "bottom", "left", "right"};
    case Pattern::ring:
      return {"ring"};
    case Pattern::all_to_all:
      return {"all-to-all"};
    case Pattern::master_worker:
      return {"tasks", "results"};
    case Pattern::allreduce:
      return {"reduce", "broadcast"};
  }
  return {};
}

Receipts expected_receipts(const SynthConfig& config, int rank) {
  const std::int64_t seed = config.options.run.seed;
  const std::uint64_t words = config.message_bytes / 8;
  const int ranks = config.ranks;
  Receipts r;
  auto from = [&](int source, long k) {
    r.checksum += message_sum(message_base(seed, source, rank, k), words);
    ++r.messages;
  };
  for (long k = 0; k < config.options.iterations; ++k) {
    switch (config.options.pattern) {
      case Pattern::nearest:
        for (const Direction d : kOpposite) {
          const int source = config.grid.neighbour(rank, d);
          if (source != kNoPeer) from(source, k);
        }
        break;
      case Pattern::ring:
        if (ranks > 1) from((rank + ranks - 1) % ranks, k);
        break;
      case Pattern::all_to_all:
        for (const int q : peers_of(Pattern::all_to_all, rank, ranks)) from(q, k);
        break;
      case Pattern::master_worker:
        if (rank != 0) {
          from(0, k);
        } else {
          for (int w = 1; w < ranks; ++w) from(w, k);
        }
        break;
      case Pattern::allreduce: {
        // Word j of the result is the sum of every rank's base plus ranks * j.
        const std::uint64_t step = static_cast<std::uint64_t>(ranks);
        r.checksum += words * reduced_base(config, k) + step * message_sum(0, words);
        ++r.messages;
        break;
      }
    }
  }
  return r;
}

PatternRunner::PatternRunner(const SynthConfig& config, harness::InstrumentedComm& comm)
    : config_(config), comm_(comm), words_(config.message_bytes / 8) {
  // One buffer per peer (all-to-all, the master's workers) or per direction (nearest).
  const Pattern p = config.options.pattern;
  std::size_t buffers = 1;
  if (p == Pattern::all_to_all || p == Pattern::master_worker) {
    buffers = static_cast<std::size_t>(config.ranks);
  } else if (p == Pattern::nearest) {
    buffers = harness::kDirections;
  }
  send_.assign(buffers, std::vector<std::uint64_t>(words_));
  recv_.assign(buffers, std::vector<std::uint64_t>(words_));
}

void PatternRunner::fill(std::vector<std::uint64_t>& buffer, int dest, long iteration) {
  const double start = MPI_Wtime();
  const std::uint64_t base = message_base(config_.options.run.seed, comm_.rank(), dest, iteration);
  for (std::uint64_t j = 0; j < words_; ++j) buffer[j] = base + j;
  check_time_ += MPI_Wtime() - start;
}

void PatternRunner::take(const std::vector<std::uint64_t>& buffer, std::uint64_t base,
                         std::uint64_t step) {
  const double start = MPI_Wtime();
  std::uint64_t sum = 0, bad = 0;
  for (std::uint64_t j = 0; j < words_; ++j) {
    sum += buffer[j];
    bad += buffer[j] != base + step * j ? 1 : 0;
  }
  receipts_.checksum += sum;
  receipts_.bad_words += bad;
  ++receipts_.messages;
  check_time_ += MPI_Wtime() - start;
}

void PatternRunner::run(long iteration) {
  switch (config_.options.pattern) {
    case Pattern::nearest:
      nearest(iteration);
      break;
    case Pattern::ring:
    case Pattern::all_to_all:
      exchange(0, peers_of(config_.options.pattern, comm_.rank(), comm_.size()), iteration);
      break;
    case Pattern::master_worker:
      master_worker(iteration);
      break;
    case Pattern::allreduce:
      allreduce(iteration);
      break;
  }
}

// Ring and all-to-all: the messages of one batch, received from the peers that send to this
// rank (in a ring, the previous rank; in an all-to-all, the peers themselves).
void PatternRunner::exchange(int channel, const std::vector<int>& peers, long iteration) {
  const int me = comm_.rank(), ranks = comm_.size();
  const std::size_t bytes = words_ * 8;
  harness::InstrumentedComm::Batch batch;
  std::vector<int> sources;
  for (const int q : peers) {
    const int source = config_.options.pattern == Pattern::ring ? (me + ranks - 1) % ranks : q;
    sources.push_back(source);
    comm_.post_recv(channel, batch, recv_[sources.size() - 1].data(), bytes, source, channel);
  }
  for (std::size_t i = 0; i < peers.size(); ++i) {
    fill(send_[i], peers[i], iteration);
    comm_.post_send(channel, batch, send_[i].data(), bytes, peers[i], channel);
  }
  comm_.complete(channel, batch);
  const std::int64_t seed = config_.options.run.seed;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    take(recv_[i], message_base(seed, sources[i], me, iteration), 1);
  }
}

// Four shifts, as the border exchange of a 2-D grid: towards each direction, receiving from the
// opposite neighbour.
void PatternRunner::nearest(long iteration) {
  const int me = comm_.rank();
  const std::size_t bytes = words_ * 8;
  for (int d = 0; d < harness::kDirections; ++d) {
    const auto dir = static_cast<Direction>(d);
    const int dest = config_.grid.neighbour(me, dir);
    const int source = config_.grid.neighbour(me, kOpposite[static_cast<std::size_t>(d)]);
    const auto slot = static_cast<std::size_t>(d);
    if (dest != kNoPeer) fill(send_[slot], dest, iteration);
    comm_.sendrecv(d, send_[slot].data(), dest != kNoPeer ? bytes : 0, dest, recv_[slot].data(),
                   source != kNoPeer ? bytes : 0, source, d);
    if (source != kNoPeer) {
      take(recv_[slot], message_base(config_.options.run.seed, source, me, iteration), 1);
    }
  }
}

// Rank 0 sends every worker its task and takes every result back; a worker checks its task
// before it answers.
void PatternRunner::master_worker(long iteration) {
  const int me = comm_.rank(), ranks = comm_.size();
  const std::size_t bytes = words_ * 8;
  const std::int64_t seed = config_.options.run.seed;
  if (me != 0) {
    comm_.recv(0, recv_[0].data(), bytes, 0, 0);
    take(recv_[0], message_base(seed, 0, me, iteration), 1);
    fill(send_[0], 0, iteration);
    comm_.send(1, send_[0].data(), bytes, 0, 1);
    return;
  }
  harness::InstrumentedComm::Batch tasks, results;
  for (int w = 1; w < ranks; ++w) {
    const auto slot = static_cast<std::size_t>(w);
    fill(send_[slot], w, iteration);
    comm_.post_send(0, tasks, send_[slot].data(), bytes, w, 0);
    comm_.post_recv(1, results, recv_[slot].data(), bytes, w, 1);
  }
  comm_.complete(0, tasks);
  comm_.complete(1, results);
  for (int w = 1; w < ranks; ++w) {
    take(recv_[static_cast<std::size_t>(w)], message_base(seed, w, 0, iteration), 1);
  }
}

// A sum of every rank's words, reduced to rank 0 along a binomial tree and broadcast back along
// it, so each tree edge between clusters pays the wide area.
void PatternRunner::allreduce(long iteration) {
  const int me = comm_.rank(), ranks = comm_.size();
  const std::size_t bytes = words_ * 8;
  std::vector<std::uint64_t>& acc = send_[0];
  std::vector<std::uint64_t>& part = recv_[0];
  fill(acc, -1, iteration);
  int mask = 1;
  for (; mask < ranks; mask <<= 1) {
    if ((me & mask) != 0) {
      comm_.send(0, acc.data(), bytes, me - mask, 0);
      break;
    }
    if (me + mask < ranks) {
      comm_.recv(0, part.data(), bytes, me + mask, 0);
      for (std::uint64_t j = 0; j < words_; ++j) acc[j] += part[j];
    }
  }
  // Down the same tree: a rank receives from the parent it sent to, then serves its children.
  if (me != 0) comm_.recv(1, acc.data(), bytes, me - mask, 1);
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (me + mask < ranks) comm_.send(1, acc.data(), bytes, me + mask, 1);
  }
  take(acc, reduced_base(config_, iteration), static_cast<std::uint64_t>(ranks));
}

}  // namespace mcb::synth
