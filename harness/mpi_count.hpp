#pragma once
/// @file
/// @brief Byte counts handed to MPI, whose counts are int.

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace mcb::harness {

/// @brief @p bytes as an MPI count; a message too large for one MPI_BYTE count throws rather
/// than wrapping around.
inline int as_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw std::length_error("message of " + std::to_string(bytes) +
                            " bytes exceeds MPI's int count");
  }
  return static_cast<int>(bytes);
}

}  // namespace mcb::harness
