// mcb-sim --platform --job-model: each job priced by its own fitted seed 002 model
// (job_models.csv of mcb-calibrate --job-model) instead of the global --pnbw and --comm-share.
#include "common/csv.hpp"
#include "tests/support/command.hpp"
#include "tests/support/inputs.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

using mcb::testing::slurp;
using mcb::testing::TempDir;
using mcb::testing::write;

const std::string kBin = std::string(MCB_BIN_DIR) + "/mcb-sim";

// Two clusters of 4 nodes at availability 0.8 (SP = 1.25), each behind a link of 1 MB/s; every
// job is synth of 4 processors split 2 + 2, 100 s on one cluster, arriving days apart.
struct PricedRun {
  TempDir dir;
  std::string args;
  PricedRun() {
    write(dir, "mix.ini", "[synth]\nsizes = 4\nexclude = 4x1\n");
    write(dir, "rt.csv",
          "app,problem,total_size,components,system,n,min,avg,max,median,stddev\n"
          "synth,p,4,1,local,1,100,100,100,100,\nsynth,p,4,2,local,1,100,100,100,100,\n");
    const std::string cluster = "nodes = 4\navailability = 0.8 0.8 0.8 0.8\nlink_max = 1\n";
    write(dir, "p.ini", "[cluster.a]\n" + cluster + "[cluster.b]\n" + cluster);
    args = "--clusters 2x4 --rule co --workload " + (dir / "mix.ini") + " --tables " +
           (dir / "rt.csv") + " --platform " + (dir / "p.ini") + " --rate 1e-6 --jobs 3 ";
  }
  mcb::testing::CommandResult sim(const std::string& more, const std::string& out) const {
    return mcb::testing::run_command(kBin + " " + args + more + " --output " + (dir / out));
  }
};

std::vector<std::vector<std::string>> rows(const std::string& csv) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) out.push_back(mcb::csv::split(line));
  return out;
}

TEST(JobModel, PricesEachJobAsItsFittedModelSays) {
  PricedRun s;
  // T^p 3, T^c 1, PNBW 1.5 MB/s: eq. 4 on each link 2 x 1.5 x 2/3 = 2 MB/s, SC = 2 / 1;
  // T / (T^p + T^c) = (3 x 1.25 + 1 x 2) / 4 = 1.4375 of the 100 s on one cluster.
  write(s.dir, "m.csv",
        "app,problem,total_size,tp,tc,pnbw,dedicated_runs,fitted_runs,"
        "median_abs_relative_error\nsynth,p,4,3,1,1.5,2,4,0.1\n");
  const auto r = s.sim("--job-model " + (s.dir / "m.csv"), "fit");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto jobs = rows(slurp(s.dir / "fit/jobs.csv"));
  ASSERT_EQ(jobs.size(), 4u);
  ASSERT_EQ(jobs[0][12], "service");
  for (std::size_t i = 1; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i][10], "0:2;1:2");
    EXPECT_DOUBLE_EQ(std::stod(jobs[i][12]), 143.75) << i;
  }
  EXPECT_NE(slurp(s.dir / "fit/summary.json").find("\"job_model\""), std::string::npos);
  // The same model through the global options prices the same schedule, byte for byte.
  const auto g = s.sim("--pnbw 1.5 --comm-share 0.25", "global");
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(slurp(s.dir / "global/jobs.csv"), slurp(s.dir / "fit/jobs.csv"));
}

TEST(JobModel, RefusesAModelThatLacksAJobOrGoesWithTheGlobalOptions) {
  PricedRun s;
  write(s.dir, "m.csv",
        "app,problem,total_size,tp,tc,pnbw,dedicated_runs,fitted_runs,"
        "median_abs_relative_error\nsynth,p,8,3,1,1.5,2,4,0.1\n");
  auto r = s.sim("--job-model " + (s.dir / "m.csv"), "a");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "mcb-sim: --job-model: " + (s.dir / "m.csv") +
                       ": no model of synth p on 4 processors, which --tables prices\n");
  r = s.sim("--job-model " + (s.dir / "m.csv") + " --pnbw 2", "b");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "mcb-sim: --pnbw: not with --job-model, which sets it per job\n");
}

}  // namespace
