#pragma once
/// @file
/// @brief The h x v process grid of the measurement study: h processes across, v up, ranks
/// numbered in column-major order (rank = column * v + row, row 0 at the bottom), as in the
/// DAS-2 paper's Figure 1.

#include <string>
#include <string_view>

namespace mcb::harness {

/// @brief Neighbour directions, in the order the border exchange performs them.
enum class Direction { top = 0, bottom = 1, left = 2, right = 3 };
inline constexpr int kDirections = 4;
inline constexpr const char* kDirectionNames[kDirections] = {"top", "bottom", "left", "right"};

/// @brief An h x v process grid.
class ProcessGrid {
 public:
  ProcessGrid(int h, int v);

  /// @brief Parses "HxV" (e.g. "4x4"). @throws std::invalid_argument with the reason.
  static ProcessGrid parse(std::string_view text);

  int h() const { return h_; }  //!< processes in the horizontal direction (columns)
  int v() const { return v_; }  //!< processes in the vertical direction (rows)
  int size() const { return h_ * v_; }
  int column(int rank) const { return rank / v_; }
  int row(int rank) const { return rank % v_; }
  int rank_at(int column, int row) const { return column * v_ + row; }

  /// @brief Rank of the neighbour in @p d, or -1 at the edge of the grid.
  int neighbour(int rank, Direction d) const;

  std::string to_string() const;  //!< "HxV"

 private:
  int h_;
  int v_;
};

}  // namespace mcb::harness
