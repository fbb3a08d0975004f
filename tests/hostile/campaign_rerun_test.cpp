// A campaign whose runs all failed, run again: it must point to --retry-failed instead of only
// saying that everything is recorded.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/command.hpp"

namespace mcb::testing {
namespace {

TEST(HostileCampaign, ARerunOfFailedRunsPointsToTheRetryOption) {
  TempDir dir;
  const std::string spec = dir / "s.ini";
  // The cluster map names a variable that is unset: only the run can see that, so the spec is
  // accepted and the run is recorded as failed at once. Open MPI's root permission comes from
  // the spec, so the test does not depend on the caller's environment.
  std::ofstream(spec) << "name = rerun\napp = poisson\nbinary = " << bin("mcb-poisson")
                      << "\nfolder = " << (dir / "campaign")
                      << "\nenv = OMPI_ALLOW_RUN_AS_ROOT=1\nenv = OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
                      << "\n[options]\ncounters = \"\"\ngrid = 16\nprocs = 2x1\n"
                      << "cluster-map = env:MCB_TEST_UNSET\n";
  const std::string run = bin("mcb-campaign") + " run " + quote(spec) + " --progress lines";
  const auto first = run_command(run);
  ASSERT_EQ(first.exit_code, 1) << first.out << first.err;
  const auto again = run_command(run);
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("1 runs, 1 already recorded, 0 to run"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("1 recorded run(s) failed; mcb-campaign run --retry-failed runs them "
                           "again"),
            std::string::npos)
      << again.out;
}

}  // namespace
}  // namespace mcb::testing
