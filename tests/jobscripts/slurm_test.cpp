// The Slurm executor against a real Slurm started on this machine by jobscripts/testing/
// slurm-local.sh (installed as mcb-slurm-local): two partitions standing for two clusters, a
// campaign of single-cluster and co-allocated Poisson runs submitted with sbatch, collected, and
// checked. Where Slurm cannot start (not root, not installed), every test is skipped with the
// reason and the program exits 77, which CTest reports as skipped.
#include "tests/jobscripts/campaign_test_support.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <iostream>
#include <set>

namespace {

using namespace mcb::testing;
using namespace mcb::testing::campaign;
namespace fs = std::filesystem;

std::string g_skip_reason;  // why this machine cannot run a local Slurm
std::string g_start_error;  // why it did not start although it should have
fs::path g_slurm_dir;
bool g_started = false;

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::string last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Processes that belong to the test Slurm: its daemons name its folder on their command line or
// in SLURM_CONF, and slurmd hands its job steps SLURM_CONF from there too.
std::vector<pid_t> slurm_processes(const fs::path& dir) {
  std::vector<pid_t> pids;
  const std::string mark = dir.string();
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string leaf = entry.path().filename().string();
    if (leaf.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(leaf));
    if (pid == ::getpid()) continue;
    const std::string cmdline = slurp(entry.path() / "cmdline");
    const std::string environ = slurp(entry.path() / "environ");
    if (cmdline.find(mark) != std::string::npos ||
        environ.find("SLURM_CONF=" + mark + "/etc") != std::string::npos) {
      pids.push_back(pid);
    }
  }
  return pids;
}

class LocalSlurm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "mcb-slurm-XXXXXX").string();
    g_slurm_dir = ::mkdtemp(pattern.data());
    // With this process as owner, the Slurm stops even if the test is killed half-way.
    const CommandResult r =
        run_command(quote(bin("mcb-slurm-local")) + " start " + quote(g_slurm_dir.string()) + " " +
                    std::to_string(::getpid()));
    if (r.exit_code == 3) {
      g_skip_reason = last_line(r.err);
    } else if (r.exit_code != 0) {
      g_start_error = r.out + r.err;
    } else {
      g_started = true;
      ::setenv("SLURM_CONF", (g_slurm_dir / "etc/slurm.conf").c_str(), 1);
    }
  }

  static void TearDownTestSuite() {
    if (g_started) {
      const CommandResult r =
          run_command(quote(bin("mcb-slurm-local")) + " stop " + quote(g_slurm_dir.string()));
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      EXPECT_TRUE(wait_for([] { return slurm_processes(g_slurm_dir).empty(); }, 20))
          << "the local Slurm left processes behind";
    }
    std::error_code ec;
    fs::remove_all(g_slurm_dir, ec);
  }

  void SetUp() override {
    if (!g_skip_reason.empty()) GTEST_SKIP() << g_skip_reason;
    ASSERT_TRUE(g_started) << "the local Slurm did not start:\n" << g_start_error;
  }
};

// The one-host setup's MPI settings (jobscripts/README.md): TCP over loopback between the
// "nodes", and ranks that yield, as four of them share two cores.
const std::string kOneHostEnv =
    "env = OMPI_MCA_btl=self,tcp\nenv = OMPI_MCA_btl_tcp_if_include=lo\n"
    "env = OMPI_MCA_mpi_yield_when_idle=1\n";

std::vector<std::string> pwned_files(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().rfind("pwned", 0) == 0) found.push_back(e.path().string());
  }
  return found;
}

TEST_F(LocalSlurm, CampaignOfPlainAndHeterogeneousJobsEndsWithEveryRunRecordedOnce) {
  TempDir dir;
  const std::string name = "slurm e2e $(touch pwned-a) `touch pwned-b` 'q'";
  const std::string spec = write_file(
      dir.path() / "s.ini",
      "name = " + name + "\napp = poisson\nbinary = " + poisson_binary() +
          "\nfolder = camp $(touch pwned-c) dir\nexecutor = slurm\ntimeout = 90s\n" + kOneHostEnv +
          "[slurm]\npartitions = clusterA clusterB\nlinger = 10s\n"
          "[options]\ngrid = 16\nhalo = exact\nprocs = 2x2\nclusters = 1 2\nplatform = \"\" "
          "/nonexistent/p\n"
          "counters = \"\"\n");
  const fs::path folder = dir.path() / "camp $(touch pwned-c) dir";

  const CommandResult submit = mcb_campaign("run " + quote(spec));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  EXPECT_NE(submit.out.find("submitted 4 slurm job(s) for 4 run(s)"), std::string::npos)
      << submit.out;
  const CommandResult status = mcb_campaign("status " + quote(spec));
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("(slurm): 4 runs:"), std::string::npos) << status.out;

  const CommandResult collect =
      mcb_campaign("collect " + quote(spec) + " --wait --wait-limit 300 --poll 1s");
  // Two runs are refused by mcb-poisson when they start (a platform file only the run reads):
  // the campaign is not all valid.
  EXPECT_EQ(collect.exit_code, 1) << collect.out << collect.err;
  EXPECT_NE(collect.out.find("4 runs: 2 valid, 0 invalid, 2 failed, 0 without a record"),
            std::string::npos)
      << collect.out;

  const auto by_id = records_by_id(folder / "records.jsonl");
  ASSERT_EQ(read_records(folder / "records.jsonl").size(), 4u);
  ASSERT_EQ(by_id.size(), 4u);
  const json& single = by_id.at(name + "-1-r1");
  EXPECT_EQ(single["status"], "valid") << single.dump();
  EXPECT_EQ(single["campaign"], name);
  EXPECT_EQ(single["config"]["components"], 1);
  EXPECT_EQ(single["config"]["cluster_names"], json({"clusterA"}));
  EXPECT_EQ(single["config"]["cluster_map"], json({0, 0, 0, 0}));
  const json& coallocated = by_id.at(name + "-3-r1");
  EXPECT_EQ(coallocated["status"], "valid") << coallocated.dump();
  EXPECT_EQ(coallocated["config"]["components"], 2);
  EXPECT_EQ(coallocated["config"]["cluster_names"], json({"clusterA", "clusterB"}));
  EXPECT_EQ(coallocated["config"]["cluster_map"], json({0, 0, 1, 1}))
      << "ranks of a heterogeneous job must be in both clusters";
  for (const std::string key : {"-2-r1", "-4-r1"}) {
    const json& failed = by_id.at(name + key);
    EXPECT_EQ(failed["status"], "failed");
    const std::string reason = failed["reason"];
    EXPECT_NE(reason.find("srun exit code"), std::string::npos) << reason;
    EXPECT_NE(reason.find("mcb-poisson: --platform: cannot read '/nonexistent/p'"),
              std::string::npos)
        << reason;
  }
  EXPECT_EQ(slurp(folder / "jobs/1-r1.sbatch").find("#SBATCH hetjob"), std::string::npos);
  EXPECT_NE(slurp(folder / "jobs/3-r1.sbatch").find("#SBATCH hetjob"), std::string::npos);

  // Nothing is run or recorded twice.
  const std::string records = slurp(folder / "records.jsonl");
  const CommandResult again = mcb_campaign("run " + quote(spec));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("submitted 0 slurm job(s) for 0 run(s)"), std::string::npos)
      << again.out;
  EXPECT_EQ(mcb_campaign("collect " + quote(spec)).exit_code, 1);
  EXPECT_EQ(slurp(folder / "records.jsonl"), records);
  EXPECT_EQ(pwned_files(dir.path()), std::vector<std::string>{});
}

TEST_F(LocalSlurm, AJobThatEndsWithoutRunningGetsAFailureRecordOnCollect) {
  TempDir dir;
  const std::string spec =
      write_file(dir.path() / "s.ini",
                 "name = cancelled\napp = poisson\nbinary = " + poisson_binary() +
                     "\nexecutor = slurm\ntimeout = 60s\n" + kOneHostEnv +
                     "[slurm]\npartitions = clusterA clusterB\ndirective = --begin=now+3600\n"
                     "[options]\ngrid = 16\nprocs = 2x1\ncounters = \"\"\n");
  const CommandResult submit = mcb_campaign("run " + quote(spec));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  const fs::path folder = dir.path() / "campaigns/cancelled";
  const std::string job =
      slurp(folder / "jobs.txt").substr(0, slurp(folder / "jobs.txt").find('\t'));
  ASSERT_FALSE(job.empty());

  const CommandResult waiting = mcb_campaign("collect " + quote(spec));
  EXPECT_EQ(waiting.exit_code, 1);
  EXPECT_NE(waiting.out.find("1 in the queue (1 PENDING)"), std::string::npos) << waiting.out;
  EXPECT_EQ(run_command("scancel " + job).exit_code, 0);
  ASSERT_TRUE(wait_for(
      [&] {
        return run_command("squeue --noheader --jobs=" + job + " --states=PENDING,RUNNING")
            .out.empty();
      },
      30));

  const CommandResult collect = mcb_campaign("collect " + quote(spec));
  EXPECT_EQ(collect.exit_code, 1) << collect.out << collect.err;
  const auto by_id = records_by_id(folder / "records.jsonl");
  ASSERT_EQ(by_id.size(), 1u);
  const std::string reason = by_id.at("cancelled-1-r1")["reason"];
  EXPECT_NE(reason.find("job " + job + " ended before this run finished (Slurm state CANCELLED"),
            std::string::npos)
      << reason;
}

// While a job runs, status shows the queue's node list and elapsed time. With squeue
// unreachable (a failing squeue first on PATH; the real one is then never reached), status asks
// sacct; this Slurm keeps no accounting (accounting_storage/none), so sacct refuses, and status
// falls back to the records and the jobs list, naming both failures. It never exits 1.
TEST_F(LocalSlurm, StatusShowsTheQueuesNodesAndFallsBackToSacctThenTheRecords) {
  TempDir dir;
  const std::string setup = write_file(dir.path() / "hold.sh", "sleep 40\n");
  const std::string spec = write_file(dir.path() / "s.ini",
                                      "name = held\napp = poisson\nbinary = " + poisson_binary() +
                                          "\nexecutor = slurm\ntimeout = 90s\n" + kOneHostEnv +
                                          "[slurm]\npartitions = clusterA\nsetup = " + setup +
                                          "\n[options]\ngrid = 16\nprocs = 2x1\ncounters = \"\"\n");
  const CommandResult submit = mcb_campaign("run " + quote(spec));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  const fs::path folder = dir.path() / "campaigns/held";
  const std::string job =
      slurp(folder / "jobs.txt").substr(0, slurp(folder / "jobs.txt").find('\t'));
  json row;
  ASSERT_TRUE(wait_for(
      [&] {
        const CommandResult r = mcb_campaign("status " + quote(spec) + " --json");
        if (r.exit_code != 0) return false;
        row = json::parse(r.out)["runs"][0];
        return row["state"] == "RUNNING";
      },
      30))
      << row.dump();
  EXPECT_EQ(row["batch_job_id"], job);
  ASSERT_TRUE(row["nodes"].is_string()) << row.dump();
  EXPECT_TRUE(row["nodes"] == "a1" || row["nodes"] == "a2") << row.dump();
  ASSERT_TRUE(row["elapsed_s"].is_number()) << row.dump();
  EXPECT_GE(row["elapsed_s"].get<double>(), 0.0);
  const CommandResult text = mcb_campaign("status " + quote(spec));
  EXPECT_NE(text.out.find("states from squeue\n"), std::string::npos) << text.out;

  const fs::path fake = dir.path() / "bin";
  fs::create_directories(fake);
  write_file(fake / "squeue",
             "#!/bin/sh\necho 'squeue: error: Unable to contact slurm controller' >&2\nexit 1\n");
  ::chmod((fake / "squeue").c_str(), 0755);
  const CommandResult fallback = run_command("env PATH=" + quote(fake.string()) + ":\"$PATH\" " +
                                             bin("mcb-campaign") + " status " + quote(spec));
  EXPECT_EQ(fallback.exit_code, 0) << fallback.err;
  EXPECT_NE(fallback.out.find("states from records and the jobs list (squeue is unreachable: "
                              "squeue cannot read the queue: exit code 1: squeue: error: Unable "
                              "to contact slurm controller; sacct: exit code 1: Slurm accounting "
                              "storage is disabled)"),
            std::string::npos)
      << fallback.out;
  EXPECT_NE(fallback.out.find(" unknown "), std::string::npos) << fallback.out;

  const CommandResult collect =
      mcb_campaign("collect " + quote(spec) + " --wait --wait-limit 300 --poll 1s");
  EXPECT_EQ(collect.exit_code, 0) << collect.out << collect.err;
  const CommandResult done = mcb_campaign("status " + quote(spec) + " --json");
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const json recorded = json::parse(done.out)["runs"][0];
  EXPECT_EQ(recorded["state"], "recorded") << recorded.dump();
  EXPECT_EQ(recorded["verdict"], "valid") << recorded.dump();
  EXPECT_EQ(recorded["batch_job_id"], job) << recorded.dump();
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  const auto* unit = ::testing::UnitTest::GetInstance();
  if (result == 0 && unit->test_to_run_count() > 0 &&
      unit->skipped_test_count() == unit->test_to_run_count()) {
    std::cout << "skipped: " << g_skip_reason << std::endl;
    return 77;
  }
  return result;
}
