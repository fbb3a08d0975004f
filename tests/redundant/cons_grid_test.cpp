// Grids on which co-allocation under conservative backfilling used to run for ever (a part
// holding its processors past its planned end made the plan re-place the jobs behind it at
// every wake-up): each run now ends, with its verdict. The stop-and-wait and resubmission
// runs on 6x48 end in a true deadlock (two holding parts, each waiting on the other's site).
#include "redundant/grid.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace mcb::redundant {
namespace {

struct HangCase {
  std::string name;
  std::vector<int> sites;
  Sync sync;
  std::uint64_t seed, jobs, warmup;
  std::string verdict;
};

void PrintTo(const HangCase& c, std::ostream* os) { *os << c.name; }

const std::string kDeadlock =
    "a co-allocated job never got both parts (its parts waited on each other)";

class ConsGrid : public testing::TestWithParam<HangCase> {};

TEST_P(ConsGrid, EndsWithItsVerdict) {
  const HangCase& h = GetParam();
  GridConfig c;
  c.sites = h.sites;
  c.backfilling = true;
  c.local_load = 0.6;
  c.sync = h.sync;
  c.ranker = "random";
  c.duplicates = 0;
  c.seed = h.seed;
  c.global_jobs = h.jobs;
  c.warmup_jobs = h.warmup;
  const GridResult r = run_grid(c);
  EXPECT_EQ(r.verdict, h.verdict);
  if (r.valid) {  // a deadlock leaves jobs waiting (and piling up) behind it
    EXPECT_FALSE(r.saturated);
    EXPECT_EQ(r.global_done, h.jobs);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Hung, ConsGrid,
    testing::Values(HangCase{"s8x48_stop_and_wait_350", std::vector<int>(8, 48),
                             Sync::stop_and_wait, 41, 350, 0, "VALID"},
                    HangCase{"s8x48_resubmission_1200", std::vector<int>(8, 48), Sync::resubmission,
                             41, 1200, 0, "VALID"},
                    HangCase{"s4x64_stop_and_wait_230", std::vector<int>(4, 64),
                             Sync::stop_and_wait, 1, 230, 0, "VALID"},
                    HangCase{"s6x48_stop_and_wait_1200", std::vector<int>(6, 48),
                             Sync::stop_and_wait, 41, 1200, 120, kDeadlock},
                    HangCase{"s6x48_hibernation_1200", std::vector<int>(6, 48), Sync::hibernation,
                             41, 1200, 120, "VALID"},
                    HangCase{"s6x48_resubmission_1200", std::vector<int>(6, 48), Sync::resubmission,
                             41, 1200, 120, kDeadlock}),
    [](const testing::TestParamInfo<HangCase>& info) { return info.param.name; });

}  // namespace
}  // namespace mcb::redundant
