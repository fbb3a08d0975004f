#pragma once
// What every harness shares: the fuzzer's bytes as a file (the parsers read files, as the
// programs do), and the promise under test: bad input ends in UsageError (exit 2, one line),
// never in another exception, a crash or a sanitizer report.
#include "common/errors.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>

namespace mcb::fuzz {

// A file holding the input, rewritten for every input; one per process.
inline const std::string& input_file(const char* suffix) {
  static const std::string path = [&] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/mcb-fuzz-" + std::to_string(::getpid()) +
           suffix;
  }();
  static const bool removed_at_exit = [] {
    std::atexit([] { std::remove(path.c_str()); });
    return true;
  }();
  (void)removed_at_exit;
  return path;
}

inline const std::string& write_input(const uint8_t* data, size_t size, const char* suffix) {
  const std::string& path = input_file(suffix);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// Runs @p parse; UsageError is the right answer to bad input, anything else is a finding.
template <class F>
void expect_usage_errors_only(F&& parse) {
  try {
    parse();
  } catch (const UsageError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a UsageError: %s\n", e.what());
    std::abort();
  }
}

}  // namespace mcb::fuzz
