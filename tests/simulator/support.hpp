#pragma once
// Helpers shared by the simulator's unit tests: the one-line message of a rejected input, a
// temporary input file, and a trace on a machine.

#include "common/errors.hpp"
#include "simulator/trace_source.hpp"
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

// The DAS2 excerpt among the fixtures: an SWF trace of a few hundred jobs.
inline const std::string kExcerpt =
    std::string(MCB_FIXTURES_DIR) + "/traces/DAS2-fs1-2003-1-excerpt.swf";

// The trace at @p path on the machine @p clusters (--clusters), split by @p rule.
inline TraceSpec spec_for(const std::string& path, const std::string& clusters,
                          Rule rule = Rule::kNo) {
  TraceSpec s;
  s.path = path;
  s.machine = parse_clusters(clusters);
  s.rule = rule;
  s.component_limit = s.machine.smallest() / 2;
  return s;
}

}  // namespace mcb::sim::test
