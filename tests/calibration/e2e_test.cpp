// The real path: a tiny local campaign of mcb-poisson runs (mpirun, 1 to 4 ranks, one and two
// clusters, two repetitions, one configuration also synchronized), then mcb-calibrate on the
// campaign folder. The tables must agree with the records the runs wrote.
#include "calibration/csv.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace mcb::calib {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kBin = MCB_BIN_DIR;

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  q += "'";
  return q;
}

int shell(const std::vector<std::string>& words, const fs::path& log) {
  std::string cmd;
  for (const auto& w : words) {
    cmd += quote(w);
    cmd += ' ';
  }
  cmd += ">>";
  cmd += quote(log.string());
  cmd += " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::map<std::string, std::string>> read_csv(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  const auto header = split_csv_line(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const auto f = split_csv_line(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < f.size(); ++i) row[header.at(i)] = f[i];
    rows.push_back(row);
  }
  return rows;
}

struct Config {
  int ranks;
  std::string procs;
  int clusters;
  bool sync;
};

TEST(RealCampaign, PoissonRunsThenCalibration) {
  const std::string poisson = kBin + "/mcb-poisson";
  if (!fs::exists(poisson)) GTEST_SKIP() << poisson << " is not built";
  const fs::path dir = fs::temp_directory_path() / ("mcb-calib-e2e-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "campaign");
  const fs::path log = dir / "runs.log";

  const std::vector<Config> configs = {{1, "1x1", 1, false}, {2, "2x1", 1, false},
                                       {2, "2x1", 2, false}, {4, "2x2", 1, false},
                                       {4, "2x2", 2, false}, {4, "2x2", 2, true}};
  int index = 0;
  for (const Config& c : configs) {
    ++index;
    for (int rep = 1; rep <= 2; ++rep) {
      std::vector<std::string> cmd = {MCB_MPIEXEC, MCB_MPIEXEC_NUMPROC_FLAG,
                                      std::to_string(c.ranks), poisson, "--grid", "32",
                                      "--procs", c.procs, "--clusters", std::to_string(c.clusters),
                                      "--campaign", "e2e", "--repetition", std::to_string(rep),
                                      "--run-id", "e2e-" + std::to_string(index) + "-r" +
                                                      std::to_string(rep),
                                      "--seed", std::to_string(rep), "--quiet", "--output",
                                      (dir / "campaign" / "runs.jsonl").string()};
      if (c.sync) cmd.push_back("--sync");
      ASSERT_EQ(shell(cmd, log), 0) << "mcb-poisson failed; see " << log;
    }
  }

  // What the runs recorded: wall times per (total size, components) of the unsynchronized runs.
  std::map<std::pair<int, int>, std::vector<double>> walls;
  std::set<std::string> ids;
  std::size_t records = 0;
  {
    std::ifstream in(dir / "campaign" / "runs.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      const json r = json::parse(line);
      ++records;
      ASSERT_EQ(r.at("status"), "valid") << line.substr(0, 200);
      if (r.at("config").at("sync").get<bool>()) continue;
      ids.insert(r.at("run_id").get<std::string>());
      walls[{r.at("config").at("total_size").get<int>(),
             r.at("config").at("components").get<int>()}]
          .push_back(r.at("result").at("wall_time").get<double>());
    }
  }
  ASSERT_EQ(records, 12u);

  const fs::path out = dir / "tables";
  ASSERT_EQ(shell({kBin + "/mcb-calibrate", "--input", (dir / "campaign").string(), "--output",
                   out.string(), "--runtime-where", "sync=false", "--row",
                   "poisson,32x32,4,2,local"},
                  log),
            0)
      << "mcb-calibrate failed; see " << log;

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

  // Communication tables keep both modes; two clusters put time on inter-cluster links.
  EXPECT_EQ(read_csv(out / "comm_time.csv").size(), 6u);
  const auto sync = read_csv(out / "comm_sync.csv");
  ASSERT_EQ(sync.size(), 5u);
  const auto& both = sync.back();  // 2x2 on two clusters
  EXPECT_EQ(both.at("procs") + "/" + both.at("components"), "2x2/2");
  EXPECT_EQ(both.at("sync_n") + "/" + both.at("nosync_n"), "2/2");
  const auto ranks = read_csv(out / "rank_comm.csv");
  EXPECT_EQ(ranks.size(), 5u * (1 + 2 + 2 + 4 + 4 + 4));
  double inter_one = 0;
  double inter_two = 0;
  for (const auto& r : ranks) {
    if (r.at("direction") != "total") continue;
    (r.at("components") == "1" ? inter_one : inter_two) += std::stod(r.at("inter_avg"));
  }
  EXPECT_EQ(inter_one, 0.0);
  EXPECT_GT(inter_two, 0.0);
  for (const auto& r : read_csv(out / "transfer_rates.csv")) {
    if (r.at("procs") == "1x1") {
      EXPECT_EQ(std::stod(r.at("avg")), 0.0);  // one process exchanges nothing
    } else {
      EXPECT_GT(std::stod(r.at("avg")), 0.0);
    }
  }

  // The compute fit spans the three sizes. Without link records only the one-process run, which
  // sends nothing, has a service time: its compute time alone.
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
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mcb::calib
