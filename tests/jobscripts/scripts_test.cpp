// The jobscripts mcb-campaign writes for Slurm and PBS: valid bash, the directives a batch
// system needs, and every value from the spec kept a value. The scripts are executed here with
// a recording launcher in place of srun or mpirun (the real Slurm run is slurm_test.cpp).
#include "tests/jobscripts/campaign_test_support.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace {

using namespace mcb::testing;
using namespace mcb::testing::campaign;
namespace fs = std::filesystem;

// A campaign name and a folder that would run commands if they ever reached the shell unquoted.
const std::string kHostileName = "h $(touch pwned-name) `touch pwned-tick` 'sq' \"dq\" end";
const std::string kHostileFolder = "camp $(touch pwned-folder) `touch pwned-folder2` 'q' dir";
const std::string kHostileValue = "$(touch pwned-env) `touch pwned-env2` it's";

// A launcher that records its arguments (NUL-separated) and one environment variable, then
// does what MODE says: exit 0, sleep (to be timed out), or write the run's record and linger.
std::string write_launcher(const fs::path& dir, const std::string& name, const std::string& mode) {
  const fs::path path = dir / name;
  write_file(path,
             "#!/bin/bash\n"
             "here=\"$(dirname \"$0\")\"\n"
             "printf '%s\\0' \"$@\" >\"$here/argv\"\n"
             "printf '%s' \"$MCB_TEST_VALUE\" >\"$here/env-value\"\n"
             "mode=" +
                 mode +
                 "\n"
                 "if [ \"$mode\" = sleep ]; then sleep 60; fi\n"
                 "if [ \"$mode\" = linger ]; then\n"
                 "  while [ $# -gt 0 ]; do [ \"$1\" = --output ] && out=$2; shift; done\n"
                 "  echo '{\"run_id\":\"x\"}' >>\"$out\"\n"
                 "  sleep 60\n"
                 "fi\n"
                 "exit 0\n");
  ::chmod(path.c_str(), 0755);
  return path.string();
}

std::vector<std::string> recorded_argv(const fs::path& dir) {
  const std::string text = slurp(dir / "argv");
  std::vector<std::string> args;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\0', start);
    args.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

std::string after(const std::vector<std::string>& args, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == flag) return args[i + 1];
  }
  return "<absent>";
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  }
  return lines;
}

// Files named pwned-* anywhere under @p dir.
std::vector<std::string> pwned_files(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().rfind("pwned", 0) == 0) found.push_back(e.path().string());
  }
  return found;
}

std::string spec_text(const std::string& executor, const std::string& launcher,
                      const std::string& settings, const std::string& options) {
  return "name = " + kHostileName + "\napp = poisson\nbinary = " + poisson_binary() +
         "\nfolder = " + kHostileFolder + "\nexecutor = " + executor +
         "\ntimeout = 90s\nenv = MCB_TEST_VALUE=" + kHostileValue + "\n\n[" + executor +
         "]\nlauncher = " + launcher + "\n" + settings + "\n[options]\ncounters = \"\"\n" + options;
}

// `mcb-campaign scripts SPEC` ends well and writes each of @p scripts (names in FOLDER/jobs) as
// valid bash.
::testing::AssertionResult writes_valid_scripts(const std::string& spec, const fs::path& folder,
                                                const std::vector<std::string>& scripts) {
  const CommandResult r = mcb_campaign("scripts " + quote(spec));
  if (r.exit_code != 0)
    return ::testing::AssertionFailure() << "exit " << r.exit_code << ": " << r.err;
  for (const std::string& name : scripts) {
    const fs::path script = folder / "jobs" / name;
    if (!fs::exists(script))
      return ::testing::AssertionFailure() << script << " missing: " << r.out;
    const CommandResult syntax = run_command("bash -n " + quote(script.string()));
    if (syntax.exit_code != 0) return ::testing::AssertionFailure() << script << ": " << syntax.err;
  }
  return ::testing::AssertionSuccess();
}

TEST(CampaignScripts, SlurmGetsAPlainJobPerSingleClusterRunAndAHeterogeneousJobPerCoAllocatedRun) {
  TempDir dir;
  const std::string srun = write_launcher(dir.path(), "srun", "exit");
  const std::string spec = write_file(
      dir.path() / "s.ini", spec_text("slurm", srun + " --mpi=pmix",
                                      "partitions = clusterA clusterB\ntasks-per-node = 2\n"
                                      "account = proj1\ndirective = --exclusive\nlinger = 5s\n",
                                      "grid = 16\nprocs = 2x2\nclusters = 1 2\n"));
  const fs::path folder = dir.path() / kHostileFolder;
  ASSERT_TRUE(writes_valid_scripts(spec, folder, {"1-r1.sbatch", "2-r1.sbatch"}));
  const fs::path plain = folder / "jobs/1-r1.sbatch";
  const fs::path het = folder / "jobs/2-r1.sbatch";

  const std::vector<std::string> one = lines_starting(slurp(plain), "#SBATCH");
  EXPECT_EQ(one, (std::vector<std::string>{"#SBATCH --job-name=mcb-h___touch_pwned-name___t-1-r1",
                                           "#SBATCH --output=jobs/1-r1.%j.out",
                                           "#SBATCH --partition=clusterA", "#SBATCH --ntasks=4",
                                           "#SBATCH --ntasks-per-node=2", "#SBATCH --time=4",
                                           "#SBATCH --account=proj1", "#SBATCH --exclusive"}));
  const std::vector<std::string> two = lines_starting(slurp(het), "#SBATCH");
  ASSERT_EQ(two.size(), 15u);
  EXPECT_EQ(two[2], "#SBATCH --partition=clusterA");
  EXPECT_EQ(two[3], "#SBATCH --ntasks=2");
  EXPECT_EQ(two[8], "#SBATCH hetjob");
  EXPECT_EQ(two[9], "#SBATCH --partition=clusterB");
  EXPECT_EQ(two[10], "#SBATCH --ntasks=2");
  EXPECT_EQ(lines_starting(slurp(plain), "#SBATCH hetjob").size(), 0u);

  // Run the heterogeneous job's script with the recording srun: every value arrives intact.
  const CommandResult run =
      run_command("cd " + quote(dir.path().string()) + " && bash " + quote(het.string()));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> argv = recorded_argv(dir.path());
  ASSERT_GE(argv.size(), 6u);
  EXPECT_EQ(argv[0], "--mpi=pmix");
  EXPECT_EQ(argv[1], "--het-group=0,1");
  EXPECT_EQ(argv[2], "bash");
  EXPECT_EQ(argv[5], "mcb-task");
  EXPECT_EQ(argv[6], poisson_binary());
  EXPECT_EQ(after(argv, "--campaign"), kHostileName);
  EXPECT_EQ(after(argv, "--run-id"), kHostileName + "-2-r1");
  EXPECT_EQ(after(argv, "--output"), (folder / "runs/2-r1.jsonl").string());
  EXPECT_EQ(after(argv, "--cluster-map"), "env:MCB_CLUSTER");
  EXPECT_EQ(after(argv, "--clusters"), "2");
  EXPECT_EQ(after(argv, "--counters"), "");
  EXPECT_EQ(slurp(dir.path() / "env-value"), kHostileValue);
  EXPECT_NE(slurp(folder / "runs/2-r1.status").find("exit=0 "), std::string::npos);
  EXPECT_NE(slurp(folder / "runs/2-r1.status").find("ended=exit"), std::string::npos);
  EXPECT_EQ(pwned_files(dir.path()), std::vector<std::string>{});
}

// squeue unreachable (the controller down, or no Slurm client here) and no job submitted yet (so
// nothing to ask sacct): status still shows every run, from the records and the jobs list, says
// where the states came from and exits 0.
TEST(CampaignStatus, AnUnreachableQueueFallsBackToTheRecordsAndSaysSo) {
  TempDir dir;
  const std::string srun = write_launcher(dir.path(), "srun", "exit");
  const std::string spec = write_file(
      dir.path() / "s.ini", spec_text("slurm", srun, "partitions = clusterA\ntasks-per-node = 2\n",
                                      "grid = 16\nprocs = 2x1\nclusters = 1\n"));
  const fs::path folder = dir.path() / kHostileFolder;
  ASSERT_TRUE(writes_valid_scripts(spec, folder, {"1-r1.sbatch"}));
  const fs::path fake = dir.path() / "bin";
  fs::create_directories(fake);
  write_file(fake / "squeue",
             "#!/bin/sh\necho 'squeue: error: Unable to contact slurm controller' >&2\nexit 1\n");
  ::chmod((fake / "squeue").c_str(), 0755);
  const std::string command = "env PATH=" + quote(fake.string()) + ":\"$PATH\" " +
                              bin("mcb-campaign") + " status " + quote(spec);
  const CommandResult text = run_command(command);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("states from records and the jobs list (squeue is unreachable: squeue "
                          "cannot read the queue: exit code 1: squeue: error: Unable to contact"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("RUN"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("not submitted"), std::string::npos) << text.out;
  const CommandResult js = run_command(command + " --json");
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json doc = json::parse(js.out);
  EXPECT_EQ(doc["executor"], "slurm");
  EXPECT_NE(doc["queue_source"].get<std::string>().find("unreachable"), std::string::npos);
  ASSERT_EQ(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["state"], "not submitted");
  EXPECT_TRUE(doc["runs"][0]["batch_job_id"].is_null());
}

TEST(CampaignScripts, SlurmGroupsRunsOfOneShapeAndRefusesMpirunForHeterogeneousJobs) {
  TempDir dir;
  const std::string spec = write_file(
      dir.path() / "s.ini",
      "name = g\napp = poisson\nbinary = " + poisson_binary() +
          "\nexecutor = slurm\nrepetitions = 3\n"
          "[slurm]\npartitions = A B\ngroup = 2\n[options]\nprocs = 2x1\nclusters = 1 2\n");
  const CommandResult r = mcb_campaign("scripts " + quote(spec));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Runs in order 1-r1 2-r1 1-r2 2-r2 1-r3 2-r3: shapes alternate, so no two share a script.
  EXPECT_NE(r.out.find("wrote 6 slurm jobscript(s) for 6 run(s)"), std::string::npos) << r.out;

  write_file(spec,
             "name = g2\napp = poisson\nbinary = " + poisson_binary() +
                 "\nexecutor = slurm\n"
                 "repetitions = 3\n[slurm]\npartitions = A B\ngroup = 2\n[options]\nprocs = 2x1\n");
  const CommandResult grouped = mcb_campaign("scripts " + quote(spec));
  ASSERT_EQ(grouped.exit_code, 0) << grouped.err;
  EXPECT_NE(grouped.out.find("wrote 2 slurm jobscript(s) for 3 run(s)"), std::string::npos)
      << grouped.out;
  const std::string script = slurp(dir.path() / "campaigns/g2/jobs/1-r1+1.sbatch");
  EXPECT_EQ(lines_starting(script, "mcb_run ").size(), 2u);
  EXPECT_EQ(lines_starting(script, "#SBATCH --time=").front(), "#SBATCH --time=124");

  write_file(
      spec,
      "name = g3\napp = poisson\nbinary = " + poisson_binary() +
          "\nexecutor = slurm\n"
          "[slurm]\npartitions = A B\nlauncher = mpirun\n[options]\nprocs = 2x1\nclusters = 2\n");
  const CommandResult refused = mcb_campaign("scripts " + quote(spec));
  EXPECT_EQ(refused.exit_code, 2);
  ASSERT_EQ(refused.err_lines().size(), 1u) << refused.err;
  EXPECT_NE(refused.err.find("launcher: 'mpirun' cannot span a heterogeneous job's components"),
            std::string::npos)
      << refused.err;
}

TEST(CampaignScripts, PbsSelectsOneChunkSetPerClusterAndMapsRanksInChunkOrder) {
  TempDir dir;
  const std::string mpirun = write_launcher(dir.path(), "mpirun", "exit");
  const std::string spec = write_file(
      dir.path() / "s.ini",
      spec_text(
          "pbs", mpirun,
          "cluster-resource = cluster\nclusters = A B\nprocs-per-chunk = 2\n"
          "queue = workq\naccount = proj1\ndirective = -l place=scatter\nwalltime = 00:30:00\n",
          "grid = 16\nprocs = 4x2\nclusters = 1 2\n"));
  const fs::path folder = dir.path() / kHostileFolder;
  ASSERT_TRUE(writes_valid_scripts(spec, folder, {"1-r1.pbs", "2-r1.pbs"}));
  const fs::path single = folder / "jobs/1-r1.pbs";
  const fs::path co = folder / "jobs/2-r1.pbs";
  EXPECT_EQ(lines_starting(slurp(single), "#PBS -l select=").front(),
            "#PBS -l select=4:ncpus=2:mpiprocs=2:cluster=A");
  EXPECT_EQ(lines_starting(slurp(co), "#PBS"),
            (std::vector<std::string>{
                "#PBS -N mcb-h___touch_pw-2-r1",
                "#PBS -l select=2:ncpus=2:mpiprocs=2:cluster=A+2:ncpus=2:mpiprocs=2:cluster=B",
                "#PBS -l walltime=00:30:00", "#PBS -j oe", "#PBS -o jobs/2-r1.out", "#PBS -q workq",
                "#PBS -A proj1", "#PBS -l place=scatter"}));

  write_file(dir.path() / "nodes", "n1\nn1\nn2\nn2\nn3\nn3\nn4\nn4\n");
  const CommandResult run =
      run_command("cd " + quote(dir.path().string()) + " && PBS_NODEFILE=" + quote(dir / "nodes") +
                  " bash " + quote(co.string()));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> argv = recorded_argv(dir.path());
  ASSERT_GE(argv.size(), 5u);
  EXPECT_EQ(argv[0], "-np");
  EXPECT_EQ(argv[1], "8");
  EXPECT_EQ(argv[2], "--hostfile");
  EXPECT_EQ(argv[3], dir / "nodes");
  EXPECT_EQ(argv[4], poisson_binary());
  EXPECT_EQ(after(argv, "--campaign"), kHostileName);
  const std::string map = after(argv, "--cluster-map");
  EXPECT_EQ(map, (folder / "runs/2-r1.map").string());
  EXPECT_EQ(slurp(map), "A\nA\nA\nA\nB\nB\nB\nB\n");
  EXPECT_EQ(slurp(dir.path() / "env-value"), kHostileValue);
  EXPECT_EQ(pwned_files(dir.path()), std::vector<std::string>{});
}

// Writes a PBS campaign of one 2x1 run launched by LAUNCHER with its linger at 1 s, runs its
// jobscript in this process's shell as PBS would, and gives the campaign folder.
fs::path run_pbs_jobscript(const fs::path& dir, const std::string& launcher,
                           const std::string& timeout) {
  const std::string spec =
      write_file(dir / "s.ini", "name = t\napp = poisson\nbinary = " + poisson_binary() +
                                    "\nexecutor = pbs\ntimeout = " + timeout +
                                    "\n[pbs]\nlauncher = " + launcher +
                                    "\nlinger = 1s\n[options]\nprocs = 2x1\n");
  EXPECT_EQ(mcb_campaign("scripts " + quote(spec)).exit_code, 0);
  fs::path folder = dir / "campaigns/t";
  const CommandResult run =
      run_command("PBS_NODEFILE=/dev/null bash " + quote((folder / "jobs/1-r1.pbs").string()));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return folder;
}

TEST(CampaignScripts, AJobscriptEndsARunAtItsTimeoutAndALauncherThatLingersAfterItsRecord) {
  for (const std::string mode : {"sleep", "linger"}) {
    TempDir dir;
    const std::string mpirun = write_launcher(dir.path(), "mpirun", mode);
    // The lingering launcher must write its record and linger 1 s well within the timeout, even
    // on a busy host; the sleeping one is timed out whatever the host does.
    const std::string timeout = mode == "sleep" ? "3s" : "60s";
    const fs::path folder = run_pbs_jobscript(dir.path(), mpirun, timeout);
    const std::string status = slurp(folder / "runs/1-r1.status");
    if (mode == "sleep") {
      EXPECT_NE(status.find("exit=124 "), std::string::npos) << status;
      EXPECT_NE(status.find("ended=timeout"), std::string::npos) << status;
    } else {
      EXPECT_NE(status.find("ended=lingered"), std::string::npos) << status;
      EXPECT_EQ(slurp(folder / "runs/1-r1.jsonl"), "{\"run_id\":\"x\"}\n");
    }
  }
}

// Open MPI 4.1 started by srun in a heterogeneous step at times crashes in MPI_Init (signal 11)
// before the run starts. Such a launch is made once more, within the run's time; a launch that
// crashes twice stays a failure with its code.
TEST(CampaignScripts, ALaunchThatDiesOnASignalBeforeItsRecordIsMadeOnceMore) {
  for (const std::string crashes : {"1", "2"}) {
    TempDir dir;
    const fs::path mpirun = dir.path() / "mpirun";
    write_file(mpirun,
               "#!/bin/bash\n"
               "here=\"$(dirname \"$0\")\"\n"
               "echo launch >>\"$here/launches\"\n"
               "if [ \"$(wc -l <\"$here/launches\")\" -le " +
                   crashes +
                   " ]; then echo 'crashed in start-up'; kill -SEGV $$; fi\n"
                   "while [ $# -gt 0 ]; do [ \"$1\" = --output ] && out=$2; shift; done\n"
                   "echo '{\"run_id\":\"x\"}' >>\"$out\"\n");
    ::chmod(mpirun.c_str(), 0755);
    const fs::path folder = run_pbs_jobscript(dir.path(), mpirun.string(), "60s");
    const std::string status = slurp(folder / "runs/1-r1.status");
    EXPECT_NE(status.find("launches=2"), std::string::npos) << status;
    EXPECT_EQ(slurp(dir.path() / "launches"), "launch\nlaunch\n");
    EXPECT_NE(slurp(folder / "runs/1-r1.log.1").find("crashed in start-up"), std::string::npos);
    if (crashes == "1") {
      EXPECT_NE(status.find("exit=0 "), std::string::npos) << status;
      EXPECT_EQ(slurp(folder / "runs/1-r1.jsonl"), "{\"run_id\":\"x\"}\n");
    } else {
      EXPECT_NE(status.find("exit=139 "), std::string::npos) << status;
      EXPECT_FALSE(fs::exists(folder / "runs/1-r1.jsonl"));
    }
  }
}

// srun of Slurm 22.05 at times does not return after every task of a step has ended. A run whose
// tasks failed before writing a record must still end after its linger time, not its timeout,
// and keep the tasks' exit code.
TEST(CampaignScripts, ASlurmStepThatHangsAfterItsTasksFailedEndsWithTheTasksCode) {
  TempDir dir;
  // Starts each task through the jobscript's task wrapper, as srun would, then never returns.
  const fs::path srun = dir.path() / "srun";
  write_file(srun,
             "#!/bin/bash\n"
             "while [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
             "for rank in 0 1; do SLURM_PROCID=$rank \"$@\" & done\n"
             "wait\n"
             "sleep 60\n");
  ::chmod(srun.c_str(), 0755);
  const std::string spec = write_file(
      dir.path() / "s.ini", "name = t\napp = poisson\nbinary = " + poisson_binary() +
                                "\nexecutor = slurm\ntimeout = 40s\n[slurm]\npartitions = A\n"
                                "launcher = " +
                                srun.string() +
                                " --mpi=pmix\nlinger = 1s\n"
                                "[options]\nprocs = 1x1\nplatform = /nonexistent/p\n");
  ASSERT_EQ(mcb_campaign("scripts " + quote(spec)).exit_code, 0);
  const fs::path folder = dir.path() / "campaigns/t";
  const CommandResult run = run_command("bash " + quote((folder / "jobs/1-r1.sbatch").string()));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string status = slurp(folder / "runs/1-r1.status");
  EXPECT_NE(status.find("exit=2 "), std::string::npos) << status;
  EXPECT_NE(status.find("ended=lingered"), std::string::npos) << status;
  // The check cannot read the platform file (only the run knows its clusters); the run refuses it.
  EXPECT_NE(slurp(folder / "runs/1-r1.log").find("--platform: cannot read '/nonexistent/p'"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(folder / "runs/1-r1.jsonl"));
}

}  // namespace
