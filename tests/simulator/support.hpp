#pragma once
// Helpers shared by the simulator's unit tests: the one-line message of a rejected input, and
// a temporary input file.

#include "common/errors.hpp"
#include "tests/support/refusal.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace mcb::sim::test {

// The message of the UsageError f throws; empty when it throws none.
using mcb::testing::error_of;

// A file holding @p text in the temporary directory, removed when the object goes.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_((std::filesystem::temp_directory_path() /
               ("mcb_sim_" + std::to_string(::getpid()) + "_" + name))
                  .string()) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace mcb::sim::test
