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
  send_.resize(longest);
  recv_.resize(longest);
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

void HaloExchange::step(harness::InstrumentedComm& comm, Field& u, Direction d, int colour) {
  const int dest = neighbour_[static_cast<size_t>(d)];
  const int src = neighbour_[static_cast<size_t>(opposite(d))];
  const int channel = static_cast<int>(d);
  const Line out = send_line(sub_, d);
  const Line in = halo_line(sub_, d);
  // Whole rows go straight from and into the field; columns and colour subsets are packed.
  const double* send = send_.data();
  int send_count = 0;
  if (dest != kNoPeer) {
    if (out.is_row && colour < 0) {
      send = u.row(out.index) + 1;
      send_count = sub_.nx;
    } else {
      send_count = pack(u, d, colour, send_.data());
    }
  }
  const bool direct_recv = in.is_row && colour < 0;
  double* recv = direct_recv ? u.row(in.index) + 1 : recv_.data();
  const int recv_capacity = in.is_row ? sub_.nx : sub_.ny;
  comm.sendrecv(channel, send, sizeof(double) * static_cast<size_t>(send_count), dest, recv,
                src == kNoPeer ? 0 : sizeof(double) * static_cast<size_t>(recv_capacity), src,
                kHaloTag + channel);
  if (src != kNoPeer && !direct_recv) unpack(u, d, colour, recv_.data());
}

void HaloExchange::exchange_all(harness::InstrumentedComm& comm, Field& u) {
  for (int d = 0; d < harness::kDirections; ++d) step(comm, u, static_cast<Direction>(d), -1);
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
  step(comm, u, Direction::top, -1);
  step(comm, u, Direction::bottom, -1);
  const size_t bytes = sizeof(double) * static_cast<size_t>(sub_.ny);
  // Step left: our column 1 goes left, the right neighbour's column 1 becomes our east halo.
  comm.sendrecv(static_cast<int>(Direction::left), west_out_.data(),
                has(Direction::left) ? bytes : 0, neighbour(Direction::left), east_in_.data(),
                has(Direction::right) ? bytes : 0, neighbour(Direction::right),
                kHaloTag + static_cast<int>(Direction::left));
  comm.sendrecv(static_cast<int>(Direction::right), east_out_.data(),
                has(Direction::right) ? bytes : 0, neighbour(Direction::right), west_in_.data(),
                has(Direction::left) ? bytes : 0, neighbour(Direction::left),
                kHaloTag + static_cast<int>(Direction::right));
}

void HaloExchange::unstage_columns(Field& u) const {
  for (int j = 1; j <= sub_.ny; ++j) {
    if (has(Direction::left)) u.at(0, j) = west_in_[static_cast<size_t>(j - 1)];
    if (has(Direction::right)) u.at(sub_.nx + 1, j) = east_in_[static_cast<size_t>(j - 1)];
  }
}

void HaloExchange::exchange_colour(harness::InstrumentedComm& comm, Field& u, int colour) {
  for (int d = 0; d < harness::kDirections; ++d) step(comm, u, static_cast<Direction>(d), colour);
}

}  // namespace mcb::poisson
