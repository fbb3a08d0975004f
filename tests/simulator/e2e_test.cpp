// End-to-end: the real mcb-sim binary on small committed inputs; its files and exit codes.
#include "common/csv.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::string kBin = std::string(MCB_BIN_DIR) + "/mcb-sim";
const std::string kFix = MCB_FIXTURES_DIR;
const std::string kRef = kFix + "/simulator/das2-study/";
const std::string kTables = "--tables " + kRef + "poisson_sim_service_times.csv --tables " + kRef +
                            "ensflow_sim_service_times.csv";
const std::string kExcerpt = kFix + "/traces/DAS2-fs1-2003-1-excerpt.swf";
const std::string kFullTrace =
    std::string(MCB_SOURCE_DIR) + "/../shared/traces/DAS2-fs1-2003-1.swf";

using mcb::testing::slurp;

class E2e : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("mcb_sim_e2e_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs "<prefix> mcb-sim <args>" and captures its exit code, stdout and stderr.
  mcb::testing::CommandResult run(const std::string& args, const std::string& prefix = "") {
    return mcb::testing::run_command(prefix + kBin + " " + args);
  }
  std::string out(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}

std::vector<std::string> cells(const std::string& line) { return mcb::csv::split(line); }

TEST_F(E2e, WritesJobsCsvAndSummaryJson) {
  const auto r = run("--workload poisson " + kTables +
                     " --utilization 0.5 --jobs 2000 --rule co --seed 9 --output " + out("o"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(slurp(out("o/jobs.csv")));
  ASSERT_EQ(rows.size(), 2001u);
  EXPECT_EQ(rows[0],
            "id,app,submit,start,end,wait,response,bounded_slowdown,total_size,components,clusters,"
            "queue,service,net_service,requested,reserved,measured,replication");
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = cells(rows[i]);
    ASSERT_EQ(c.size(), 18u) << rows[i];
    EXPECT_EQ(c[1], "poisson");
    EXPECT_DOUBLE_EQ(std::stod(c[5]), std::stod(c[3]) - std::stod(c[2])) << "wait = start - submit";
    EXPECT_DOUBLE_EQ(std::stod(c[6]), std::stod(c[4]) - std::stod(c[2]))
        << "response = end - submit";
    int used = 0, clusters = 0;
    std::stringstream parts(c[10]);
    std::string part;
    while (std::getline(parts, part, ';')) {
      used += std::stoi(part.substr(part.find(':') + 1));
      ++clusters;
    }
    EXPECT_EQ(used, std::stoi(c[8])) << "clusters used hold the total size";
    EXPECT_EQ(clusters, std::stoi(c[9])) << "unordered: one cluster per component";
  }
  const auto doc = nlohmann::json::parse(slurp(out("o/summary.json")));
  EXPECT_EQ(doc["schema"], "mcb-sim-summary/1");
  EXPECT_EQ(doc["seeds"]["base"], 9);
  EXPECT_EQ(doc["config"]["rule"][0], "co");
  EXPECT_EQ(doc["config"]["warmup_jobs"], 200);
  EXPECT_TRUE(doc["env"].contains("revision"));
  EXPECT_EQ(doc["result"]["jobs"]["measured_completed"], 1800);
  EXPECT_GE(doc["result"]["utilization"]["gross"].get<double>(),
            doc["result"]["utilization"]["net"].get<double>());
  EXPECT_TRUE(doc["result"]["response"]["ci95"].is_array());
  for (const auto& e : fs::directory_iterator(out("o"))) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
  EXPECT_NE(r.out.find("summary.json"), std::string::npos);
}

struct BadCase {
  std::string name;
  std::string args;
  std::vector<std::string> says;
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadInput : public E2e, public ::testing::WithParamInterface<BadCase> {};

TEST_P(BadInput, ExitsWithTwoAndOneLineNamingIt) {
  const auto r = run(GetParam().args + " --output " + out("never"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  EXPECT_EQ(r.err.rfind("mcb-sim: ", 0), 0u) << r.err;
  for (const auto& s : GetParam().says)
    EXPECT_NE(r.err.find(s), std::string::npos) << "'" << s << "' in " << r.err;
  EXPECT_FALSE(fs::exists(out("never"))) << "nothing written";
}

const std::string kSynth = "--workload poisson " + kTables + " --utilization 0.5 --jobs 100 ";

INSTANTIATE_TEST_SUITE_P(
    Cases, BadInput,
    ::testing::Values(
        BadCase{"UnknownPolicy", kSynth + "--policy xs", {"--policy", "'xs'"}},
        BadCase{"UnknownPlacement", kSynth + "--placement worst", {"--placement", "'worst'"}},
        BadCase{"UnknownRule", kSynth + "--rule some", {"--rule", "'some'"}},
        BadCase{"UnknownQueue", kSynth + "--queue lifo", {"--queue", "'lifo'"}},
        BadCase{"ZeroClusters", kSynth + "--clusters 0x32", {"--clusters", "'0x32'"}},
        BadCase{"NegativeClusterSize", kSynth + "--clusters 32,-4,32", {"--clusters", "-4"}},
        BadCase{"MalformedClusters", kSynth + "--clusters 32,abc", {"--clusters", "'32,abc'"}},
        BadCase{"JobLargerThanSystem",
                kSynth + "--clusters 1x16",
                {"size 32", "larger than the system"}},
        BadCase{"NoSplitUnderRule", kSynth + "--rule no --clusters 4x16", {"--rule no", "size 32"}},
        BadCase{
            "TableMissingASize",
            "--workload poisson --tables " + kFix + "/simulator/tables-missing --utilization 0.5",
            {"--tables", "tables-missing/runtimes.csv", "total_size 32"}},
        BadCase{"TableWithTwoProblems",
                "--workload poisson --tables " + kFix +
                    "/simulator/tables-two-problems --utilization 0.5",
                {"problems 'large', 'small'", "--problem poisson=NAME"}},
        BadCase{"TraceJobLargerThanSystem",
                "--trace " + kExcerpt + " --clusters 2x16 --rule co",
                {"excerpt.swf:", "needs 48 processors"}},
        BadCase{"MalformedSwfLine",
                "--trace " + kFix + "/simulator/bad-line.swf --clusters 16",
                {"bad-line.swf:5:", "17 fields"}},
        BadCase{"MissingTrace", "--trace " + kFix + "/nope.swf", {"--trace", "nope.swf"}},
        BadCase{"JobsGivenWithATrace",
                "--trace " + kExcerpt + " --jobs 100",
                {"--jobs", "'100'", "--workload only"}},
        BadCase{"UnknownCompressionOrder",
                "--workload poisson " + kTables + " --utilization 0.5 --compression sjf",
                {"--compression", "'sjf'"}},
        BadCase{"UnknownCompressAt",
                "--workload poisson " + kTables + " --utilization 0.5 --compress-at sometimes",
                {"--compress-at", "'sometimes'"}},
        BadCase{"FlexMinComponentZero",
                "--workload poisson " + kTables + " --utilization 0.5 --flex-min-component 0",
                {"--flex-min-component", "'0'"}},
        BadCase{"BadArrivalPass",
                "--workload poisson " + kTables + " --utilization 0.5 --arrival-pass maybe",
                {"--arrival-pass", "'maybe'"}},
        BadCase{"BadLpGlobalVisit",
                "--workload poisson " + kTables + " --utilization 0.5 --lp-global-visit later",
                {"--lp-global-visit", "'later'"}},
        BadCase{"BadHome",
                "--workload poisson " + kTables + " --utilization 0.5 --home shortest",
                {"--home", "'shortest'"}},
        BadCase{"NonNumericUtilization",
                "--workload poisson " + kTables + " --utilization abc",
                {"--utilization", "'abc'"}},
        BadCase{"NegativeJobs",
                "--workload poisson " + kTables + " --utilization 0.5 --jobs -5",
                {"--jobs", "'-5'"}},
        BadCase{"WarmupLeavesNothing", kSynth + "--warmup 100%", {"--warmup", "'100%'"}},
        BadCase{"MoldableMinAboveOne",
                kSynth + "--request moldable --moldable-min 1.5",
                {"--moldable-min", "'1.5'"}},
        BadCase{"UnknownSpeedup",
                kSynth + "--request moldable --speedup cubic",
                {"--speedup", "'cubic'"}},
        BadCase{"NegativeDowneySigma", kSynth + "--downey-sigma -1", {"--downey-sigma", "'-1'"}},
        BadCase{"MoldableWithLinkAware",
                kSynth + "--request moldable --placement link-aware --platform " +
                    std::string(MCB_SOURCE_DIR) + "/matching/platforms/four-clusters.ini",
                {"--request", "'moldable'", "link-aware"}},
        BadCase{"MoldableWithPlatform",
                kSynth + "--request moldable --clusters 4x32 --platform " +
                    std::string(MCB_SOURCE_DIR) + "/matching/platforms/four-clusters.ini",
                {"--request", "'moldable'", "--platform"}},
        BadCase{"UnknownSiteSelection", kSynth + "--site-select fast", {"--site-select", "'fast'"}},
        BadCase{"SpeedsForTooFewClusters", kSynth + "--speeds 1,1,0.5", {"--speeds", "'1,1,0.5'"}},
        BadCase{"UnknownOption", kSynth + "--bogus 1", {"bogus"}},
        BadCase{"CoallocFactorMissingACount",
                kSynth + "--coalloc-factor 2:1.1,3:1.2",
                {"--coalloc-factor", "no factor for 4 clusters"}},
        BadCase{"CoallocFactorCountOutsideTheSystem",
                kSynth + "--coalloc-factor 2:1.1,5:1.2",
                {"--coalloc-factor", "'5:1.2'"}},
        BadCase{
            "SiteRatesForTooFewClusters", kSynth + "--site-rates 1,2", {"--site-rates", "'1,2'"}},
        BadCase{
            "SiteRatesAllZero", kSynth + "--site-rates 0,0,0,0", {"--site-rates", "no rate > 0"}},
        BadCase{"SiteRatesWithHomeInTurn",
                kSynth + "--site-rates 1,1,1,1 --home turn",
                {"--site-rates", "--home turn"}},
        BadCase{"NoTables", "--workload poisson --utilization 0.5", {"--tables"}},
        BadCase{"UnknownMix",
                "--workload nosuchmix " + kTables + " --utilization 0.5",
                {"--workload", "'nosuchmix'"}}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return info.param.name; });

TEST_F(E2e, MissingOutputIsAnError) {
  const auto r = run(kSynth);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--output"), std::string::npos) << r.err;
}

TEST_F(E2e, SameSeedSameFiles) {
  const std::string args = "--workload mixed " + kTables +
                           " --utilization 0.6 --jobs 1500 --rule rco --policy ls --queue easy ";
  ASSERT_EQ(run(args + "--output " + out("a")).exit_code, 0);
  ASSERT_EQ(run(args + "--output " + out("b")).exit_code, 0);
  EXPECT_EQ(slurp(out("a/jobs.csv")), slurp(out("b/jobs.csv")));
  auto a = nlohmann::json::parse(slurp(out("a/summary.json")));
  auto b = nlohmann::json::parse(slurp(out("b/summary.json")));
  EXPECT_EQ(a["result"], b["result"]);
  EXPECT_EQ(a["config"], b["config"]);
}

TEST_F(E2e, ConfigFileGivesOptions) {
  const auto r =
      run("--config " + kFix + "/simulator/sim.ini " + kTables + " --output " + out("c"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(slurp(out("c/summary.json")));
  EXPECT_EQ(doc["config"]["policy"][0], "lp");
  EXPECT_EQ(doc["config"]["queue"][0], "easy");
  EXPECT_EQ(doc["config"]["workload"]["jobs"], 1500);
}

// The sweep: one row per arrival rate and curve; the saturation point located on each curve.
void check_sweep(const std::string& csv, size_t curves, size_t per_curve) {
  const auto rows = lines(csv);
  ASSERT_EQ(rows.size(), 1 + curves * per_curve);
  const auto header = cells(rows[0]);
  ASSERT_EQ(header.back(), "saturation_point");
  for (size_t c = 0; c < curves; ++c) {
    double last_rate = 0;
    int first_saturated = 0, last_stable = 0;
    bool seen_saturated = false;
    for (size_t i = 0; i < per_curve; ++i) {
      const auto f = cells(rows[1 + c * per_curve + i]);
      ASSERT_EQ(f.size(), header.size()) << rows[1 + c * per_curve + i];
      EXPECT_GT(std::stod(f[5]), last_rate) << "rows of a curve by increasing rate";
      last_rate = std::stod(f[5]);
      const bool saturated = f[22] == "1";
      if (f[23] == "first_saturated") {
        ++first_saturated;
        EXPECT_TRUE(saturated);
        EXPECT_FALSE(seen_saturated) << "the first saturated row is marked";
      }
      if (f[23] == "last_stable") {
        ++last_stable;
        EXPECT_FALSE(saturated);
      }
      seen_saturated = seen_saturated || saturated;
    }
    EXPECT_EQ(first_saturated, 1) << "curve " << c;
    EXPECT_EQ(last_stable, 1) << "curve " << c;
  }
}

const std::string kSweep =
    "--workload poisson " + kTables +
    " --utilization 0.3,0.6,1.3 --jobs 2500 --rule fco --policy gs,ls --replications 2 ";

TEST_F(E2e, SweepLocatesTheSaturationPoint) {
  const auto r = run(kSweep + "--output " + out("s"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  check_sweep(slurp(out("s/sweep.csv")), 2, 3);
  const auto doc = nlohmann::json::parse(slurp(out("s/sweep.json")));
  ASSERT_EQ(doc["curves"].size(), 2u);
  for (const auto& c : doc["curves"]) {
    EXPECT_TRUE(c["saturated_within_sweep"].get<bool>());
    EXPECT_NEAR(c["first_saturated"]["offered_utilization"].get<double>(), 1.3, 1e-12);
    EXPECT_NEAR(c["last_stable"]["offered_utilization"].get<double>(), 0.6, 1e-12);
  }
  EXPECT_EQ(doc["points"].size(), 6u);
  EXPECT_EQ(doc["seeds"]["replications"].size(), 2u);
  EXPECT_FALSE(fs::exists(out("s/jobs.csv")));
}

TEST_F(E2e, MpiRanksShareASweepWithTheSameResults) {
  const std::string mpiexec = MCB_MPIEXEC;
  if (mpiexec.empty()) GTEST_SKIP() << "no mpiexec found at configure time";
  const auto serial = run(kSweep + "--output " + out("serial"));
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  const std::string launch = std::string("env ") + MCB_MPI_ENV + " " + mpiexec + " -np 2 ";
  const auto parallel = run(kSweep + "--output " + out("mpi"), launch);
  ASSERT_EQ(parallel.exit_code, 0) << parallel.err;
  EXPECT_NE(parallel.out.find("on 2 rank(s)"), std::string::npos) << parallel.out;
  EXPECT_EQ(slurp(out("serial/sweep.csv")), slurp(out("mpi/sweep.csv")));
  const auto bad = run(kSynth + "--policy xs --output " + out("bad"), launch);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--policy"), std::string::npos) << bad.err;
}

TEST_F(E2e, TraceExcerptWithEasyBackfilling) {
  const auto r =
      run("--trace " + kExcerpt + " --clusters 64 --queue easy --warmup 0 --output " + out("t"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(slurp(out("t/jobs.csv")));
  const auto doc = nlohmann::json::parse(slurp(out("t/summary.json")));
  EXPECT_EQ(rows.size(), 601u) << "every job of the excerpt has processors and a runtime";
  EXPECT_EQ(doc["config"]["workload"]["header"]["MaxProcs"], "64");
  EXPECT_EQ(doc["config"]["workload"]["jobs"], 600);
  int reserved = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = cells(rows[i]);
    EXPECT_DOUBLE_EQ(std::stod(c[12]), std::stod(c[4]) - std::stod(c[3]))
        << "one cluster: runtime as recorded";
    if (!c[15].empty()) {
      ++reserved;
      EXPECT_LE(std::stod(c[3]), std::stod(c[15]) + 1e-6) << "never after its reservation";
    }
  }
  EXPECT_EQ(doc["result"]["utilization"]["gross"], doc["result"]["utilization"]["net"]);
}

TEST_F(E2e, TraceReplayKeepsEveryJobOnTheTracesOwnCluster) {
  // Only --trace and --queue: no warm-up, no early stop even at 4x the recorded load, and one
  // cluster of the header's MaxProcs (64).
  const auto r = run("--trace " + kExcerpt + " --queue easy --rate " + "0.05 --output " + out("t"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(slurp(out("t/summary.json")));
  EXPECT_EQ(doc["config"]["clusters"]["sizes"], nlohmann::json::array({64}));
  EXPECT_EQ(doc["config"]["warmup_jobs"], 0);
  EXPECT_EQ(doc["result"]["jobs"]["measured_completed"], 600);
  EXPECT_EQ(doc["left_out"]["total"], 0);
  EXPECT_FALSE(doc["result"]["stopped_early"].get<bool>());
  const auto rows = lines(slurp(out("t/jobs.csv")));
  double last_end = 0, area = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = cells(rows[i]);
    last_end = std::max(last_end, std::stod(c[4]));
    area += std::stod(c[8]) * std::stod(c[12]);
  }
  EXPECT_DOUBLE_EQ(doc["result"]["makespan"].get<double>(), last_end) << "first submit is 0";
  EXPECT_NEAR(doc["result"]["utilization"]["makespan_gross"].get<double>(), area / (64 * last_end),
              1e-9);
  EXPECT_NE(r.out.find("makespan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("left out 0"), std::string::npos) << r.out;
}

TEST_F(E2e, TraceEarlyStopTheUserAskedForIsSaidLoudly) {
  const auto r = run("--trace " + kExcerpt + " --queue easy --rate 0.05 --max-in-system 20 " +
                     "--warmup 10 --output " + out("t"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(slurp(out("t/summary.json")));
  const auto& left = doc["left_out"];
  EXPECT_TRUE(left["stopped_early"].get<bool>());
  EXPECT_EQ(left["warmup"], 10);
  EXPECT_GT(left["never_arrived"].get<int>(), 0);
  EXPECT_EQ(left["total"].get<int>(),
            10 + left["unfinished_at_stop"].get<int>() + left["never_arrived"].get<int>());
  EXPECT_EQ(doc["result"]["jobs"]["measured_completed"].get<int>() + left["total"].get<int>(), 600);
  EXPECT_NE(r.out.find("STOPPED EARLY"), std::string::npos) << r.out;
}

TEST_F(E2e, JobListWithExplicitComponents) {
  const auto r = run("--trace " + kFix + "/simulator/joblist.csv " + kTables +
                     " --warmup 0 --output " + out("l"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(slurp(out("l/jobs.csv")));
  ASSERT_EQ(rows.size(), 7u);
  std::map<std::string, std::vector<std::string>> by_id;
  for (size_t i = 1; i < rows.size(); ++i) by_id[cells(rows[i])[0]] = cells(rows[i]);
  EXPECT_EQ(by_id["1"][10], "0:8;2:8") << "fixed request on clusters 0 and 2";
  EXPECT_DOUBLE_EQ(std::stod(by_id["1"][12]), 766) << "Poisson 16 in 2 components";
  EXPECT_DOUBLE_EQ(std::stod(by_id["1"][13]), 649) << "net: Poisson 16 on one cluster";
  EXPECT_DOUBLE_EQ(std::stod(by_id["4"][12]), 1584) << "Ensflow 30 in 3 components";
  const bool spread =
      by_id["5"][10].find(';') != std::string::npos;  // non-fixed: may share a cluster
  EXPECT_DOUBLE_EQ(std::stod(by_id["5"][12]), spread ? 600 * 1.25 : 600)
      << "runtime x co-allocation factor when spread";
  EXPECT_DOUBLE_EQ(std::stod(by_id["5"][13]), 600);
}

// The hand-worked moldable case of simulator/README.md: shrink by free computing power, and a
// job whose smallest size does not fit waits.
TEST_F(E2e, MoldableJobListShrinksOrWaits) {
  const auto r = run("--trace " + kFix +
                     "/simulator/moldable.csv --clusters 2x16 --speeds 1,0.5 --policy grid "
                     "--site-select power --warmup 0 --output " +
                     out("m"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(slurp(out("m/jobs.csv")));
  ASSERT_EQ(rows.size(), 5u);
  std::map<std::string, std::vector<std::string>> by_id;
  for (size_t i = 1; i < rows.size(); ++i) by_id[cells(rows[i])[0]] = cells(rows[i]);
  EXPECT_EQ(by_id["2"][10], "1:10") << "rigid 10 where it fits";
  EXPECT_DOUBLE_EQ(std::stod(by_id["2"][12]), 200) << "100 s at speed 0.5";
  EXPECT_EQ(by_id["3"][8], "4") << "shrunk from 16 to cluster 0's 4 idle";
  EXPECT_EQ(by_id["3"][10], "0:4");
  EXPECT_DOUBLE_EQ(std::stod(by_id["3"][12]), 240) << "60 x 16 / 4";
  EXPECT_DOUBLE_EQ(std::stod(by_id["4"][3]), 100) << "smallest size 12 waits for job 1";
  EXPECT_EQ(by_id["4"][10], "0:12");
  EXPECT_DOUBLE_EQ(std::stod(by_id["4"][12]), 20) << "10 x 24 / 12";
}

// Seed 001's defect: a flexible job of 48 in a job list ran over 4 clusters under --rule no while
// summary.json said rule "no". The rule now holds: [no] refuses it (it fits no cluster of 32),
// and so does [fco] (two components of at most 16); [co] lets Worst Fit spread it evenly, and
// the list's own max_components 2 then gives two halves.
TEST_F(E2e, FlexibleJobListFollowsTheRule) {
  const std::string list = out("flex.csv");
  std::ofstream(list) << "submit,runtime,type,components\n0,100,flexible,48\n";
  for (const char* rule : {"no", "fco"}) {
    const auto r = run("--trace " + list + " --rule " + rule + " --output " + out(rule));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    EXPECT_NE(r.err.find("flex.csv:2:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--rule " + std::string(rule)), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out(rule)));
  }
  auto r = run("--trace " + list + " --rule co --warmup 0 --output " + out("co"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = lines(slurp(out("co/jobs.csv")));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(cells(rows[1])[10], "0:12;1:12;2:12;3:12");
  const std::string two = out("two.csv");
  std::ofstream(two) << "submit,runtime,type,components,max_components\n0,100,flexible,48,2\n";
  r = run("--trace " + two + " --rule co --warmup 0 --output " + out("two"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  rows = lines(slurp(out("two/jobs.csv")));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(cells(rows[1])[10], "0:24;1:24");
}

// Seed 001 section II's user bounds on flexible requests, for a synthetic mix: Poisson jobs
// (8, 16, 32) split by Worst Fit under [co] on 4x32. Unbounded, WF spreads them (8 as 4+4,
// components of 2 occur, 32 in 4 parts). With --flex-min-component 8 no component is smaller
// than 8 and an 8-processor job stays whole; with --flex-max-components 2 no job has more
// than two components.
TEST_F(E2e, FlexibleBoundsOfASyntheticMix) {
  struct Shape {
    int fewest_procs = 1 << 30, most_parts = 0, eights_split = 0;
  };
  const auto shape = [&](const std::string& extra, const std::string& dir) {
    const auto r = run("--workload poisson " + kTables +
                       " --request flexible --rule co --utilization 0.3 --jobs 300 --warmup 0 " +
                       extra + " --output " + out(dir));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Shape s;
    const auto rows = lines(slurp(out(dir + "/jobs.csv")));
    for (size_t i = 1; i < rows.size(); ++i) {
      const auto c = cells(rows[i]);
      int parts = 0;
      std::istringstream clusters(c[10]);
      for (std::string part; std::getline(clusters, part, ';');) {
        ++parts;
        s.fewest_procs = std::min(s.fewest_procs, std::stoi(part.substr(part.find(':') + 1)));
      }
      s.most_parts = std::max(s.most_parts, parts);
      s.eights_split += c[8] == "8" && parts > 1;
    }
    return s;
  };
  const Shape free = shape("", "free");
  EXPECT_LT(free.fewest_procs, 8);
  EXPECT_GT(free.most_parts, 2);
  EXPECT_GT(free.eights_split, 0);
  const Shape min8 = shape("--flex-min-component 8", "min8");
  EXPECT_GE(min8.fewest_procs, 8);
  EXPECT_EQ(min8.eights_split, 0);
  const Shape two = shape("--flex-max-components 2", "two");
  EXPECT_LE(two.most_parts, 2);
  const auto doc = nlohmann::json::parse(slurp(out("two/summary.json")));
  EXPECT_EQ(doc["config"]["flex_max_components"], 2);
  EXPECT_EQ(doc["config"]["flex_min_component"], 1);
}

// Seed 001 section VI's unequal local loads: with --site-rates 3,1,0,0 under LS, three jobs in
// four have their home (local queue) on cluster 0 and none on clusters 2 and 3; summary.json
// records the rates. Without the option the homes follow the clusters' sizes.
TEST_F(E2e, SiteRatesSetTheShareOfJobsPerHomeCluster) {
  const auto shares = [&](const std::string& extra, const std::string& dir) {
    const auto r = run("--workload poisson " + kTables +
                       " --policy ls --utilization 0.3 --jobs 2000 --warmup 0 " + extra +
                       " --output " + out(dir));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, int> count;
    const auto rows = lines(slurp(out(dir + "/jobs.csv")));
    for (size_t i = 1; i < rows.size(); ++i) ++count[cells(rows[i])[11]];
    std::map<std::string, double> share;
    for (const auto& [queue, n] : count) share[queue] = n / double(rows.size() - 1);
    return share;
  };
  auto share = shares("--site-rates 3,1,0,0", "rates");
  EXPECT_NEAR(share["local0"], 0.75, 0.04);
  EXPECT_NEAR(share["local1"], 0.25, 0.04);
  EXPECT_EQ(share.count("local2") + share.count("local3"), 0u);
  const auto doc = nlohmann::json::parse(slurp(out("rates/summary.json")));
  EXPECT_EQ(doc["config"]["site_rates"], nlohmann::json({3.0, 1.0, 0.0, 0.0}));
  share = shares("", "sizes");
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(share["local" + std::to_string(c)], 0.25, 0.04) << c;
}

// 001 IV.A: trace jobs spread over k clusters pay the factor for k. A 32-processor SWF job
// under [co] on 4x16 is split near-equally over 2, 3 or 4 clusters (drawn); each runs its
// runtime times the factor of the count it got, and the summary records the factors by count.
TEST_F(E2e, CoallocFactorByNumberOfClusters) {
  const std::string list = out("spread.swf");
  {
    std::ofstream f(list);
    for (int i = 1; i <= 40; ++i) {
      f << i << " " << i * 1000 << " 0 100 32 -1 -1 32 100 -1 1 1 1 -1 1 -1 -1 -1\n";
    }
  }
  const auto r = run("--trace " + list + " --clusters 4x16 --rule co --warmup 0 " +
                     "--coalloc-factor 2:1.1,3:1.2,4:1.4 --output " + out("bycount"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(slurp(out("bycount/jobs.csv")));
  ASSERT_EQ(rows.size(), 41u);
  std::set<int> seen;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = cells(rows[i]);
    const int k = std::stoi(c[9]);
    seen.insert(k);
    const double want = 100 * (k == 2 ? 1.1 : k == 3 ? 1.2 : 1.4);
    EXPECT_NEAR(std::stod(c[12]), want, 1e-9) << rows[i];
    EXPECT_NEAR(std::stod(c[13]), 100, 1e-9) << "net service: " << rows[i];
  }
  EXPECT_EQ(seen, (std::set<int>{2, 3, 4})) << "the draw covers every count";
  const auto doc = nlohmann::json::parse(slurp(out("bycount/summary.json")));
  EXPECT_EQ(doc["config"]["coalloc_factor"], nlohmann::json({{"2", 1.1}, {"3", 1.2}, {"4", 1.4}}));
}

TEST_F(E2e, MoldableSmallestSizeOfZeroIsRefused) {
  const std::string list = out("bad.csv");
  std::ofstream(list) << "submit,runtime,type,components,min_size\n0,10,moldable,8,0\n";
  const auto r = run("--trace " + list + " --clusters 2x16 --output " + out("never"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  EXPECT_NE(r.err.find("min_size"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":2:"), std::string::npos) << "names the line: " << r.err;
  EXPECT_FALSE(fs::exists(out("never")));
}

TEST_F(E2e, FullDas2TraceWithEasy) {
  if (!fs::exists(kFullTrace)) GTEST_SKIP() << "the full trace is not at " << kFullTrace;
  const auto r = run("--trace " + kFullTrace +
                     " --clusters 64 --queue easy --no-jobs-csv --output " + out("f"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(slurp(out("f/summary.json")));
  std::uint64_t skipped = 0;
  for (const auto& [why, n] : doc["config"]["workload"]["skipped"].items())
    skipped += n.get<std::uint64_t>();
  EXPECT_EQ(doc["config"]["workload"]["jobs"].get<std::uint64_t>() + skipped, 40315u);
  EXPECT_EQ(doc["result"]["jobs"]["arrived"], doc["config"]["workload"]["jobs"]);
  EXPECT_FALSE(doc["result"]["saturated"].get<bool>());
  EXPECT_FALSE(fs::exists(out("f/jobs.csv")));
}

// Golden files, one per output convention: the co-allocated job list's jobs.csv, Batsim jobs
// file and SWF schedule, byte for byte. A deliberate format change rewrites them with
//   mcb-sim --trace tests/fixtures/simulator/joblist.csv <the das2-study tables> --warmup 0
//           --rule co --schedule batsim,swf --output tests/fixtures/simulator/golden
// ([co]: the list's flexible job 6 may be split, as it is in the golden files.)
TEST_F(E2e, ScheduleFilesMatchTheirGoldenFiles) {
  const auto r = run("--trace " + kFix + "/simulator/joblist.csv " + kTables +
                     " --warmup 0 --rule co --schedule batsim,swf --output " + out("g"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"jobs.csv", "batsim_jobs.csv", "schedule.swf"}) {
    EXPECT_EQ(slurp(out(std::string("g/") + name)), slurp(kFix + "/simulator/golden/" + name))
        << name;
  }
}

TEST_F(E2e, ScheduleIsForOneRunAndNamesItsFormats) {
  auto r = run("--workload poisson " + kTables +
               " --jobs 200 --utilization 0.3,0.5 --schedule batsim --output " + out("s"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--schedule: 'batsim' is written for a single run"), std::string::npos)
      << r.err;
  r = run("--workload poisson " + kTables +
          " --jobs 200 --utilization 0.5 --schedule gantt --output " + out("s"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--schedule: 'gantt' is not batsim or swf"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out("s")));
}

// The replay: the whole DAS-2 fs1 trace gives a Batsim jobs file and an SWF schedule
// with one row per job it kept.
TEST_F(E2e, FullDas2TraceWritesBatsimAndSwfSchedules) {
  if (!fs::exists(kFullTrace)) GTEST_SKIP() << "the full trace is not at " << kFullTrace;
  const auto r =
      run("--trace " + kFullTrace + " --queue easy --schedule batsim,swf --output " + out("f"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(slurp(out("f/summary.json")));
  const auto jobs = doc["result"]["jobs"]["completed"].get<size_t>();
  EXPECT_EQ(jobs, doc["config"]["workload"]["jobs"].get<size_t>());
  const auto batsim = lines(slurp(out("f/batsim_jobs.csv")));
  EXPECT_EQ(batsim.size(), jobs + 1);
  size_t records = 0;
  for (const auto& l : lines(slurp(out("f/schedule.swf")))) records += !l.empty() && l[0] != ';';
  EXPECT_EQ(records, jobs);
}

TEST_F(E2e, HelpListsTheOptions) {
  const auto r = run("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* o :
       {"--workload", "--trace", "--clusters", "--policy", "--placement", "--rule", "--queue",
        "--tables", "--output", "--seed", "--utilization", "--rate", "--warmup"}) {
    EXPECT_NE(r.out.find(o), std::string::npos) << o;
  }
}

}  // namespace
