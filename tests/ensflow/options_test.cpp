// mcb-ensflow's options as the library parses them: --walls is typed at parse time, so a bad
// value is refused as --walls whether it came from the command line or a --config file (whose
// file and line are named too), and the value given reaches the model. A campaign spec's value
// goes through the program's --check: tests/jobscripts/unit_test.cpp.
#include "apps/ensflow/options.hpp"
#include "tests/support/inputs.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mcb::ensflow {
namespace {

// The options parsed from @p args (after the program name) for a one-process run.
EnsflowConfig parsed(std::vector<std::string> args) {
  args.insert(args.begin(), "mcb-ensflow");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  EnsflowConfig config;
  parse_options(static_cast<int>(argv.size()), argv.data(), 1, /*is_root=*/false, config);
  return config;
}

TEST(EnsflowOptions, WallsReachTheModel) {
  EXPECT_TRUE(parsed({}).settings.model.no_slip);
  EXPECT_EQ(parsed({}).options.walls, Walls::no_slip);
  EXPECT_FALSE(parsed({"--walls", "free-slip"}).settings.model.no_slip);
  EXPECT_TRUE(parsed({"--walls", "no-slip"}).settings.model.no_slip);
  testing::TempDir dir;
  const std::string ini = testing::write(dir, "run.ini", "walls = free-slip\n");
  EXPECT_FALSE(parsed({"--config", ini}).settings.model.no_slip);
  EXPECT_EQ(walls_name(Walls::free_slip), "free-slip");
}

TEST(EnsflowOptions, WallsRefusedAsTheOptionFromTheCommandLineAndAConfigFile) {
  const std::string expected = "--walls: 'sticky' is not one of no-slip, free-slip";
  EXPECT_EQ(testing::error_of([] { parsed({"--walls", "sticky"}); }), expected);
  EXPECT_EQ(testing::error_of([] { parsed({"--walls=sticky"}); }), expected);
  testing::TempDir dir;
  const std::string ini = testing::write(dir, "run.ini", "grid = 15\nwalls = sticky\n");
  // From a file, the refusal names the file and line too.
  EXPECT_EQ(testing::error_of([&] {
              parsed({"--config", ini});
            }),
            "--config: " + ini + ":2: " + expected);
}

}  // namespace
}  // namespace mcb::ensflow
