#pragma once
// Helpers for tests that hand a reader a file: write it into a TempDir byte for byte, and catch
// the one-line refusal (mcb::UsageError) that bad input must end with.

#include "common/errors.hpp"
#include "tests/support/command.hpp"

#include <fstream>
#include <functional>
#include <string>

namespace mcb::testing {

// Writes @p text to @p name in @p dir as is (binary: no newline translation); returns the path.
inline std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The message of the UsageError @p f throws ("" when it throws none).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace mcb::testing
