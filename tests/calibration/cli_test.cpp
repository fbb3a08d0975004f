// mcb-calibrate end to end on committed fixtures: the files a user gets, their numbers, the
// provenance, and refusals (exit code 2, one line naming file and line, nothing written).
#include "common/csv.hpp"
#include "record_builder.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace mcb::calib {
namespace {

namespace fs = std::filesystem;
using mcb::testing::slurp;
using nlohmann::json;

const std::string kRecords = std::string(MCB_FIXTURES_DIR) + "/records";
const std::string kReference = MCB_REFERENCE_DIR;

using Outcome = mcb::testing::CommandResult;

Outcome calibrate(const std::vector<std::string>& args) {
  return mcb::testing::run_program("mcb-calibrate", args);
}

// CSV as rows of fields keyed by the header; rows in file order.
struct Table {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};

Table read_csv(const fs::path& p) {
  const csv::Document doc = csv::read_file(p.string());
  Table t;
  t.header = doc.header.fields;
  for (const csv::Record& record : doc.rows) {
    const auto& f = record.fields;
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < f.size() && i < t.header.size(); ++i) row[t.header[i]] = f[i];
    t.rows.push_back(row);
  }
  return t;
}

double num(const std::string& s) { return std::stod(s); }

// A refusal: exit code 2, exactly one line on stderr starting with the expected text, nothing
// on stdout, and the output folder not created.
void expect_refusal(const std::vector<std::string>& inputs, const std::string& starts,
                    const std::vector<std::string>& more = {}) {
  const auto out = test::fresh_dir("refused") / "tables";
  std::vector<std::string> args;
  for (const auto& i : inputs) args.insert(args.end(), {"--input", i});
  args.insert(args.end(), {"--output", out.string()});
  args.insert(args.end(), more.begin(), more.end());
  const Outcome r = calibrate(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("mcb-calibrate: " + starts, 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(out)) << "output written for refused input";
  fs::remove_all(out.parent_path());
}

TEST(Refusals, MalformedJsonLine) {
  expect_refusal({kRecords + "/bad/malformed.jsonl"},
                 kRecords + "/bad/malformed.jsonl:2: malformed JSON");
}

TEST(Refusals, MissingField) {
  expect_refusal({kRecords + "/bad/missing-field.jsonl"},
                 kRecords + "/bad/missing-field.jsonl:2: missing field 'config.total_size'");
}

TEST(Refusals, UnknownSchema) {
  expect_refusal({kRecords + "/bad/wrong-schema.jsonl"},
                 kRecords + "/bad/wrong-schema.jsonl:1: unknown schema 'mcb-run/9'");
}

TEST(Refusals, MixedSchemaVersions) {
  expect_refusal({kRecords + "/bad/mixed-schema.jsonl"},
                 kRecords + "/bad/mixed-schema.jsonl:2: unknown schema 'mcb-run/3'");
}

TEST(Refusals, SameRunIdWithDifferentContent) {
  expect_refusal({kRecords + "/bad/conflict.jsonl"},
                 kRecords + "/bad/conflict.jsonl:2: run_id 'fxb-1-r1' was read before");
}

TEST(Refusals, EmptyInput) {
  expect_refusal({kRecords + "/bad/empty.jsonl"}, kRecords + "/bad/empty.jsonl: no records");
  const auto empty = test::fresh_dir("emptyfolder");
  expect_refusal({empty.string()}, "--input: '" + empty.string() + "': folder has no *.jsonl");
  fs::remove_all(empty);
}

TEST(Refusals, ARowAskedForWithNoRuns) {
  // 128x128 on 4 processes exists only as an invalid run.
  expect_refusal({kRecords + "/poisson-local"},
                 "--row poisson,128x128,4,1,local: no valid runs; records of it not valid: 1",
                 {"--row", "poisson,128x128,4,1,local"});
}

TEST(Refusals, RowWhoseRunsDifferInConfiguration) {
  expect_refusal({kRecords + "/poisson-local", kRecords + "/poisson-sync"},
                 "runtimes.csv row poisson,64x64,4,1,local: runs differ in config.sync");
}

TEST(Refusals, BadOptions) {
  expect_refusal({kRecords + "/poisson-local"}, "--where: 'sync' is not KEY=VALUE",
                 {"--where", "sync"});
  expect_refusal({kRecords + "/poisson-local"}, "--where snyc=true: no record has config.snyc",
                 {"--where", "snyc=true"});
  expect_refusal({kRecords + "/poisson-local"}, "--predict: 'poisson,64x64' is not",
                 {"--predict", "poisson,64x64"});
  const Outcome r = calibrate({"--output", "/tmp/x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give --input"), std::string::npos);
}

TEST(Refusals, ExistingOutputsStayUntouched) {
  const auto dir = test::fresh_dir("untouched");
  const std::string out = (dir / "tables").string();
  ASSERT_EQ(calibrate({"--input", kRecords + "/poisson-local", "--output", out, "-q"}).exit_code,
            0);
  const std::string before = slurp(fs::path(out) / "runtimes.csv");
  const Outcome r = calibrate(
      {"--input", kRecords + "/poisson-local", kRecords + "/bad/conflict.jsonl", "--output", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(slurp(fs::path(out) / "runtimes.csv"), before);
  for (const auto& entry : fs::directory_iterator(out)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos);
  }
  fs::remove_all(dir);
}

// The full calibration of the fixtures: Poisson non-synchronized and synchronized runs and two
// link-calibration runs, runtime table from the non-synchronized runs.
class FullCalibration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    suite_dir = new fs::path(test::fresh_dir("full"));
    suite_run = new Outcome(
        calibrate({"--input", kRecords + "/poisson-local", kRecords + "/poisson-sync", "--input",
                   kRecords + "/links-local", "--output", (*suite_dir / "tables").string(),
                   "--runtime-where", "sync=false", "--row", "poisson,64x64,4,2,local"}));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*suite_dir);
    delete suite_dir;
    delete suite_run;
  }
  static fs::path file(const std::string& name) { return *suite_dir / "tables" / name; }
  static fs::path* suite_dir;
  static Outcome* suite_run;
};
fs::path* FullCalibration::suite_dir = nullptr;
Outcome* FullCalibration::suite_run = nullptr;

TEST_F(FullCalibration, SucceedsAndSaysWhatItDropped) {
  ASSERT_EQ(suite_run->exit_code, 0) << suite_run->err;
  EXPECT_TRUE(suite_run->err.empty()) << suite_run->err;
  // 11 + 4 + 3 lines; the failed link run, the failed and the invalid Poisson run are not used.
  EXPECT_NE(
      suite_run->out.find("18 records in 4 file(s): 14 used, 3 not valid (failed 2, invalid 1)"),
      std::string::npos)
      << suite_run->out;
  EXPECT_NE(suite_run->out.find("1 identical repeat(s) ignored"), std::string::npos);
  EXPECT_NE(suite_run->out.find("4 left out of runtimes and fits by --runtime-where"),
            std::string::npos);
  EXPECT_NE(suite_run->out.find("timeout after 60 s"), std::string::npos);
  for (const char* name : {"runtimes.csv", "runtimes.json", "comm_time.csv", "comm_sync.csv",
                           "rank_comm.csv", "transfer_rates.csv", "compute_fits.csv",
                           "link_fits.csv", "service_times.csv", "calibration.json"}) {
    EXPECT_TRUE(fs::exists(file(name))) << name;
  }
}

TEST_F(FullCalibration, RuntimeTableByHand) {
  ASSERT_EQ(suite_run->exit_code, 0);
  EXPECT_EQ(slurp(file("runtimes.csv")),
            "app,problem,total_size,components,system,n,min,avg,max,median,stddev\n"
            "poisson,64x64,2,1,local,3,10,12,14,12,2\n"
            "poisson,64x64,4,1,local,4,6,8,11,7.5,2.160246899\n"
            "poisson,64x64,4,2,local,1,9,9,9,9,\n");
}

TEST_F(FullCalibration, ProvenanceSidecarNamesRecordsHostsDatesRevisions) {
  ASSERT_EQ(suite_run->exit_code, 0);
  std::ifstream in(file("runtimes.json"));
  const json s = json::parse(in);
  EXPECT_EQ(s.at("table"), "runtimes.csv");
  EXPECT_EQ(s.at("records").size(), 8u);
  EXPECT_EQ(s.at("hosts"), json::array({"node1"}));
  EXPECT_EQ(s.at("dates"), json::array({"2026-11-20"}));
  EXPECT_EQ(s.at("revisions"), json::array({"fixture-rev-1"}));
  EXPECT_FALSE(s.at("suite_revision").get<std::string>().empty());
  EXPECT_TRUE(s.at("generated_by").contains("command_line"));
  const json& row = s.at("rows").at(0);
  EXPECT_EQ(row.at("total_size"), 2);
  ASSERT_EQ(row.at("runs").size(), 3u);
  EXPECT_EQ(row.at("runs")[0].at("run_id"), "fx-1-r3");  // more.jsonl is read first
  EXPECT_NE(row.at("runs")[0].at("source").get<std::string>().find("more.jsonl:1"),
            std::string::npos);
  EXPECT_EQ(row.at("config").at("sync"), false);
  const json& counts = s.at("record_counts");
  EXPECT_EQ(counts.at("not_valid").at("total"), 3);
  EXPECT_EQ(counts.at("not_valid").at("by_status").at("failed"), 2);
  EXPECT_EQ(counts.at("identical_duplicates_ignored").size(), 1u);
}

TEST_F(FullCalibration, CommunicationTablesByHand) {
  ASSERT_EQ(suite_run->exit_code, 0);
  const Table comm = read_csv(file("comm_time.csv"));
  ASSERT_EQ(comm.rows.size(), 5u);  // 3 non-synchronized, 2 synchronized configurations
  // 2x2 on two clusters, synchronized: 3.0 and 4.0 (Table 9 row).
  const auto& sync = comm.rows[4];
  EXPECT_EQ(sync.at("procs") + sync.at("components") + sync.at("sync"), "2x22true");
  EXPECT_EQ(sync.at("n"), "2");
  EXPECT_DOUBLE_EQ(num(sync.at("min")), 3.0);
  EXPECT_DOUBLE_EQ(num(sync.at("avg")), 3.5);
  EXPECT_DOUBLE_EQ(num(sync.at("max")), 4.0);
  EXPECT_EQ(sync.at("iterations"), "100");

  EXPECT_EQ(slurp(file("comm_sync.csv")),
            "problem,grid,procs,total_size,components,system,iterations,sync_n,sync_avg,nosync_n,"
            "nosync_avg\n"
            "64x64,64,2x1,2,1,local,100,0,,3,1.5\n"
            "64x64,64,2x2,4,1,local,100,2,1,4,0.65\n"
            "64x64,64,2x2,4,2,local,100,2,3.5,1,2.5\n");

  // Rank 3 of the 2x2 single-cluster runs (column 1, row 1) has bottom and left neighbours:
  // bottom 0.02 * 4 * rep, left 0.03 * 4 * rep for rep 1..4 -> averages 0.2 and 0.3.
  const Table ranks = read_csv(file("rank_comm.csv"));
  int seen = 0;
  for (const auto& r : ranks.rows) {
    if (r.at("procs") != "2x2" || r.at("components") != "1" || r.at("sync") != "false" ||
        r.at("rank") != "3") {
      continue;
    }
    EXPECT_EQ(r.at("column") + r.at("row"), "11");
    if (r.at("direction") == "left") {
      EXPECT_NEAR(num(r.at("avg")), 0.3, 1e-12);
      EXPECT_NEAR(num(r.at("min")), 0.12, 1e-12);
      EXPECT_NEAR(num(r.at("max")), 0.48, 1e-12);
      ++seen;
    }
    if (r.at("direction") == "total") {
      EXPECT_NEAR(num(r.at("avg")), 0.5, 1e-12);
      EXPECT_NEAR(num(r.at("intra_avg")), 0.5, 1e-12);
      EXPECT_NEAR(num(r.at("inter_avg")), 0.0, 1e-12);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2);
  // In two clusters, the left/right traffic crosses clusters: rank 2's left time is inter.
  for (const auto& r : ranks.rows) {
    if (r.at("procs") == "2x2" && r.at("components") == "2" && r.at("sync") == "false" &&
        r.at("rank") == "2" && r.at("direction") == "left") {
      EXPECT_EQ(r.at("cluster"), "1");
      EXPECT_NEAR(num(r.at("inter_avg")), 0.09, 1e-12);
      EXPECT_NEAR(num(r.at("intra_avg")), 0.0, 1e-12);
    }
  }
  EXPECT_EQ(ranks.rows.size(), 5u * (2 + 4 + 4 + 4 + 4));

  // Transfer rate of the 2x1 runs: each rank moves 2 * 100 * 512 bytes; / 1.0, 1.5, 2.0 s.
  const Table rates = read_csv(file("transfer_rates.csv"));
  // In MB/s (the fixtures are version-1 records, in bytes/s, read as version 2).
  EXPECT_DOUBLE_EQ(num(rates.rows[0].at("max")), 0.1024);
  EXPECT_DOUBLE_EQ(num(rates.rows[0].at("min")), 0.0512);
}

TEST_F(FullCalibration, FitsAndServiceTimesByHand) {
  ASSERT_EQ(suite_run->exit_code, 0);
  const Table compute = read_csv(file("compute_fits.csv"));
  ASSERT_EQ(compute.rows.size(), 1u);
  EXPECT_NEAR(num(compute.rows[0].at("a")), 1.0, 1e-9);
  EXPECT_NEAR(num(compute.rows[0].at("b")), 8.0, 1e-9);
  EXPECT_NEAR(num(compute.rows[0].at("r2")), 1.0, 1e-9);
  EXPECT_EQ(compute.rows[0].at("p_min") + "-" + compute.rows[0].at("p_max"), "2-4");

  const Table links = read_csv(file("link_fits.csv"));
  ASSERT_EQ(links.rows.size(), 2u);
  EXPECT_EQ(links.rows[0].at("class"), "cross_cluster");
  EXPECT_NEAR(num(links.rows[0].at("t0")), 1e-4, 1e-12);
  EXPECT_NEAR(num(links.rows[0].at("bandwidth")), 12.5, 1e-6);  // MB/s
  EXPECT_EQ(links.rows[0].at("runs"), "2");                     // the failed third run is not used

  const Table service = read_csv(file("service_times.csv"));
  ASSERT_EQ(service.rows.size(), 3u);
  const auto& two = service.rows[2];  // 4 processes in 2 clusters
  EXPECT_EQ(two.at("total_size") + two.at("components"), "42");
  EXPECT_NEAR(num(two.at("service")), 3.01225312, 1e-8);
  EXPECT_EQ(two.at("measured_n"), "1");
  EXPECT_NEAR(num(two.at("relative_error")), (3.01225312 - 9.0) / 9.0, 1e-8);
  EXPECT_EQ(two.at("extrapolated"), "false");

  std::ifstream in(file("calibration.json"));
  const json manifest = json::parse(in);
  EXPECT_EQ(manifest.at("fits").at("service").at("against_measured").size(), 1u);
  EXPECT_EQ(manifest.at("records").at("left_out_by_runtime_where"), 4);
}

TEST(Predictions, OutsideTheRangeOnlyWhenAsked) {
  // Traffic of an 8-process run measured on another system; the local compute fit covers 2..4.
  const auto dir = test::fresh_dir("extrapolate");
  test::write_jsonl(dir / "other.jsonl",
                    {test::poisson_record("o-1", 4, 2, 2, "elsewhere", 5.0, 2.0)});
  const std::vector<std::string> base = {"--input",
                                         kRecords + "/poisson-local",
                                         kRecords + "/links-local",
                                         (dir / "other.jsonl").string(),
                                         "--output",
                                         (dir / "tables").string(),
                                         "--predict",
                                         "poisson,64x64,8,2,local"};
  Outcome r = calibrate(base);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--predict poisson,64x64,8,2,local: total size 8 outside the measured 2..4 "
                       "(allow with --extrapolate)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "tables"));
  std::vector<std::string> asked = base;
  asked.push_back("--extrapolate");
  r = calibrate(asked);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Table service = read_csv(dir / "tables" / "service_times.csv");
  bool found = false;
  for (const auto& row : service.rows) {
    if (row.at("total_size") == "8" && row.at("system") == "local") {
      found = true;
      EXPECT_EQ(row.at("extrapolated"), "true");
      EXPECT_NEAR(num(row.at("compute")), 2.0, 1e-9);
    }
  }
  EXPECT_TRUE(found);
  fs::remove_all(dir);
}

// Runs on 1, 2 and 4 processes of one cluster whose compute times are given, on a host of 2
// cores (`oversubscribed`: the 4-process run shared them) or of 4.
std::vector<json> sized_runs(const std::vector<double>& compute, bool oversubscribed) {
  std::vector<json> runs;
  const int sizes[] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    json run = test::poisson_record("w-" + std::to_string(i), sizes[i], 1, 1, "local",
                                    compute[static_cast<size_t>(i)] + 0.1,
                                    compute[static_cast<size_t>(i)]);
    const int cores = oversubscribed ? 2 : 4;
    run["env"]["cores_available"] = cores;
    run["env"]["ranks_per_core"] = static_cast<double>(sizes[i]) / cores;
    runs.push_back(run);
  }
  return runs;
}

json warnings_of(const fs::path& tables) {
  std::ifstream in(tables / "calibration.json");
  return json::parse(in).at("warnings");
}

TEST(Warnings, OversubscribedRunsAndFitsWithoutMeaning) {
  const auto dir = test::fresh_dir("warnings");
  // Compute time that grows with processes, as when 4 ranks share 2 cores: b < 0, poor r².
  test::write_jsonl(dir / "shared.jsonl", sized_runs({1.0, 0.55, 1.6}, true));
  const Outcome r = calibrate({"--input", (dir / "shared.jsonl").string(), "--output",
                               (dir / "tables").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("mcb-calibrate: warning: poisson,64x64,4,1,local: 1 of 1 runs "
                       "oversubscribed (up to 2 ranks per core)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("compute fit poisson,64x64,local: r² "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is negative: compute time grows with processes"), std::string::npos)
      << r.err;
  const json warnings = warnings_of(dir / "tables");
  std::map<std::string, int> per_table;
  for (const json& w : warnings) ++per_table[w.at("table").get<std::string>()];
  EXPECT_EQ(per_table["runtimes.csv"], 1);
  EXPECT_EQ(per_table["comm_time.csv"], 1);
  EXPECT_EQ(per_table["compute_fits.csv"], 2);  // r² and the sign of b
  EXPECT_EQ(per_table["service_times.csv"], 2);

  // The same sizes on their own cores, compute 0.2 + 0.8/P: nothing to warn about.
  test::write_jsonl(dir / "fair.jsonl", sized_runs({1.0, 0.6, 0.4}, false));
  const Outcome fair = calibrate(
      {"--input", (dir / "fair.jsonl").string(), "--output", (dir / "fair").string(), "--quiet"});
  ASSERT_EQ(fair.exit_code, 0) << fair.err;
  EXPECT_EQ(fair.err, "");
  EXPECT_TRUE(warnings_of(dir / "fair").empty());
  fs::remove_all(dir);
}

TEST(Conversion, ReferenceServiceTimesBecomeTheDas2Table) {
  if (!fs::exists(kReference + "/poisson_sim_service_times.csv")) {
    GTEST_SKIP() << "reference folder " << kReference << " is not on this machine";
  }
  const auto dir = test::fresh_dir("convert");
  const Outcome r =
      calibrate({"--convert", kReference + "/poisson_sim_service_times.csv", "--convert",
                 kReference + "/ensflow_sim_service_times.csv", "--problem", "poisson=4000x4000",
                 "--problem", "ensflow=m60-d20", "--system", "das2", "--source",
                 "JSSPP 2003, Tables 4 and 5", "--output", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Table made = read_csv(dir / "runtimes.csv");
  const Table shipped = read_csv(std::string(MCB_SOURCE_DIR) + "/calibration/das2/runtimes.csv");
  EXPECT_EQ(made.header, shipped.header);
  ASSERT_EQ(made.rows.size(), shipped.rows.size());
  for (std::size_t i = 0; i < made.rows.size(); ++i) {
    for (const auto& [column, value] : shipped.rows[i]) {
      if (value.empty()) {
        EXPECT_TRUE(made.rows[i].at(column).empty());
      } else if (column == "app" || column == "problem" || column == "system") {
        EXPECT_EQ(made.rows[i].at(column), value);
      } else {
        EXPECT_DOUBLE_EQ(num(made.rows[i].at(column)), num(value)) << column;
      }
    }
  }
  std::ifstream in(dir / "runtimes.json");
  const json sidecar = json::parse(in);
  EXPECT_EQ(sidecar.at("source"), "JSSPP 2003, Tables 4 and 5");
  EXPECT_EQ(sidecar.at("converted_from").size(), 2u);

  const Outcome missing =
      calibrate({"--convert", kReference + "/ensflow_sim_service_times.csv", "--system", "das2",
                 "--source", "x", "--output", dir.string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("ensflow_sim_service_times.csv:2: no problem label for app 'ensflow'"),
            std::string::npos)
      << missing.err;
  fs::remove_all(dir);
}

// Records exactly as mcb-poisson wrote them (tests/fixtures/records/poisson-real).
TEST(RealRecords, CalibrateCleanly) {
  const auto dir = test::fresh_dir("real");
  const Outcome r = calibrate({"--input", kRecords + "/poisson-real", "--output",
                               (dir / "tables").string(), "--runtime-where", "sync=false"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("12 records in 1 file(s): 12 used, 0 not valid"), std::string::npos)
      << r.out;
  const Table runtimes = read_csv(dir / "tables" / "runtimes.csv");
  ASSERT_EQ(runtimes.rows.size(), 3u);
  for (const auto& row : runtimes.rows) {
    EXPECT_EQ(row.at("n"), "2");
    EXPECT_LE(num(row.at("min")), num(row.at("avg")));
    EXPECT_LE(num(row.at("avg")), num(row.at("max")));
  }
  const Table sync = read_csv(dir / "tables" / "comm_sync.csv");
  ASSERT_EQ(sync.rows.size(), 3u);
  for (const auto& row : sync.rows) EXPECT_EQ(row.at("sync_n") + row.at("nosync_n"), "22");
  EXPECT_EQ(read_csv(dir / "tables" / "rank_comm.csv").rows.size(), 5u * (2 + 2 + 2 + 2 + 4 + 4));
  EXPECT_EQ(read_csv(dir / "tables" / "compute_fits.csv").rows.size(), 1u);
  fs::remove_all(dir);
}

TEST(Check, Das2TableChecksClean) {
  const Outcome r = calibrate({"--check", std::string(MCB_SOURCE_DIR) + "/calibration/das2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("20 rows (runtime layout)"), std::string::npos) << r.out;
}

TEST(Options, ConfigFileAndHelp) {
  const auto dir = test::fresh_dir("config");
  {
    std::ofstream ini(dir / "calibrate.ini");
    ini << "input = " << kRecords << "/poisson-local\n"
        << "output = " << (dir / "tables").string() << "\n"
        << "quiet = true\n";
  }
  const Outcome r = calibrate({"--config", (dir / "calibrate.ini").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(fs::exists(dir / "tables" / "runtimes.csv"));
  const Outcome help = calibrate({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--runtime-where"), std::string::npos);
  const Outcome unknown = calibrate({"--frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mcb::calib
