// mcb-campaign end to end on this machine: the dry-run, bad input, and the local executor with
// real mpirun runs of mcb-poisson (and mcb-ensflow): records, failures, kills and restarts.
#include "tests/jobscripts/campaign_test_support.hpp"

#include <gtest/gtest.h>

#include <set>

namespace {

using namespace mcb::testing;
using namespace mcb::testing::campaign;
namespace fs = std::filesystem;

// A Poisson spec: name, the extra top-level lines, then [options].
std::string poisson_spec(const std::string& name, const std::string& top,
                         const std::string& options) {
  return "name = " + name + "\napp = poisson\nbinary = " + poisson_binary() + "\n" + top +
         "\n[options]\ncounters = \"\"\n" + options;
}

// poisson_spec written to DIR/s.ini; returns its path.
std::string write_poisson_spec(const fs::path& dir, const std::string& name, const std::string& top,
                               const std::string& options) {
  return write_file(dir / "s.ini", poisson_spec(name, top, options));
}

std::string campaign_args(const std::string& command, const std::string& spec,
                          const std::string& more = "") {
  return command + " " + quote(spec) + (more.empty() ? "" : " " + more);
}

TEST(CampaignDryRun, ListsEveryRunWithStableIdsAndEachInvalidCombinationWithItsReason) {
  TempDir dir;
  const std::string spec = write_poisson_spec(dir.path(), "dry", "repetitions = 2",
                                              "grid = 16 24\nprocs = 2x1 3x1\nclusters = 1 2\n");
  const CommandResult text = mcb_campaign(campaign_args("dry-run", spec));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("8 configuration(s), 2 invalid (skipped), 6 x 2 repetition(s) = 12 run(s)"),
      std::string::npos)
      << text.out;
  EXPECT_NE(
      text.out.find(
          "#4 counters='' grid=16 procs=3x1 clusters=2: --clusters: '2' does not divide the 3 "
          "columns of process grid 3x1"),
      std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("#8 counters='' grid=24 procs=3x1 clusters=2"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("dry-1-r1"), std::string::npos);

  const CommandResult first = mcb_campaign(campaign_args("dry-run", spec, "--json"));
  const CommandResult second = mcb_campaign(campaign_args("dry-run", spec, "--json"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, second.out);
  const json plan = json::parse(first.out);
  ASSERT_EQ(plan["runs"].size(), 12u);
  std::set<std::string> ids;
  for (const json& r : plan["runs"]) {
    ids.insert(r["id"].get<std::string>());
    EXPECT_EQ(r["id"], "dry-" + std::to_string(r["index"].get<int>()) + "-r" +
                           std::to_string(r["repetition"].get<int>()));
  }
  EXPECT_EQ(ids.size(), 12u);
  EXPECT_EQ(ids.count("dry-4-r1"), 0u);
  EXPECT_EQ(plan["configurations"][3]["invalid"],
            "--clusters: '2' does not divide the 3 columns of process grid 3x1");
  EXPECT_EQ(plan["configurations"][0]["args"],
            json({"--counters", "", "--grid", "16", "--procs", "2x1", "--clusters", "1"}));
  // A dry run writes nothing.
  EXPECT_FALSE(fs::exists(dir.path() / "campaigns"));
}

// The estimate: earlier valid records of the same configuration (same application, processes,
// clusters and options, ignoring --seed, --run-id and the like), from --history and from the
// campaign's own folder; a run without one is named.
TEST(CampaignDryRun, EstimatesEachRunFromEarlierRecordsOfTheSameConfiguration) {
  TempDir dir;
  const std::string spec =
      write_poisson_spec(dir.path(), "est", "timeout = 60s", "grid = 16\nprocs = 2x1 2x2\n");
  const std::string history = std::string(MCB_FIXTURES_DIR) + "/records/campaign-history";

  const CommandResult none = mcb_campaign(campaign_args("dry-run", spec));
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("est-1-r1  no earlier record; ranks 2"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("estimate: 0.0 s of timed run time for 0 of 2 run(s)"), std::string::npos)
      << none.out;

  const CommandResult text =
      mcb_campaign(campaign_args("dry-run", spec, "--history " + quote(history)));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("est-1-r1  est. 13.0 s (3 records); ranks 2, clusters 1:"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("est-2-r1  no earlier record; ranks 4"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("estimate: 13.0 s of timed run time for 1 of 2 run(s)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("1 run(s) without an earlier record (each up to its timeout, 60.0 s): "
                          "est-2-r1"),
            std::string::npos)
      << text.out;

  // The campaign folder's own records count too.
  const fs::path folder = dir.path() / "campaigns/est";
  fs::create_directories(folder);
  std::string own = slurp(history + "/earlier.jsonl");
  own = own.substr(0, own.find('\n'));  // est-1-r1, 10 s, made a 2x2 run of 6 s
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"2x1\"", "\"2x2\""},
                                 {"\"total_size\":2", "\"total_size\":4"},
                                 {"\"wall_time\":10.0", "\"wall_time\":6.0"},
                                 {"est-1-r1", "est-2-r1"}}) {
    for (auto at = own.find(from); at != std::string::npos; at = own.find(from, at + to.size()))
      own.replace(at, from.size(), to);
  }
  write_file(folder / "records.jsonl", own + "\n");
  const CommandResult js =
      mcb_campaign(campaign_args("dry-run", spec, "--json --history " + quote(history)));
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json estimate = json::parse(js.out)["estimate"];
  EXPECT_DOUBLE_EQ(estimate["total_s"].get<double>(), 19.0) << estimate.dump();
  EXPECT_EQ(estimate["runs_without"], json::array());
  EXPECT_EQ(estimate["runs"][0]["records"], 3);
  EXPECT_DOUBLE_EQ(estimate["runs"][1]["estimate_s"].get<double>(), 6.0);

  const CommandResult bad =
      mcb_campaign(campaign_args("dry-run", spec, "--history /nonexistent/h"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "mcb-campaign: --history: '/nonexistent/h' does not exist\n");
}

TEST(CampaignDryRun, RefusesInvalidCombinationsWhenTheSpecSaysSo) {
  TempDir dir;
  const std::string spec = write_poisson_spec(dir.path(), "refuse", "on-invalid = refuse",
                                              "grid = 16\nprocs = 2x1 3x1\nclusters = 2\n");
  for (const char* command : {"dry-run", "run"}) {
    const CommandResult r = mcb_campaign(campaign_args(command, spec));
    EXPECT_EQ(r.exit_code, 2) << command;
    ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
    EXPECT_NE(
        r.err.find("on-invalid = refuse, and 1 combination(s) cannot run; first #2 "
                   "(counters='' grid=16 procs=3x1 clusters=2): --clusters: '2' does not divide"),
        std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "campaigns"));
}

struct BadInput {
  const char* what;
  std::string spec;     // the spec file's text ("" for none)
  std::string args;     // after "mcb-campaign"; SPEC stands for the spec's path
  std::string message;  // the one line must hold this
};

TEST(CampaignBadInput, EndsWithExitCodeTwoAndOneLineNamingTheKeyOrValue) {
  const std::string ok = "grid = 16\nprocs = 2x1\n";
  const std::vector<BadInput> cases = {
      {"unknown key", poisson_spec("b", "repetiton = 2", ok), "run SPEC",
       "s.ini:4: unknown key 'repetiton'"},
      {"unknown option", poisson_spec("b", "", ok + "gird = 16\n"), "run SPEC",
       "s.ini:9: gird: mcb-poisson refuses it: unknown option 'gird'"},
      {"value the application refuses", poisson_spec("b", "", ok + "tolerance = -1\n"), "run SPEC",
       "s.ini:9: tolerance: mcb-poisson refuses it: --tolerance: '-1' must be positive"},
      {"value the application refuses, dry-run", poisson_spec("b", "", ok + "tolerance = -1\n"),
       "dry-run SPEC", "tolerance: mcb-poisson refuses it: --tolerance: '-1' must be positive"},
      {"value the application refuses, scripts",
       poisson_spec("b", "executor = slurm\n[slurm]\npartitions = a", ok + "tolerance = -1\n"),
       "scripts SPEC", "tolerance: mcb-poisson refuses it: --tolerance: '-1' must be positive"},
      {"one bad value in a sweep", poisson_spec("b", "", ok + "tolerance = 1e-6 0\n"),
       "dry-run SPEC", "tolerance: mcb-poisson refuses it: --tolerance: '0' must be positive"},
      {"a program without --check", "name = b\napp = poisson\nbinary = /bin/true\n", "run SPEC",
       "binary: '/bin/true --check' gave no answer"},
      {"empty sweep", poisson_spec("b", "", "grid =\nprocs = 2x1\n"), "run SPEC",
       "grid: empty list of values"},
      {"unknown executor", poisson_spec("b", "executor = lsf", ok), "run SPEC",
       "executor: 'lsf' is not one of local, smpi, slurm, pbs"},
      {"unknown executor option", poisson_spec("b", "", ok), "run SPEC --executor lsf",
       "--executor: 'lsf' is not one of local, smpi, slurm, pbs"},
      {"missing binary", "name = b\napp = poisson\nbinary = /no/such/dir/mcb-poisson\n", "run SPEC",
       "binary: '/no/such/dir/mcb-poisson' does not exist"},
      {"application without a program", "name = b\napp = nosuch\n", "run SPEC",
       "app: 'nosuch': no program '" + bin("mcb-nosuch") + "'"},
      {"switch value", poisson_spec("b", "", ok + "sync = maybe\n"), "run SPEC",
       "sync: mcb-poisson refuses it: the argument ('maybe') for option 'sync' is invalid"},
      {"option value", poisson_spec("b", "", ok + "halo = sideways\n"), "run SPEC",
       "halo: mcb-poisson refuses it: --halo: 'sideways' is not one of paper, exact"},
      {"reserved key", poisson_spec("b", "", ok + "output = x.jsonl\n"), "run SPEC",
       "'output' is set by mcb-campaign for each run"},
      {"unknown command", poisson_spec("b", "", ok), "launch SPEC",
       "command: 'launch' is not one of dry-run, run, scripts, status, collect"},
      {"missing spec", "", "run", "run: missing the campaign SPEC file"},
      {"unreadable spec", "", "run /no/such/spec.ini",
       "/no/such/spec.ini: cannot read the campaign spec"},
      {"unknown option of mcb-campaign", poisson_spec("b", "", ok), "run SPEC --fast",
       "unrecognised option '--fast'"},
      {"progress typed at parse time", poisson_spec("b", "", ok), "run SPEC --progress fast",
       "--progress: 'fast' is not one of auto, live, lines"},
      {"duration typed at parse time", poisson_spec("b", "", ok), "collect SPEC --poll 0s",
       "--poll: '0s' must be positive"},
      {"scripts for the local executor", poisson_spec("b", "", ok), "scripts SPEC",
       "executor: 'local' writes no jobscripts"},
      {"slurm without partitions", poisson_spec("b", "executor = slurm", ok), "run SPEC",
       "[slurm] partitions: missing"},
  };
  for (const BadInput& c : cases) {
    TempDir dir;
    const std::string spec = dir / "s.ini";
    if (!c.spec.empty()) write_file(spec, c.spec);
    std::string args = c.args;
    if (const auto at = args.find("SPEC"); at != std::string::npos)
      args.replace(at, 4, quote(spec));
    const CommandResult r = mcb_campaign(args);
    EXPECT_EQ(r.exit_code, 2) << c.what << "\n" << r.out << r.err;
    ASSERT_EQ(r.err_lines().size(), 1u) << c.what << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.what << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("mcb-campaign: ", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "campaigns")) << c.what << ": wrote before checking";
  }
}

TEST(CampaignLocal, RecordsEveryRunOnceAndARestartHasNothingToDo) {
  TempDir dir;
  const std::string spec = write_poisson_spec(
      dir.path(), "local", "timeout = 2min",
      "grid = 16\nhalo = exact\nprocs = 2x1\nclusters = 1 2\nmax-iterations = 200000 3\n");
  const CommandResult r = mcb_campaign(campaign_args("run", spec));
  // Two runs cannot converge in 3 iterations: their INVALID verdict makes the campaign's exit 1.
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("[4/4] local-4-r1 invalid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4 runs: 2 valid, 2 invalid, 0 failed, 0 without a record"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("failures:\n  local-2-r1  invalid: did not converge in 3 iterations"),
            std::string::npos)
      << r.out;

  const fs::path folder = dir.path() / "campaigns" / "local";
  const std::vector<json> records = read_records(folder / "records.jsonl");
  ASSERT_EQ(records.size(), 4u);
  std::map<std::string, json> by_id = records_by_id(folder / "records.jsonl");
  ASSERT_EQ(by_id.size(), 4u) << "a run recorded twice";
  for (const auto& [id, rec] : by_id) {
    EXPECT_EQ(rec["schema"], "mcb-run/2");
    EXPECT_EQ(rec["campaign"], "local");
    EXPECT_EQ(rec["repetition"], 1);
    EXPECT_EQ(rec["app"], "poisson");
  }
  EXPECT_EQ(by_id.at("local-1-r1")["status"], "valid");
  EXPECT_EQ(by_id.at("local-1-r1")["config"]["components"], 1);
  EXPECT_EQ(by_id.at("local-3-r1")["status"], "valid");
  EXPECT_EQ(by_id.at("local-3-r1")["config"]["cluster_map"], json({0, 1}));
  EXPECT_EQ(by_id.at("local-4-r1")["status"], "invalid");
  EXPECT_TRUE(fs::exists(folder / "plan.json"));
  EXPECT_TRUE(fs::exists(folder / "runs" / "1-r1.log"));

  const std::string before = slurp(folder / "records.jsonl");
  const CommandResult again = mcb_campaign(campaign_args("run", spec));
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.out.find("4 runs, 4 already recorded, 0 to run"), std::string::npos) << again.out;
  EXPECT_EQ(slurp(folder / "records.jsonl"), before);

  const CommandResult status = mcb_campaign(campaign_args("status", spec));
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_NE(status.out.find("no executor running"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("4 runs: 2 valid, 2 invalid"), std::string::npos) << status.out;
  // One row per run: id, state, batch job id, node list, elapsed, verdict; --json the same.
  EXPECT_NE(status.out.find("RUN         STATE     JOBID  NODELIST"), std::string::npos)
      << status.out;
  const CommandResult as_json = mcb_campaign(campaign_args("status", spec, "--json"));
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const json doc = json::parse(as_json.out);
  ASSERT_EQ(doc["runs"].size(), 4u);
  for (const json& row : doc["runs"]) {
    const json& rec = by_id.at(row["id"].get<std::string>());
    EXPECT_EQ(row["state"], "recorded");
    EXPECT_EQ(row["verdict"], rec["status"]);
    EXPECT_EQ(row["nodes"], rec["env"]["hosts"][0]);
    EXPECT_EQ(row["elapsed_s"], rec["result"]["wall_time"]);
    EXPECT_TRUE(row["batch_job_id"].is_null()) << "not run in a batch job";
    EXPECT_NE(status.out.find(row["id"].get<std::string>() + "  recorded"), std::string::npos)
        << status.out;
  }

  // A changed spec may not reuse the folder under the same ids.
  write_file(spec, poisson_spec("local", "",
                                "grid = 24\nhalo = exact\nprocs = 2x1\nclusters = 1 2\n"
                                "max-iterations = 200000 3\n"));
  const CommandResult changed = mcb_campaign(campaign_args("run", spec));
  EXPECT_EQ(changed.exit_code, 2);
  EXPECT_NE(changed.err.find("the spec changed since campaign 'local' started: configuration 1"),
            std::string::npos)
      << changed.err;
}

TEST(CampaignLocal, RecordsFailuresWithTheirReasonAndGoesOn) {
  TempDir dir;
  // grid 2000 cannot finish in 20 s, and grid 16 does even beside a CPU hog (an mpirun start
  // took 15 s at a load of 30); a cluster map from a variable the ranks do not have passes
  // the check (only the run sees the ranks' environment) and is refused when the run starts.
  const std::string spec =
      write_poisson_spec(dir.path(), "fail", "timeout = 20s",
                         "grid = 2000 16\nprocs = 2x1\ncluster-map = \"\" env:MCB_TEST_UNSET\n");
  const CommandResult r = mcb_campaign(campaign_args("run", spec));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto by_id = records_by_id(dir.path() / "campaigns/fail/records.jsonl");
  ASSERT_EQ(by_id.size(), 4u) << r.out;
  EXPECT_EQ(by_id.at("fail-1-r1")["status"], "failed");
  EXPECT_EQ(by_id.at("fail-1-r1")["reason"], "timed out (timeout 20.0s)");
  for (const char* id : {"fail-2-r1", "fail-4-r1"}) {
    const json& rec = by_id.at(id);
    EXPECT_EQ(rec["status"], "failed");
    EXPECT_EQ(rec["reason"],
              "mpirun exit code 2: mcb-poisson: --cluster-map: 'env:MCB_TEST_UNSET': variable "
              "MCB_TEST_UNSET is not set on rank 0")
        << id;
    EXPECT_EQ(rec["failure"]["exit_code"], 2);
    EXPECT_EQ(rec["schema"], "mcb-run/2");
    EXPECT_EQ(rec["app"], "poisson");
    EXPECT_EQ(rec["config"]["total_size"], 2);
    EXPECT_EQ(rec["config"]["options"]["cluster-map"], "env:MCB_TEST_UNSET");
  }
  EXPECT_EQ(by_id.at("fail-3-r1")["status"], "valid");
  EXPECT_NE(r.out.find("4 runs: 1 valid, 0 invalid, 3 failed"), std::string::npos) << r.out;
  EXPECT_TRUE(campaign_processes("fail").empty()) << "a timed-out run left processes behind";
}

TEST(CampaignLocal, AKilledLauncherOrRankIsRecordedAndTheCampaignGoesOn) {
  TempDir dir;
  // grid 600 in paper mode runs for minutes: long enough to be killed from outside.
  const std::string spec = write_poisson_spec(dir.path(), "crash", "timeout = 2min",
                                              "grid = 600 16\nprocs = 2x1\nseed = 1 2\n");
  BackgroundCampaign executor({"run", spec, "--progress", "lines"}, dir / "out", dir / "err");

  std::vector<pid_t> launcher;
  ASSERT_TRUE(
      wait_for([&] { return !(launcher = run_processes("crash-1-r1", "mpirun")).empty(); }, 60));
  ASSERT_TRUE(wait_for([&] { return run_processes("crash-1-r1", "mcb-poisson").size() == 2; }, 60));
  ::kill(launcher.front(), SIGKILL);

  std::vector<pid_t> ranks;
  ASSERT_TRUE(wait_for(
      [&] { return (ranks = run_processes("crash-2-r1", "mcb-poisson")).size() == 2; }, 60));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(ranks.back(), SIGKILL);

  ASSERT_EQ(executor.wait(120), 1) << slurp(dir / "out") << slurp(dir / "err");
  const auto by_id = records_by_id(dir.path() / "campaigns/crash/records.jsonl");
  ASSERT_EQ(by_id.size(), 4u) << slurp(dir / "out");
  EXPECT_EQ(by_id.at("crash-1-r1")["status"], "failed");
  EXPECT_NE(by_id.at("crash-1-r1")["reason"].get<std::string>().find("mpirun killed by signal 9"),
            std::string::npos)
      << by_id.at("crash-1-r1")["reason"];
  EXPECT_EQ(by_id.at("crash-2-r1")["status"], "failed");
  const std::string rank_reason = by_id.at("crash-2-r1")["reason"];
  EXPECT_NE(rank_reason.find("signal 9"), std::string::npos) << rank_reason;
  EXPECT_EQ(by_id.at("crash-3-r1")["status"], "valid");
  EXPECT_EQ(by_id.at("crash-4-r1")["status"], "valid");
  EXPECT_TRUE(wait_for([] { return campaign_processes("crash").empty(); }, 10))
      << "processes of killed runs were left behind";
}

TEST(CampaignLocal, AfterKillNineOfTheExecutorARestartRunsOnlyWhatHasNoRecordAndEachRunOnce) {
  TempDir dir;
  const std::string spec = write_poisson_spec(
      dir.path(), "resume", "repetitions = 4\ntimeout = 2min", "grid = 60\nprocs = 2x1\n");
  const fs::path folder = dir.path() / "campaigns/resume";
  {
    BackgroundCampaign executor({"run", spec, "--progress", "lines"}, dir / "out", dir / "err");
    // Kill it while its second run is under way.
    ASSERT_TRUE(wait_for([&] { return read_records(folder / "records.jsonl").size() == 1; }, 60))
        << slurp(dir / "out") << slurp(dir / "err");
    ASSERT_TRUE(
        wait_for([&] { return run_processes("resume-1-r2", "mcb-poisson").size() == 2; }, 60));
    executor.signal(SIGKILL);
    EXPECT_EQ(executor.wait(10), 128 + SIGKILL);
  }
  // The executor's end took its mpirun along; a rank may still finish its record, or not.
  EXPECT_TRUE(wait_for([] { return run_processes("resume-1-r2", "mpirun").empty(); }, 10));
  // A crash in the middle of a write leaves a torn line; it must not count and must go.
  std::ofstream(folder / "records.jsonl", std::ios::app) << "{\"run_id\":\"resume-1-r3\",\"sta";

  const CommandResult r = mcb_campaign(campaign_args("run", spec, "--progress lines"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("4 runs: 4 valid, 0 invalid, 0 failed, 0 without a record"),
            std::string::npos)
      << r.out;
  const std::vector<json> records =
      read_records(folder / "records.jsonl");  // throws on a torn line
  ASSERT_EQ(records.size(), 4u);
  std::set<std::string> ids;
  for (const json& rec : records) {
    ids.insert(rec["run_id"].get<std::string>());
    EXPECT_EQ(rec["status"], "valid");
  }
  EXPECT_EQ(ids,
            (std::set<std::string>{"resume-1-r1", "resume-1-r2", "resume-1-r3", "resume-1-r4"}));
  EXPECT_TRUE(campaign_processes("resume").empty());
  EXPECT_FALSE(fs::exists(folder / ".inflight"));
}

TEST(CampaignLocal, CtrlCEndsTheRunUnderWayWithoutARecordAndTheNextStartRunsIt) {
  TempDir dir;
  const std::string spec = write_poisson_spec(dir.path(), "stop", "repetitions = 2\ntimeout = 2min",
                                              "grid = 600\nprocs = 2x1\n");
  const fs::path folder = dir.path() / "campaigns/stop";
  BackgroundCampaign executor({"run", spec}, dir / "out", dir / "err");
  ASSERT_TRUE(wait_for([&] { return run_processes("stop-1-r1", "mcb-poisson").size() == 2; }, 60));
  // One executor per folder.
  const CommandResult second = mcb_campaign(campaign_args("run", spec));
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("is in use by another mcb-campaign (pid " +
                            std::to_string(executor.pid()) + ")"),
            std::string::npos)
      << second.err;
  const CommandResult busy = mcb_campaign(campaign_args("status", spec));
  EXPECT_NE(busy.out.find("running (mcb-campaign pid " + std::to_string(executor.pid()) + ")"),
            std::string::npos)
      << busy.out;
  executor.signal(SIGINT);
  EXPECT_EQ(executor.wait(30), 130) << slurp(dir / "out");
  EXPECT_NE(slurp(dir / "out").find("interrupted: stop-1-r1 was ended and has no record"),
            std::string::npos)
      << slurp(dir / "out");
  EXPECT_TRUE(read_records(folder / "records.jsonl").empty());
  EXPECT_TRUE(campaign_processes("stop").empty());
  // The folder is free again.
  const CommandResult status = mcb_campaign(campaign_args("status", spec));
  EXPECT_NE(status.out.find("no executor running"), std::string::npos) << status.out;
}

TEST(CampaignLocal, EnsflowRunsItsValidCombinationsAndReportsTheOthers) {
  if (!fs::exists(bin("mcb-ensflow"))) {
    GTEST_SKIP() << "mcb-ensflow is not built in " << MCB_BIN_DIR;
  }
  TempDir dir;
  const std::string spec = write_file(
      dir.path() / "s.ini",
      "name = ens\napp = ensflow\nbinary = " + bin("mcb-ensflow") +
          "\ntimeout = 2min\n[options]\n"
          "members = 4 6\nranks = 2 3\ndays = 2\nanalysis-every = 1\ngrid = 15\nobservations = 10\n"
          "spinup-days = 1\ncounters = \"\"\n");
  const CommandResult dry = mcb_campaign(campaign_args("dry-run", spec));
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("#2 members=4 ranks=3 days=2 analysis-every=1 grid=15 observations=10 "
                         "spinup-days=1 counters='': --members: '4' is not divisible by the 3 "
                         "processes of this run"),
            std::string::npos)
      << dry.out;
  const CommandResult r = mcb_campaign(campaign_args("run", spec));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto by_id = records_by_id(dir.path() / "campaigns/ens/records.jsonl");
  ASSERT_EQ(by_id.size(), 3u);
  for (const char* id : {"ens-1-r1", "ens-3-r1", "ens-4-r1"}) {
    EXPECT_EQ(by_id.at(id)["status"], "valid") << id;
    EXPECT_EQ(by_id.at(id)["app"], "ensflow");
  }
  EXPECT_EQ(by_id.at("ens-4-r1")["config"]["total_size"], 3);
}

TEST(CampaignLocal, SynthRunsItsValidCombinationsAndReportsTheOthers) {
  if (!fs::exists(bin("mcb-synth"))) {
    GTEST_SKIP() << "mcb-synth is not built in " << MCB_BIN_DIR;
  }
  TempDir dir;
  const std::string spec =
      write_file(dir.path() / "s.ini",
                 "name = syn\napp = synth\nbinary = " + bin("mcb-synth") +
                     "\ntimeout = 2min\n[options]\n"
                     "pattern = ring allreduce\nclusters = 1 3\nranks = 2\niterations = 3\n"
                     "message-size = 1KiB\ncounters = \"\"\n");
  const CommandResult dry = mcb_campaign(campaign_args("dry-run", spec));
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("#2 pattern=ring clusters=3 ranks=2 iterations=3 message-size=1KiB "
                         "counters='': --clusters: '3' is more than the 2 processes of this run"),
            std::string::npos)
      << dry.out;
  const CommandResult r = mcb_campaign(campaign_args("run", spec));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto by_id = records_by_id(dir.path() / "campaigns/syn/records.jsonl");
  ASSERT_EQ(by_id.size(), 2u);
  for (const char* id : {"syn-1-r1", "syn-3-r1"}) {
    EXPECT_EQ(by_id.at(id)["status"], "valid") << id;
    EXPECT_EQ(by_id.at(id)["app"], "synth");
    EXPECT_EQ(by_id.at(id)["verdict"]["checksum"], by_id.at(id)["verdict"]["expected_checksum"]);
  }
  EXPECT_EQ(by_id.at("syn-3-r1")["config"]["pattern"], "allreduce");
}

}  // namespace
