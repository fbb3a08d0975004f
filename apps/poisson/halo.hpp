#pragma once
/// @file
/// @brief The border exchange of the Poisson solver: in each of the four directions, top, bottom,
/// left, right, every process sends its border that way and receives the opposite neighbour's
/// border into its halo (so direction "left" brings the border of the right neighbour, as in
/// the paper's Figure 10). The borders and halos of different directions are disjoint, so all
/// eight messages are posted at once and travel together; the waits are then completed
/// direction by direction, receives first, and each is booked to its direction: the time
/// booked to "left" is how long the rank still waited for its right neighbour's border once
/// the top and bottom ones were in. Whole-border exchanges over plain MPI use persistent
/// requests (MPI_Send_init, MPI_Recv_init), set up on first use and started each time, so
/// each exchange skips the per-message setup.

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
  ~HaloExchange();
  // The persistent requests point into this object and the field: neither copied nor moved.
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  /// @brief Whether whole-border exchanges over plain MPI use persistent requests (default
  /// true); false posts every message afresh (wan_bench compares the two).
  void set_persistent(bool on);

  /// @brief Whole borders (the paper's one exchange per iteration).
  void exchange_all(harness::InstrumentedComm& comm, Field& u);

  /// @brief Only the border points of @p colour (exact mode, after that colour's update).
  void exchange_colour(harness::InstrumentedComm& comm, Field& u, int colour);

  /// @brief The same exchange in two halves, so that computation can run between them
  /// (--halo overlap): post_colour() posts the receives and sends the border points of
  /// @p colour as they are now; complete_colour() waits, books the waits as exchange_colour()
  /// does, and writes the received points into the halo. Nothing may read the halo, change
  /// the border, or post another exchange in between.
  void post_colour(harness::InstrumentedComm& comm, Field& u, int colour);
  void complete_colour(harness::InstrumentedComm& comm, Field& u, int colour);

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
  // Posts every direction's receive and send, then completes them (colour < 0: all points;
  // staged: the columns travel between the staged buffers).
  void exchange(harness::InstrumentedComm& comm, Field& u, int colour, bool staged);
  void post(harness::InstrumentedComm& comm, Field& u, int colour, bool staged);
  void finish(harness::InstrumentedComm& comm, Field& u, int colour, bool staged);
  // The buffer each direction receives into and sends from (count: the points sent), packing
  // the send when it must.
  double* receive_buffer(Field& u, harness::Direction d, int colour, bool staged);
  const double* send_buffer(const Field& u, harness::Direction d, int colour, bool staged,
                            int& count);
  // The same exchange over persistent requests, set up on first use for this communicator,
  // field and mode.
  void exchange_persistent(harness::InstrumentedComm& comm, Field& u, bool staged);
  void release_persistent();
  bool has(harness::Direction d) const { return neighbour(d) != harness::kNoPeer; }
  int pack(const Field& u, harness::Direction d, int colour, double* out) const;
  void unpack(Field& u, harness::Direction d, int colour, const double* in) const;

  Subdomain sub_;
  std::array<int, harness::kDirections> neighbour_{};
  // Packed lines (columns and colour subsets), one per direction, as all are in flight at once.
  std::array<std::vector<double>, harness::kDirections> send_;
  std::array<std::vector<double>, harness::kDirections> recv_;
  std::array<harness::InstrumentedComm::Batch, harness::kDirections> sends_, receives_;
  // Persistent requests and what they were set up for.
  bool use_persistent_ = true;
  std::array<harness::InstrumentedComm::Batch, harness::kDirections> standing_sends_,
      standing_receives_;
  MPI_Comm standing_comm_ = MPI_COMM_NULL;
  const double* standing_field_ = nullptr;
  bool standing_staged_ = false;
  // Staged columns, index j - 1 for local row j.
  std::vector<double> west_out_, east_out_, west_in_, east_in_;
};

}  // namespace mcb::poisson
