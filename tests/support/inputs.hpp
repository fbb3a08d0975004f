#pragma once
// Helpers for tests that hand a reader a file: write it into a TempDir byte for byte, and catch
// the one-line refusal (mcb::UsageError) that bad input must end with (refusal.hpp).

#include "tests/support/command.hpp"
#include "tests/support/refusal.hpp"

#include <fstream>
#include <string>

namespace mcb::testing {

// Writes @p text to @p name in @p dir as is (binary: no newline translation); returns the path.
inline std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace mcb::testing
