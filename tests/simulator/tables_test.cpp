// Runtime tables: the shipped DAS-2 tables, the reference shape, choosing problems and
// systems, and malformed rows.
#include "simulator/tables.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace mcb::sim {
namespace {

const std::string kDas2 = std::string(MCB_SOURCE_DIR) + "/calibration/das2";
const std::string kRef = std::string(MCB_FIXTURES_DIR) + "/simulator/das2-study/";
const std::string kTwo = std::string(MCB_FIXTURES_DIR) + "/simulator/tables-two-problems";

using test::error_of;

TEST(Tables, ShippedDas2TablesArePapersTables4And5) {
  if (!std::filesystem::exists(kDas2 + "/runtimes.csv")) GTEST_SKIP() << "no " << kDas2;
  const auto book =
      RuntimeTables::load({kDas2}).select({"poisson", "ensflow"}, {}, "", Statistic::kAvg);
  const auto ref = RuntimeTables::load({kRef + "poisson_sim_service_times.csv",
                                        kRef + "ensflow_sim_service_times.csv"})
                       .select({"poisson", "ensflow"}, {}, "", Statistic::kAvg);
  int compared = 0;
  for (const char* app : {"poisson", "ensflow"}) {
    for (int size : ref.sizes(app)) {
      for (int k = 1; k <= 4; ++k) {
        const double r = ref.price(app, size, k);
        if (std::isnan(r)) {
          EXPECT_TRUE(std::isnan(book.price(app, size, k))) << app << " " << size << "/" << k;
        } else {
          EXPECT_EQ(book.price(app, size, k), r) << app << " " << size << "/" << k;
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 8 + 12);
  EXPECT_EQ(book.chosen().at("poisson").first, "4000x4000");
}

TEST(Tables, StatisticChoosesTheColumn) {
  const auto tables = RuntimeTables::load({kTwo});
  const auto avg = tables.select({"poisson"}, {{"poisson", "small"}}, "", Statistic::kAvg);
  const auto max = tables.select({"poisson"}, {{"poisson", "small"}}, "", Statistic::kMax);
  EXPECT_DOUBLE_EQ(avg.price("poisson", 8, 1), 10);
  EXPECT_DOUBLE_EQ(max.price("poisson", 8, 1), 12);
  EXPECT_NE(error_of([] {
              RuntimeTables::load({kRef + "poisson_sim_service_times.csv"})
                  .select({"poisson"}, {}, "", Statistic::kMax);
            }).find("--statistic"),
            std::string::npos)
      << "the reference shape has one time per row";
}

TEST(Tables, SeveralProblemsMustBeChosen) {
  const auto tables = RuntimeTables::load({kTwo});
  const std::string e = error_of([&] { tables.select({"poisson"}, {}, "", Statistic::kAvg); });
  EXPECT_NE(e.find("'large', 'small'"), std::string::npos) << e;
  EXPECT_NE(e.find("--problem poisson=NAME"), std::string::npos) << e;
  EXPECT_NE(error_of([&] {
              tables.select({"poisson"}, {{"poisson", "huge"}}, "", Statistic::kAvg);
            }).find("'poisson=huge'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { tables.select({"ensflow"}, {}, "", Statistic::kAvg); }).find("--system"),
            std::string::npos)
      << "ensflow rows come from two systems";
  const auto chosen = tables.select({"ensflow"}, {}, "das2", Statistic::kAvg);
  EXPECT_DOUBLE_EQ(chosen.price("ensflow", 12, 1), 3485);
  EXPECT_NE(error_of([&] {
              tables.select({"nbody"}, {}, "", Statistic::kAvg);
            }).find("no rows for app 'nbody'"),
            std::string::npos);
}

TEST(Tables, MalformedRowsAreNamedByLine) {
  const test::TempFile table(
      "tab.csv",
      "app,problem,total_size,components,system,n,min,avg,max,median,stddev\n"
      "poisson,p,8,1,s,1,1,1,1,1,\n"
      "poisson,p,8,two,s,1,1,1,1,1,\n");
  const std::string e = error_of([&] { RuntimeTables::load({table.path()}); });
  EXPECT_NE(e.find(table.path() + ":3:"), std::string::npos) << e;
  EXPECT_NE(e.find("'two'"), std::string::npos) << e;
  EXPECT_NE(error_of([] { RuntimeTables::load({"/nonexistent/dir"}); }).find("cannot read"),
            std::string::npos);
}

}  // namespace
}  // namespace mcb::sim
