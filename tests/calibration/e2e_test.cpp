// The real path a user takes: a tiny local campaign run by mcb-campaign (mcb-poisson on a 32x32
// grid, process grids 1x1, 2x1 and 2x2 on one and two clusters, unsynchronized and synchronized,
// two repetitions: 20 runs), then mcb-calibrate on the campaign folder. The tables must agree
// with the records the runs wrote.
#include "common/csv.hpp"
#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mcb::calib {
namespace {

namespace fs = std::filesystem;
using mcb::testing::bin;
using mcb::testing::CommandResult;
using mcb::testing::quote;
using mcb::testing::run_command;
using mcb::testing::TempDir;
using nlohmann::json;

std::vector<std::map<std::string, std::string>> read_csv(const fs::path& p) {
  const csv::Document doc = csv::read_file(p.string());
  const auto& header = doc.header.fields;
  std::vector<std::map<std::string, std::string>> rows;
  for (const csv::Record& record : doc.rows) {
    const auto& f = record.fields;
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < f.size(); ++i) row[header.at(i)] = f[i];
    rows.push_back(row);
  }
  return rows;
}

// 3 process grids x 2 cluster counts x 2 modes = 12 configurations; 1x1 cannot be split over
// two clusters, so 10 run, twice each. The build's own MPI launcher runs them.
std::string campaign_spec() {
  const std::string launcher = MCB_MPIEXEC;
  const std::string np_flag = MCB_MPIEXEC_NUMPROC_FLAG;
  return "name = e2e\napp = poisson\nbinary = " + bin("mcb-poisson") +
         "\nfolder = campaign\nrepetitions = 2\ntimeout = 2min\n"
         "\n[local]\nlauncher = " +
         launcher + "\nnp-flag = " + np_flag +
         "\n\n[options]\ngrid = 32\nprocs = 1x1 2x1 2x2\nclusters = 1 2\nsync = off on\n"
         "counters = \"\"\nquiet = on\n";
}

TEST(RealCampaign, PoissonCampaignThenCalibration) {
  TempDir dir;
  const fs::path spec = dir.path() / "e2e.ini";
  std::ofstream(spec) << campaign_spec();
  const CommandResult campaign = run_command(quote(bin("mcb-campaign")) + " run " +
                                             quote(spec.string()) + " --progress lines");
  ASSERT_EQ(campaign.exit_code, 0) << campaign.out << campaign.err;
  EXPECT_NE(campaign.out.find("20 runs: 20 valid, 0 invalid, 0 failed, 0 without a record"),
            std::string::npos)
      << campaign.out;
  const fs::path folder = dir.path() / "campaign";

  // What the runs recorded: wall times per (total size, components) of the unsynchronized runs.
  std::map<std::pair<int, int>, std::vector<double>> walls;
  std::set<std::string> ids;
  std::size_t records = 0;
  {
    for (const json& r : mcb::testing::read_records((folder / "records.jsonl").string())) {
      ++records;
      ASSERT_EQ(r.at("status"), "valid") << r.dump().substr(0, 200);
      EXPECT_EQ(r.at("campaign"), "e2e");
      if (r.at("config").at("sync").get<bool>()) continue;
      ids.insert(r.at("run_id").get<std::string>());
      walls[{r.at("config").at("total_size").get<int>(),
             r.at("config").at("components").get<int>()}]
          .push_back(r.at("result").at("wall_time").get<double>());
    }
  }
  ASSERT_EQ(records, 20u);
  ASSERT_EQ(ids.size(), 10u);

  const fs::path out = dir.path() / "tables";
  const CommandResult calibrate = run_command(
      quote(bin("mcb-calibrate")) + " --input " + quote(folder.string()) + " --output " +
      quote(out.string()) + " --runtime-where sync=false --row poisson,32x32,4,2,local");
  ASSERT_EQ(calibrate.exit_code, 0) << calibrate.out << calibrate.err;

  // runtimes.csv: one row per unsynchronized configuration, two repetitions each, the
  // statistics of the recorded wall times.
  const auto runtimes = read_csv(out / "runtimes.csv");
  ASSERT_EQ(runtimes.size(), 5u);
  for (const auto& row : runtimes) {
    EXPECT_EQ(row.at("app"), "poisson");
    EXPECT_EQ(row.at("problem"), "32x32");
    EXPECT_EQ(row.at("system"), "local");
    EXPECT_EQ(row.at("n"), "2");
    const auto& w = walls.at({std::stoi(row.at("total_size")), std::stoi(row.at("components"))});
    ASSERT_EQ(w.size(), 2u);
    EXPECT_NEAR(std::stod(row.at("avg")), (w[0] + w[1]) / 2, 1e-9 * (w[0] + w[1]));
    EXPECT_NEAR(std::stod(row.at("min")), std::min(w[0], w[1]), 1e-9 * w[0]);
    EXPECT_NEAR(std::stod(row.at("max")), std::max(w[0], w[1]), 1e-9 * w[0]);
    EXPECT_FALSE(row.at("stddev").empty());
  }

  // Provenance names exactly the runs the table pooled, and where they ran.
  std::ifstream sidecar_in(out / "runtimes.json");
  const json sidecar = json::parse(sidecar_in);
  std::set<std::string> named;
  for (const auto& id : sidecar.at("records")) named.insert(id.get<std::string>());
  EXPECT_EQ(named, ids);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  EXPECT_EQ(sidecar.at("hosts"), json::array({std::string(host)}));
  EXPECT_FALSE(sidecar.at("revisions").empty());

  // Communication tables keep both modes: a row per configuration and mode, and each
  // configuration's two synchronized and two unsynchronized runs side by side; two clusters
  // put time on inter-cluster links.
  EXPECT_EQ(read_csv(out / "comm_time.csv").size(), 10u);
  const auto sync = read_csv(out / "comm_sync.csv");
  ASSERT_EQ(sync.size(), 5u);
  std::set<std::string> sync_configs;
  for (const auto& row : sync) {
    sync_configs.insert(row.at("procs") + "/" + row.at("components"));
    EXPECT_EQ(row.at("sync_n") + "/" + row.at("nosync_n"), "2/2");
  }
  EXPECT_EQ(sync_configs, (std::set<std::string>{"1x1/1", "2x1/1", "2x1/2", "2x2/1", "2x2/2"}));
  const auto ranks = read_csv(out / "rank_comm.csv");
  EXPECT_EQ(ranks.size(), 5u * 2 * (1 + 2 + 2 + 4 + 4));  // directions x modes x ranks
  double inter_one = 0;
  double inter_two = 0;
  for (const auto& r : ranks) {
    if (r.at("direction") != "total") continue;
    (r.at("components") == "1" ? inter_one : inter_two) += std::stod(r.at("inter_avg"));
  }
  EXPECT_EQ(inter_one, 0.0);
  EXPECT_GT(inter_two, 0.0);
  const auto rates = read_csv(out / "transfer_rates.csv");
  EXPECT_FALSE(rates.empty());
  for (const auto& r : rates) {
    if (r.at("procs") == "1x1") {
      EXPECT_EQ(std::stod(r.at("avg")), 0.0);  // one process exchanges nothing
    } else {
      EXPECT_GT(std::stod(r.at("avg")), 0.0);
    }
  }

  // The compute fit spans the three sizes of the unsynchronized runs. Without link records only
  // the one-process run, which sends nothing, has a service time: its compute time alone.
  const auto fits = read_csv(out / "compute_fits.csv");
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].at("p_min") + ".." + fits[0].at("p_max"), "1..4");
  EXPECT_EQ(fits[0].at("points"), "10");
  const auto service = read_csv(out / "service_times.csv");
  ASSERT_EQ(service.size(), 1u);
  EXPECT_EQ(service[0].at("total_size"), "1");
  EXPECT_EQ(std::stod(service[0].at("comm")), 0.0);
  EXPECT_NEAR(std::stod(service[0].at("compute")),
              std::stod(fits[0].at("a")) + std::stod(fits[0].at("b")), 1e-6);
}

}  // namespace
}  // namespace mcb::calib
