#pragma once
/// @file
/// @brief Who holds what. Between analyses each process holds whole members: M / P
/// consecutive members (the paper's even distribution; P must divide M). For the analysis the
/// state rows are cut into fixed blocks, and each process owns some blocks for all members (the
/// transposed layout). Two layouts:
///  - gathered: blocks of kBlockRows rows, each process a consecutive range of them (the
///    global analysis and the stochastic filter, which need every observation anyway);
///  - regional: blocks of one grid row of one layer, each process a band of grid rows in every
///    layer (a horizontal region), so that a local analysis (LETKF) needs only the observations
///    near its band.
/// The blocks do not depend on P, so every block's update is the same computation whatever the
/// process count.

#include <cstddef>
#include <vector>

namespace mcb::ensflow {

/// @brief Rows per block of the gathered layout: small enough that 60 processes all get rows of
/// the default grid, large enough for an efficient matrix product.
inline constexpr std::size_t kBlockRows = 64;

class EnsembleLayout {
 public:
  /// @brief The gathered layout. @throws std::invalid_argument unless ranks divides members.
  EnsembleLayout(int members, int ranks, std::size_t state_size,
                 std::size_t block_rows = kBlockRows);

  /// @brief The regional layout of a @p grid x @p grid state of @p layers layers: rank r owns
  /// grid rows [grid r / P, grid (r + 1) / P) of every layer. @throws std::invalid_argument
  /// unless ranks divides members and ranks <= grid.
  static EnsembleLayout regional(int members, int ranks, int grid, int layers);

  bool is_regional() const { return regional_; }
  int members() const { return members_; }
  int ranks() const { return ranks_; }
  std::size_t state_size() const { return state_size_; }
  int members_per_rank() const { return members_ / ranks_; }
  int first_member(int rank) const { return rank * members_per_rank(); }

  std::size_t blocks() const { return blocks_; }
  std::size_t block_begin(std::size_t block) const { return block * block_rows_; }
  std::size_t block_end(std::size_t block) const;
  /// @brief The blocks rank r owns, ascending; its slice holds their rows in this order.
  const std::vector<std::size_t>& owned_blocks(int rank) const;
  /// @brief How many state rows rank r holds in the transposed layout.
  std::size_t rows(int rank) const;
  /// @brief Rank r's grid rows [first, last) in the regional layout (0, 0 when gathered).
  std::size_t first_grid_row(int rank) const;
  std::size_t end_grid_row(int rank) const;

 private:
  EnsembleLayout(int members, int ranks, std::size_t state_size, std::size_t block_rows,
                 bool regional);
  int members_;
  int ranks_;
  std::size_t state_size_;
  std::size_t block_rows_;
  std::size_t blocks_;
  bool regional_ = false;
  std::vector<std::vector<std::size_t>> owned_;  // per rank
  std::vector<std::size_t> rows_;                // per rank
};

/// @brief The process counts that divide @p members, ascending ("1 2 3 4 5 6 10 ...").
std::vector<int> valid_process_counts(int members);

}  // namespace mcb::ensflow
