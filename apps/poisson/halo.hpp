#pragma once
/// @file
/// @brief The border exchange of the Poisson solver: four consecutive steps, top, bottom, left,
/// right; in each step every process sends its border in that direction and receives the
/// opposite neighbour's border into its halo (so in step "left" a process waits for the
/// border of its right neighbour, as in the paper's Figure 10).

#include "apps/poisson/decomposition.hpp"
#include "apps/poisson/kernels.hpp"
#include "harness/comm.hpp"
#include "harness/grid.hpp"

#include <array>
#include <vector>

namespace mcb::poisson {

class HaloExchange {
 public:
  HaloExchange(const Subdomain& sub, const harness::ProcessGrid& grid, int rank);

  /// @brief Whole borders (the paper's one exchange per iteration).
  void exchange_all(harness::InstrumentedComm& comm, Field& u);

  /// @brief Only the border points of @p colour (exact mode, after that colour's update).
  void exchange_colour(harness::InstrumentedComm& comm, Field& u, int colour);

  /// @brief Staged columns (paper mode with the tuned sweep): the left and right borders travel
  /// between contiguous buffers that the sweep fills and reads (see ColumnBorders), so no
  /// strided packing is left in the exchange. Call stage_columns() once after the halos are
  /// set, then alternate sweep_both_tuned(..., column_borders()) and exchange_staged(); call
  /// unstage_columns() at the end to put the last received columns into the field's halo.
  void stage_columns(const Field& u);
  ColumnBorders column_borders();
  void exchange_staged(harness::InstrumentedComm& comm, Field& u);
  void unstage_columns(Field& u) const;

  /// @brief Neighbour rank in each direction, or harness::kNoPeer.
  int neighbour(harness::Direction d) const { return neighbour_[static_cast<int>(d)]; }

 private:
  // colour < 0 means all points.
  void step(harness::InstrumentedComm& comm, Field& u, harness::Direction d, int colour);
  bool has(harness::Direction d) const { return neighbour(d) != harness::kNoPeer; }
  int pack(const Field& u, harness::Direction d, int colour, double* out) const;
  void unpack(Field& u, harness::Direction d, int colour, const double* in) const;

  Subdomain sub_;
  std::array<int, harness::kDirections> neighbour_{};
  std::vector<double> send_;
  std::vector<double> recv_;
  // Staged columns, index j - 1 for local row j.
  std::vector<double> west_out_, east_out_, west_in_, east_in_;
};

}  // namespace mcb::poisson
