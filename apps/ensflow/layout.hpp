#pragma once
/// @file
/// @brief Who holds what. Between analyses each process holds whole members: M / P
/// consecutive members (the paper's even distribution; P must divide M). For the analysis the
/// state rows are cut into fixed blocks of kBlockRows rows, and each process owns a
/// consecutive range of blocks for all members (the transposed layout). The blocks do not
/// depend on P, so every block's update is the same computation whatever the process count.

#include <cstddef>
#include <vector>

namespace mcb::ensflow {

/// @brief Rows per block of the transposed layout: small enough that 60 processes all get
/// rows of the default grid, large enough for an efficient matrix product.
inline constexpr std::size_t kBlockRows = 64;

class EnsembleLayout {
 public:
  /// @throws std::invalid_argument unless ranks divides members.
  EnsembleLayout(int members, int ranks, std::size_t state_size,
                 std::size_t block_rows = kBlockRows);

  int members() const { return members_; }
  int ranks() const { return ranks_; }
  std::size_t state_size() const { return state_size_; }
  int members_per_rank() const { return members_ / ranks_; }
  int first_member(int rank) const { return rank * members_per_rank(); }

  std::size_t blocks() const { return blocks_; }
  std::size_t block_begin(std::size_t block) const { return block * block_rows_; }
  std::size_t block_end(std::size_t block) const;
  /// @brief Blocks [first_block(r), first_block(r + 1)) belong to rank r.
  std::size_t first_block(int rank) const;
  /// @brief The rows rank r holds in the transposed layout: [row_begin, row_end).
  std::size_t row_begin(int rank) const;
  std::size_t row_end(int rank) const;
  std::size_t rows(int rank) const { return row_end(rank) - row_begin(rank); }

 private:
  int members_;
  int ranks_;
  std::size_t state_size_;
  std::size_t block_rows_;
  std::size_t blocks_;
};

/// @brief The process counts that divide @p members, ascending ("1 2 3 4 5 6 10 ...").
std::vector<int> valid_process_counts(int members);

}  // namespace mcb::ensflow
