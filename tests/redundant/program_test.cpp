// mcb-redundant as a user runs it: a small study writes its table and says VALID; bad input
// ends with exit code 2 and one line naming the option and value, and writes nothing.
#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace mcb::testing {
namespace {

TEST(Program, SmallStudyWritesItsTable) {
  TempDir dir;
  const auto r = run_command(bin("mcb-redundant") +
                             " --rankers qlen,ideal-min --duplicates 0:1 --replications 2"
                             " --jobs 200 --warmup 20 --queue cons --output " +
                             quote(dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("VALID;"), std::string::npos) << r.out;
  const std::string csv = slurp(dir / "out/redundant.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 2 * 2) << csv;
  EXPECT_NE(slurp(dir / "out/redundant.json").find("\"with_duplicates_jobs_per_second\""),
            std::string::npos);
}

TEST(Program, CoAllocationStudyWritesItsColumns) {
  TempDir dir;
  const auto r = run_command(bin("mcb-redundant") +
                             " --rankers qlen --duplicates 0 --replications 1 --jobs 200"
                             " --warmup 20 --queue cons --sync stop-and-wait,hibernation"
                             " --coalloc-lower 0.5 --output " +
                             quote(dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cons hibernation qlen d=0"), std::string::npos) << r.out;
  const std::string csv = slurp(dir / "out/redundant.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2) << csv;
  EXPECT_NE(csv.find("coalloc_hold_mean"), std::string::npos);
  EXPECT_NE(csv.find(",stop-and-wait,0.5,"), std::string::npos) << csv;
}

class BadRedundantInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadRedundantInput, ExitsTwoWithOneLine) { expect_usage_error("mcb-redundant", GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Options, BadRedundantInput,
    ::testing::Values(
        BadInput{"1|--duplicates 3:1", "--duplicates: '3:1'"},
        BadInput{"1|--duplicates two", "--duplicates: 'two'"}, BadInput{"1|--queue easy", "easy"},
        BadInput{"1|--rankers qlen,best", "best"},
        BadInput{"1|--local-load 1.2", "--local-load: '1.2'"},
        BadInput{"1|--global-load -1", "--global-load"}, BadInput{"1|--clusters 8x0", "8x0"},
        BadInput{"1|--sizes 1,x", "--sizes: '1,x'"}, BadInput{"1|--sizes 128", "--sizes: '128'"},
        BadInput{"1|--jobs 10 --warmup 10", "--warmup: '10'"},
        BadInput{"1|--estimate-max 0.5", "--estimate-max: '0.5'"},
        BadInput{"1|--cancel-cost -1", "--cancel-cost"},
        BadInput{"1|--replications 0", "--replications"}, BadInput{"1|--sync wait", "wait"},
        BadInput{"1|--sync stop-and-wait,,hibernation", "--sync"},
        BadInput{"1|--coalloc-lower 0", "--coalloc-lower: '0'"},
        BadInput{"1|--coalloc-lower 1.5", "--coalloc-lower: '1.5'"},
        BadInput{"1|--sync hibernation --clusters 64,16", "--sizes"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return std::to_string(info.index); });

}  // namespace
}  // namespace mcb::testing
