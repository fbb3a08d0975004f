#include "apps/ensflow/layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mcb::ensflow {

EnsembleLayout::EnsembleLayout(int members, int ranks, std::size_t state_size,
                               std::size_t block_rows)
    : members_(members),
      ranks_(ranks),
      state_size_(state_size),
      block_rows_(block_rows),
      blocks_((state_size + block_rows - 1) / block_rows) {
  if (members < 1 || ranks < 1 || members % ranks != 0) {
    throw std::invalid_argument(std::to_string(ranks) + " processes do not divide " +
                                std::to_string(members) + " members");
  }
  if (block_rows == 0) throw std::invalid_argument("blocks of zero rows");
}

std::size_t EnsembleLayout::block_end(std::size_t block) const {
  return std::min(state_size_, (block + 1) * block_rows_);
}

std::size_t EnsembleLayout::first_block(int rank) const {
  return blocks_ * static_cast<std::size_t>(rank) / static_cast<std::size_t>(ranks_);
}

std::size_t EnsembleLayout::row_begin(int rank) const {
  return std::min(state_size_, first_block(rank) * block_rows_);
}

std::size_t EnsembleLayout::row_end(int rank) const { return row_begin(rank + 1); }

std::vector<int> valid_process_counts(int members) {
  std::vector<int> counts;
  for (int p = 1; p <= members; ++p) {
    if (members % p == 0) counts.push_back(p);
  }
  return counts;
}

}  // namespace mcb::ensflow
