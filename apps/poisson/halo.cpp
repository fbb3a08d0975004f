#include "apps/poisson/halo.hpp"

#include <algorithm>

namespace mcb::poisson {

using harness::Direction;
using harness::kNoPeer;

namespace {

constexpr int kHaloTag = 100;

Direction opposite(Direction d) {
  switch (d) {
    case Direction::top:
      return Direction::bottom;
    case Direction::bottom:
      return Direction::top;
    case Direction::left:
      return Direction::right;
    case Direction::right:
      return Direction::left;
  }
  return d;
}

// The local line (row or column index) a direction sends from, and the halo line the opposite
// direction's message lands in.
struct Line {
  bool is_row;
  int index;
};

Line send_line(const Subdomain& s, Direction d) {
  switch (d) {
    case Direction::top:
      return {true, s.ny};
    case Direction::bottom:
      return {true, 1};
    case Direction::left:
      return {false, 1};
    case Direction::right:
      return {false, s.nx};
  }
  return {true, 0};
}

Line halo_line(const Subdomain& s, Direction d) {
  // The step in direction d receives from the opposite neighbour, so it fills the halo on
  // that neighbour's side.
  switch (d) {
    case Direction::top:
      return {true, 0};
    case Direction::bottom:
      return {true, s.ny + 1};
    case Direction::left:
      return {false, s.nx + 1};
    case Direction::right:
      return {false, 0};
  }
  return {true, 0};
}

// First position along a line holding colour `colour` (colour < 0: all points, from 1).
int first(const Subdomain& s, Line line, int colour) {
  if (colour < 0) return 1;
  if (line.is_row) return s.first_of_colour(line.index, colour);
  return 1 + ((s.x0 + line.index + s.y0 + 1 + colour) & 1);
}

}  // namespace

HaloExchange::HaloExchange(const Subdomain& sub, const harness::ProcessGrid& grid, int rank)
    : sub_(sub) {
  for (int d = 0; d < harness::kDirections; ++d) {
    const int n = grid.neighbour(rank, static_cast<Direction>(d));
    neighbour_[static_cast<size_t>(d)] = n < 0 ? kNoPeer : n;
  }
  const size_t longest = static_cast<size_t>(std::max(sub.nx, sub.ny));
  for (auto& line : send_) line.resize(longest);
  for (auto& line : recv_) line.resize(longest);
}

int HaloExchange::pack(const Field& u, Direction d, int colour, double* out) const {
  const Line line = send_line(sub_, d);
  const int length = line.is_row ? sub_.nx : sub_.ny;
  const int step = colour < 0 ? 1 : 2;
  int count = 0;
  for (int k = first(sub_, line, colour); k <= length; k += step) {
    out[count++] = line.is_row ? u.at(k, line.index) : u.at(line.index, k);
  }
  return count;
}

void HaloExchange::unpack(Field& u, Direction d, int colour, const double* in) const {
  const Line line = halo_line(sub_, d);
  const int length = line.is_row ? sub_.nx : sub_.ny;
  const int step = colour < 0 ? 1 : 2;
  int count = 0;
  for (int k = first(sub_, line, colour); k <= length; k += step) {
    (line.is_row ? u.at(k, line.index) : u.at(line.index, k)) = in[count++];
  }
}

HaloExchange::~HaloExchange() { release_persistent(); }

void HaloExchange::set_persistent(bool on) {
  use_persistent_ = on;
  if (!on) release_persistent();
}

void HaloExchange::release_persistent() {
  for (auto& b : standing_sends_) b.clear();
  for (auto& b : standing_receives_) b.clear();
  standing_comm_ = MPI_COMM_NULL;
  standing_field_ = nullptr;
}

// Whole rows go straight from and into the field; staged columns from and into their buffers;
// other columns and colour subsets are packed.
double* HaloExchange::receive_buffer(Field& u, Direction d, int colour, bool staged) {
  const Line in = halo_line(sub_, d);
  if (in.is_row && colour < 0) return u.row(in.index) + 1;
  if (staged && !in.is_row) return d == Direction::left ? east_in_.data() : west_in_.data();
  return recv_[static_cast<size_t>(d)].data();
}

const double* HaloExchange::send_buffer(const Field& u, Direction d, int colour, bool staged,
                                        int& count) {
  const Line out = send_line(sub_, d);
  if (out.is_row && colour < 0) {
    count = sub_.nx;
    return u.row(out.index) + 1;
  }
  if (staged && !out.is_row) {
    count = sub_.ny;
    return d == Direction::left ? west_out_.data() : east_out_.data();
  }
  count = pack(u, d, colour, send_[static_cast<size_t>(d)].data());
  return send_[static_cast<size_t>(d)].data();
}

void HaloExchange::exchange(harness::InstrumentedComm& comm, Field& u, int colour, bool staged) {
  if (colour < 0 && use_persistent_ && comm.wide_area() == nullptr) {
    exchange_persistent(comm, u, staged);
    return;
  }
  post(comm, u, colour, staged);
  finish(comm, u, colour, staged);
}

void HaloExchange::post_colour(harness::InstrumentedComm& comm, Field& u, int colour) {
  post(comm, u, colour, false);
}

void HaloExchange::complete_colour(harness::InstrumentedComm& comm, Field& u, int colour) {
  finish(comm, u, colour, false);
}

void HaloExchange::post(harness::InstrumentedComm& comm, Field& u, int colour, bool staged) {
  // Receives first, so that no message waits for its buffer.
  for (int d = 0; d < harness::kDirections; ++d) {
    const auto dir = static_cast<Direction>(d);
    const int src = neighbour(opposite(dir));
    if (src == kNoPeer) continue;
    const Line in = halo_line(sub_, dir);
    const size_t capacity = static_cast<size_t>(in.is_row ? sub_.nx : sub_.ny);
    comm.post_recv(d, receives_[static_cast<size_t>(d)], receive_buffer(u, dir, colour, staged),
                   sizeof(double) * capacity, src, kHaloTag + d);
  }
  for (int d = 0; d < harness::kDirections; ++d) {
    const auto dir = static_cast<Direction>(d);
    const int dest = neighbour(dir);
    if (dest == kNoPeer) continue;
    int count = 0;
    const double* send = send_buffer(u, dir, colour, staged, count);
    comm.post_send(d, sends_[static_cast<size_t>(d)], send,
                   sizeof(double) * static_cast<size_t>(count), dest, kHaloTag + d);
  }
}

void HaloExchange::finish(harness::InstrumentedComm& comm, Field& u, int colour, bool staged) {
  // Completed and booked direction by direction: each receive is booked to the class of its
  // source, each send (done by then unless the message is large) to that of its destination.
  for (int d = 0; d < harness::kDirections; ++d) {
    const auto dir = static_cast<Direction>(d);
    if (neighbour(opposite(dir)) == kNoPeer) continue;
    comm.complete(d, receives_[static_cast<size_t>(d)]);
    if (receive_buffer(u, dir, colour, staged) == recv_[static_cast<size_t>(d)].data()) {
      unpack(u, dir, colour, recv_[static_cast<size_t>(d)].data());
    }
  }
  for (int d = 0; d < harness::kDirections; ++d) {
    if (has(static_cast<Direction>(d))) comm.complete(d, sends_[static_cast<size_t>(d)]);
  }
}

void HaloExchange::exchange_persistent(harness::InstrumentedComm& comm, Field& u, bool staged) {
  if (standing_comm_ != comm.mpi() || standing_field_ != u.values().data() ||
      standing_staged_ != staged) {
    release_persistent();
    for (int d = 0; d < harness::kDirections; ++d) {
      const auto dir = static_cast<Direction>(d);
      const Line in = halo_line(sub_, dir);
      const size_t capacity = static_cast<size_t>(in.is_row ? sub_.nx : sub_.ny);
      comm.init_recv(standing_receives_[static_cast<size_t>(d)], receive_buffer(u, dir, -1, staged),
                     sizeof(double) * capacity, neighbour(opposite(dir)), kHaloTag + d);
      int count = 0;  // a column not staged is packed before every start
      const double* send = send_buffer(u, dir, -1, staged, count);
      comm.init_send(standing_sends_[static_cast<size_t>(d)], send,
                     sizeof(double) * static_cast<size_t>(count), neighbour(dir), kHaloTag + d);
    }
    standing_comm_ = comm.mpi();
    standing_field_ = u.values().data();
    standing_staged_ = staged;
  }
  // Receives first, then the sends (columns not staged are packed first); the completions are
  // booked direction by direction as in exchange().
  for (int d = 0; d < harness::kDirections; ++d) {
    comm.start(d, standing_receives_[static_cast<size_t>(d)]);
  }
  for (int d = 0; d < harness::kDirections; ++d) {
    const auto dir = static_cast<Direction>(d);
    if (!has(dir)) continue;
    if (!staged && !send_line(sub_, dir).is_row) {
      pack(u, dir, -1, send_[static_cast<size_t>(d)].data());
    }
    comm.start(d, standing_sends_[static_cast<size_t>(d)]);
  }
  for (int d = 0; d < harness::kDirections; ++d) {
    const auto dir = static_cast<Direction>(d);
    if (neighbour(opposite(dir)) == kNoPeer) continue;
    comm.complete(d, standing_receives_[static_cast<size_t>(d)]);
    if (!staged && !halo_line(sub_, dir).is_row) {
      unpack(u, dir, -1, recv_[static_cast<size_t>(d)].data());
    }
  }
  for (int d = 0; d < harness::kDirections; ++d) {
    if (has(static_cast<Direction>(d))) comm.complete(d, standing_sends_[static_cast<size_t>(d)]);
  }
}

void HaloExchange::exchange_all(harness::InstrumentedComm& comm, Field& u) {
  exchange(comm, u, -1, false);
}

void HaloExchange::stage_columns(const Field& u) {
  const size_t ny = static_cast<size_t>(sub_.ny);
  west_out_.assign(ny, 0.0);
  east_out_.assign(ny, 0.0);
  west_in_.assign(ny, 0.0);
  east_in_.assign(ny, 0.0);
  for (int j = 1; j <= sub_.ny; ++j) {
    west_out_[static_cast<size_t>(j - 1)] = u.at(1, j);
    east_out_[static_cast<size_t>(j - 1)] = u.at(sub_.nx, j);
    west_in_[static_cast<size_t>(j - 1)] = u.at(0, j);
    east_in_[static_cast<size_t>(j - 1)] = u.at(sub_.nx + 1, j);
  }
}

ColumnBorders HaloExchange::column_borders() {
  ColumnBorders b;
  if (has(Direction::left)) {
    b.west_in = west_in_.data();
    b.west_out = west_out_.data();
  }
  if (has(Direction::right)) {
    b.east_in = east_in_.data();
    b.east_out = east_out_.data();
  }
  return b;
}

void HaloExchange::exchange_staged(harness::InstrumentedComm& comm, Field& u) {
  exchange(comm, u, -1, true);
}

void HaloExchange::unstage_columns(Field& u) const {
  for (int j = 1; j <= sub_.ny; ++j) {
    if (has(Direction::left)) u.at(0, j) = west_in_[static_cast<size_t>(j - 1)];
    if (has(Direction::right)) u.at(sub_.nx + 1, j) = east_in_[static_cast<size_t>(j - 1)];
  }
}

void HaloExchange::exchange_colour(harness::InstrumentedComm& comm, Field& u, int colour) {
  exchange(comm, u, colour, false);
}

}  // namespace mcb::poisson
