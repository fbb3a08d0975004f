#include "apps/ensflow/layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mcb::ensflow {

EnsembleLayout::EnsembleLayout(int members, int ranks, std::size_t state_size,
                               std::size_t block_rows, bool regional)
    : members_(members),
      ranks_(ranks),
      state_size_(state_size),
      block_rows_(block_rows),
      blocks_(block_rows == 0 ? 0 : (state_size + block_rows - 1) / block_rows),
      regional_(regional) {
  if (members < 1 || ranks < 1 || members % ranks != 0) {
    throw std::invalid_argument(std::to_string(ranks) + " processes do not divide " +
                                std::to_string(members) + " members");
  }
  if (block_rows == 0) throw std::invalid_argument("blocks of zero rows");
  owned_.resize(static_cast<std::size_t>(ranks));
  rows_.assign(static_cast<std::size_t>(ranks), 0);
}

EnsembleLayout::EnsembleLayout(int members, int ranks, std::size_t state_size,
                               std::size_t block_rows)
    : EnsembleLayout(members, ranks, state_size, block_rows, false) {
  const auto p = static_cast<std::size_t>(ranks);
  for (std::size_t r = 0; r < p; ++r) {
    for (std::size_t b = blocks_ * r / p; b < blocks_ * (r + 1) / p; ++b) {
      owned_[r].push_back(b);
      rows_[r] += block_end(b) - block_begin(b);
    }
  }
}

EnsembleLayout EnsembleLayout::regional(int members, int ranks, int grid, int layers) {
  if (grid < 1 || layers < 1 || ranks > grid) {
    throw std::invalid_argument("a regional layout of " + std::to_string(grid) +
                                " grid rows cannot give each of " + std::to_string(ranks) +
                                " processes a row");
  }
  const auto g = static_cast<std::size_t>(grid);
  EnsembleLayout out(members, ranks, g * g * static_cast<std::size_t>(layers), g, true);
  for (int r = 0; r < ranks; ++r) {
    const auto ru = static_cast<std::size_t>(r);
    for (int l = 0; l < layers; ++l) {
      for (std::size_t j = out.first_grid_row(r); j < out.end_grid_row(r); ++j) {
        out.owned_[ru].push_back(static_cast<std::size_t>(l) * g + j);
        out.rows_[ru] += g;
      }
    }
  }
  return out;
}

std::size_t EnsembleLayout::block_end(std::size_t block) const {
  return std::min(state_size_, (block + 1) * block_rows_);
}

const std::vector<std::size_t>& EnsembleLayout::owned_blocks(int rank) const {
  return owned_.at(static_cast<std::size_t>(rank));
}

std::size_t EnsembleLayout::rows(int rank) const {
  return rows_.at(static_cast<std::size_t>(rank));
}

std::size_t EnsembleLayout::first_grid_row(int rank) const {
  if (!regional_) return 0;
  return block_rows_ * static_cast<std::size_t>(rank) / static_cast<std::size_t>(ranks_);
}

std::size_t EnsembleLayout::end_grid_row(int rank) const {
  if (!regional_) return 0;
  return block_rows_ * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(ranks_);
}

std::vector<int> valid_process_counts(int members) {
  std::vector<int> counts;
  for (int p = 1; p <= members; ++p) {
    if (members % p == 0) counts.push_back(p);
  }
  return counts;
}

}  // namespace mcb::ensflow
