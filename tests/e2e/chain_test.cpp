// The stages chained as a user chains them, through the contracts of common/: a campaign of
// mcb-poisson runs whose system label holds a comma and a quote, a crash's torn line appended to
// its records, then mcb-campaign and mcb-calibrate reading them and mcb-sim replaying the table.
// Every program must succeed and every number must agree from record to simulated job.
#include "common/csv.hpp"
#include "common/jsonl.hpp"
#include "common/statistics.hpp"
#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using mcb::testing::CommandResult;
using mcb::testing::run_program;
using mcb::testing::TempDir;
using nlohmann::json;

const std::string kSystem = "das2, \"vu\"";

// 1x1 on one cluster, 2x1 on one and on two clusters (1x1 on two is skipped), twice each.
std::string campaign_spec() {
  return std::string("name = chain\napp = poisson\nbinary = ") + mcb::testing::bin("mcb-poisson") +
         "\nfolder = campaign\nrepetitions = 2\ntimeout = 2min\n\n[local]\nlauncher = " +
         MCB_MPIEXEC + "\nnp-flag = " + MCB_MPIEXEC_NUMPROC_FLAG +
         "\n\n[options]\ngrid = 32\nprocs = 1x1 2x1\nclusters = 1 2\n"
         "system = \"das2, \\\"vu\\\"\"\ncounters = \"\"\nquiet = on\n";
}

// Rows of a CSV file keyed by its header, read with the suite's codec.
std::vector<std::map<std::string, std::string>> read_table(const fs::path& path) {
  const mcb::csv::Document doc = mcb::csv::read_file(path.string());
  std::vector<std::map<std::string, std::string>> rows;
  for (const mcb::csv::Record& record : doc.rows) {
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < record.fields.size(); ++i) {
      row[doc.header.fields[i]] = record.fields[i];
    }
    rows.push_back(row);
  }
  return rows;
}

// Exactly one line on stderr besides calibration warnings (a tiny campaign's fits are poor):
// the torn-tail notice for `file`.
void expect_one_torn_notice(const CommandResult& r, const fs::path& file) {
  std::vector<std::string> lines;
  for (const std::string& line : r.err_lines()) {
    if (line.find(": warning: ") == std::string::npos) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find(file.string() + ":7: torn last line ignored"), std::string::npos)
      << lines[0];
}

TEST(Chain, CampaignCalibrationSimulationAgreeThroughQuotedLabelAndTornTail) {
  TempDir dir;
  const fs::path spec = dir.path() / "chain.ini";
  std::ofstream(spec) << campaign_spec();
  const CommandResult campaign =
      run_program("mcb-campaign", {"run", spec.string(), "--progress", "lines"});
  ASSERT_EQ(campaign.exit_code, 0) << campaign.out << campaign.err;
  const fs::path records = dir.path() / "campaign" / "records.jsonl";

  // What the runs recorded: wall times by (total size, components).
  std::map<std::pair<long, long>, std::vector<double>> walls;
  const std::vector<json> written = mcb::testing::read_records(records.string());
  ASSERT_EQ(written.size(), 6u);
  for (const json& r : written) {
    ASSERT_EQ(r.at("status"), "valid") << r.dump().substr(0, 300);
    EXPECT_EQ(r.at("config").at("system"), kSystem);
    walls[{r.at("config").at("total_size").get<long>(),
           r.at("config").at("components").get<long>()}]
        .push_back(r.at("result").at("wall_time").get<double>());
  }
  ASSERT_EQ(walls.size(), 3u);

  // A crash while the next record was appended leaves a torn last line.
  std::ofstream(records, std::ios::app) << "{\"schema\":\"mcb-run/1\",\"run_id\":\"chain-9";

  const CommandResult status = run_program("mcb-campaign", {"status", spec.string()});
  EXPECT_EQ(status.exit_code, 0) << status.out << status.err;
  EXPECT_NE(status.out.find("6 runs: 6 valid, 0 invalid, 0 failed, 0 without a record"),
            std::string::npos)
      << status.out;
  expect_one_torn_notice(status, records);

  const fs::path tables = dir.path() / "tables";
  const CommandResult calibrate = run_program(
      "mcb-calibrate", {"--input", records.parent_path().string(), "--output", tables.string()});
  ASSERT_EQ(calibrate.exit_code, 0) << calibrate.out << calibrate.err;
  expect_one_torn_notice(calibrate, records);
  EXPECT_NE(mcb::testing::slurp(tables / "runtimes.csv").find("\"das2, \"\"vu\"\"\""),
            std::string::npos)
      << "the label is quoted as RFC 4180 says";
  const CommandResult check =
      run_program("mcb-calibrate", {"--check", (tables / "runtimes.csv").string()});
  EXPECT_EQ(check.exit_code, 0) << check.err;

  // runtimes.csv: every statistic is the records' own.
  std::map<std::pair<long, long>, double> avg;
  for (const auto& row : read_table(tables / "runtimes.csv")) {
    EXPECT_EQ(row.at("system"), kSystem);
    EXPECT_EQ(row.at("problem"), "32x32");
    const std::pair<long, long> key{std::stol(row.at("total_size")),
                                    std::stol(row.at("components"))};
    ASSERT_EQ(walls.count(key), 1u) << key.first << "/" << key.second;
    const mcb::Summary s = mcb::summarize(walls.at(key));
    EXPECT_EQ(row.at("n"), std::to_string(s.n));
    EXPECT_EQ(row.at("min"), mcb::csv::number(s.min));
    EXPECT_EQ(row.at("avg"), mcb::csv::number(s.avg));
    EXPECT_EQ(row.at("max"), mcb::csv::number(s.max));
    EXPECT_EQ(row.at("median"), mcb::csv::number(s.median));
    EXPECT_EQ(row.at("stddev"), mcb::csv::optional_number(s.stddev));
    avg[key] = std::stod(row.at("avg"));
  }
  ASSERT_EQ(avg.size(), 3u);

  // mcb-sim replays the table: each job's service time is the table's average for its size and
  // components, its net service time the one-cluster average of the same size.
  const fs::path jobs = dir.path() / "jobs.csv";
  std::ofstream(jobs) << "id,submit,app,type,components\n"
                         "1,0,poisson,unordered,1\n"
                         "2,10,poisson,unordered,2\n"
                         "3,20,poisson,unordered,1+1\n";
  const fs::path sim = dir.path() / "sim";
  const CommandResult simulate =
      run_program("mcb-sim", {"--trace", jobs.string(), "--tables", tables.string(), "--clusters",
                              "2x4", "--warmup", "0", "--output", sim.string()});
  ASSERT_EQ(simulate.exit_code, 0) << simulate.out << simulate.err;
  const auto done = read_table(sim / "jobs.csv");
  ASSERT_EQ(done.size(), 3u);
  for (const auto& job : done) {
    const long size = std::stol(job.at("total_size"));
    const long components = std::stol(job.at("components"));
    EXPECT_DOUBLE_EQ(std::stod(job.at("service")), avg.at({size, components}))
        << "job " << job.at("id");
    EXPECT_DOUBLE_EQ(std::stod(job.at("net_service")), avg.at({size, 1L}))
        << "job " << job.at("id");
  }
}

// The reproduced case on its own: a table whose label holds a comma and a quote, accepted by
// mcb-calibrate --check, is read by mcb-sim with the label whole.
TEST(Chain, QuotedLabelTableIsReadBySimulator) {
  TempDir dir;
  const fs::path table = dir.path() / "runtimes.csv";
  std::ofstream(table) << "app,problem,total_size,components,system,n,min,avg,max,median,stddev\n"
                          "poisson,p,2,1,\"das2, \"\"vu\"\"\",1,10,10,10,10,\n"
                          "poisson,p,2,2,\"das2, \"\"vu\"\"\",1,12,12,12,12,\n";
  EXPECT_EQ(run_program("mcb-calibrate", {"--check", table.string()}).exit_code, 0);
  const fs::path jobs = dir.path() / "jobs.csv";
  std::ofstream(jobs) << "id,submit,app,components\n1,0,poisson,1+1\n";
  const CommandResult r = run_program(
      "mcb-sim", {"--trace", jobs.string(), "--tables", table.string(), "--system", kSystem,
                  "--clusters", "2x4", "--warmup", "0", "--output", (dir.path() / "o").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto done = read_table(dir.path() / "o" / "jobs.csv");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_DOUBLE_EQ(std::stod(done[0].at("service")), 12);
}

}  // namespace
