// Runtime tables: the shipped das2 calibration and the paper's service-time tables load through
// the table reader; written tables read back; malformed tables are refused with file and line.
#include "calibration/runtime_table.hpp"
#include "common/errors.hpp"
#include "record_builder.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace mcb::calib {
namespace {

namespace fs = std::filesystem;

const std::string kDas2 = std::string(MCB_SOURCE_DIR) + "/calibration/das2";
const std::string kReference = MCB_REFERENCE_DIR;

ServiceTimeLabels das2_labels() {
  return {{{"poisson", "4000x4000"}, {"ensflow", "m60-d20"}}, "das2"};
}

TEST(Das2Table, ShippedTableLoads) {
  const LoadedTable t = read_runtime_table(kDas2);
  EXPECT_FALSE(t.service_time_layout);
  ASSERT_EQ(t.rows.size(), 20u);
  // Table 4: Poisson on 32 processors in 4 clusters took 440 s; Table 5: Ensflow 12 on 1, 3485 s.
  bool poisson = false;
  bool ensflow = false;
  for (const RuntimeRow& r : t.rows) {
    EXPECT_EQ(r.system, "das2");
    EXPECT_EQ(r.stats.n, 1u);
    EXPECT_FALSE(r.stats.stddev);
    if (r.app == "poisson" && r.total_size == 32 && r.components == 4) {
      poisson = true;
      EXPECT_DOUBLE_EQ(r.stats.avg, 440.0);
    }
    if (r.app == "ensflow" && r.total_size == 12 && r.components == 1) {
      ensflow = true;
      EXPECT_DOUBLE_EQ(r.stats.avg, 3485.0);
    }
  }
  EXPECT_TRUE(poisson && ensflow);
}

// The shipped table is exactly the paper's Tables 4 and 5 as published in the reference folder.
TEST(Das2Table, EqualsTheReferenceServiceTimesConverted) {
  if (!fs::exists(kReference + "/poisson_sim_service_times.csv")) {
    GTEST_SKIP() << "reference folder " << kReference << " is not on this machine";
  }
  std::vector<RuntimeRow> converted;
  for (const char* name : {"poisson_sim_service_times.csv", "ensflow_sim_service_times.csv"}) {
    const LoadedTable t = read_runtime_table(kReference + "/" + name, das2_labels());
    EXPECT_TRUE(t.service_time_layout);
    converted.insert(converted.end(), t.rows.begin(), t.rows.end());
  }
  const LoadedTable shipped = read_runtime_table(kDas2 + "/runtimes.csv");
  ASSERT_EQ(converted.size(), shipped.rows.size());
  for (std::size_t i = 0; i < converted.size(); ++i) {
    EXPECT_EQ(row_key(converted[i]), row_key(shipped.rows[i]));
    EXPECT_DOUBLE_EQ(converted[i].stats.min, shipped.rows[i].stats.min);
    EXPECT_DOUBLE_EQ(converted[i].stats.avg, shipped.rows[i].stats.avg);
    EXPECT_DOUBLE_EQ(converted[i].stats.max, shipped.rows[i].stats.max);
    EXPECT_DOUBLE_EQ(converted[i].stats.median, shipped.rows[i].stats.median);
  }
}

TEST(Das2Table, SidecarNamesItsSource) {
  std::ifstream in(kDas2 + "/runtimes.json");
  const auto sidecar = nlohmann::json::parse(in);
  EXPECT_EQ(sidecar.at("table"), "runtimes.csv");
  const std::string source = sidecar.at("source");
  EXPECT_NE(source.find("JSSPP 2003"), std::string::npos);
  EXPECT_NE(source.find("Table 4"), std::string::npos);
  EXPECT_NE(source.find("Table 5"), std::string::npos);
  EXPECT_TRUE(sidecar.at("records").empty());  // published numbers, no suite records
  EXPECT_FALSE(sidecar.at("hosts").empty());
  EXPECT_FALSE(sidecar.at("dates").empty());
}

TEST(RuntimeTableIo, WrittenTableReadsBack) {
  const std::vector<RuntimeRow> rows = {
      {"poisson", "64x64", 4, 2, "local", Summary{3, 1.5, 2.25, 3.0, 2.0, 0.75}},
      {"ensflow", "m60-d20-g100", 12, 3, "emulated-100Mbit", Summary{1, 7, 7, 7, 7, {}}}};
  const auto dir = test::fresh_dir("roundtrip");
  { std::ofstream(dir / "runtimes.csv") << runtime_csv(rows); }
  const LoadedTable back = read_runtime_table(dir.string());
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(row_key(back.rows[1]), row_key(rows[1]));
  EXPECT_DOUBLE_EQ(*back.rows[0].stats.stddev, 0.75);
  EXPECT_FALSE(back.rows[1].stats.stddev);
  EXPECT_EQ(runtime_csv(back.rows), runtime_csv(rows));
  fs::remove_all(dir);
}

// A malformed table names the file and the line.
void expect_refused(const std::string& text, const std::string& needle) {
  const auto dir = test::fresh_dir("badtable");
  const std::string path = (dir / "t.csv").string();
  { std::ofstream(path) << text; }
  try {
    read_runtime_table(path, das2_labels());
    ADD_FAILURE() << "accepted: " << text;
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":" + needle), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(RuntimeTableIo, MalformedTablesAreRefusedWithFileAndLine) {
  const std::string h = std::string(kRuntimeHeader) + "\n";
  expect_refused("app,size,time\n", "1: unknown header");
  expect_refused("", "1: empty file");
  expect_refused(h + "poisson,64x64,4,2,local,1,5,5,5,5,\npoisson,64x64,4,x,local,1,5,5,5,5,\n",
                 "3: components 'x' is not an integer");
  expect_refused(h + "poisson,64x64,4,2,local,1,5,5,5,5,0\n", "2: stddev must be empty");
  expect_refused(h + "poisson,64x64,4,2,local,2,5,5,5,5,\n", "2: stddev is empty");
  expect_refused(h + "poisson,64x64,4,2,local,2,6,5,7,6,1\n", "2: statistics out of order");
  expect_refused(h + "poisson,64x64,4,8,local,1,5,5,5,5,\n", "2: components exceed total_size");
  expect_refused(h + "poisson,64x64,4,2,local,1,5,5,5,5,\npoisson,64x64,4,2,local,1,6,6,6,6,\n",
                 "3: row for poisson,64x64,4,2,local repeats line 2");
  expect_refused(h + "poisson,64x64,4,2,local,1,5,5,5\n", "2: 9 fields, the header has 11");
  expect_refused(std::string(kServiceTimeHeader) + "\nlinks,4,2,5\n",
                 "2: no problem label for app 'links'");
}

}  // namespace
}  // namespace mcb::calib
