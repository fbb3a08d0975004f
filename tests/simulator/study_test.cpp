// Whole runs through the library: utilization identities (gross >= net, equal without
// co-allocation; net follows the offered load), warm-up, saturation, determinism.
#include "simulator/study.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <sstream>

namespace mcb::sim {
namespace {

const std::string kRef = std::string(MCB_FIXTURES_DIR) + "/simulator/das2-study/";

Options base(const std::string& mix = "poisson") {
  Options o;
  o.workload = mix;
  o.tables = {kRef + "poisson_sim_service_times.csv", kRef + "ensflow_sim_service_times.csv"};
  o.jobs = 6000;
  o.utilization = "0.5";
  o.output =
      (std::filesystem::temp_directory_path() / ("mcb_sim_study_" + std::to_string(::getpid())))
          .string();
  return o;
}

nlohmann::json run(const Options& o, std::string* csv = nullptr, size_t item = 0) {
  const Study s = Study::build(o);
  std::ostringstream out;
  const auto r = s.run_item(item, &out);
  if (csv) {  // the rows, without the header line
    const std::string text = out.str();
    *csv = text.substr(text.find('\n') + 1);
  }
  return r["summary"];
}

TEST(Values, RangesAreMadeByIndexAndComeOutAsWritten) {
  EXPECT_EQ(parse_values("utilization", "0.3:0.9:0.15"),
            (std::vector<double>{0.3, 0.45, 0.6, 0.75, 0.9}));
  EXPECT_EQ(parse_values("utilization", "0.1:0.3:0.1"), (std::vector<double>{0.1, 0.2, 0.3}));
  EXPECT_EQ(parse_values("rate", "1:3:0.5"), (std::vector<double>{1, 1.5, 2, 2.5, 3}));
  EXPECT_EQ(parse_values("rate", "1e-3:3e-3:1e-3").size(), 3u) << "exponents: by a + i x step";
}

TEST(Utilization, GrossEqualsNetWithoutCoAllocation) {
  for (const char* policy : {"gs", "ls", "lp"}) {
    Options o = base("mixed");
    o.rule = "no";
    o.policy = policy;
    const auto s = run(o);
    EXPECT_EQ(s["utilization"]["gross"].get<double>(), s["utilization"]["net"].get<double>())
        << policy;
    EXPECT_NEAR(s["utilization"]["net"].get<double>(), 0.5, 0.04)
        << policy << ": net follows the offered load";
  }
}

TEST(Utilization, CoAllocationMakesGrossExceedNet) {
  for (const char* rule : {"co", "rco", "fco"}) {
    Options o = base();
    o.rule = rule;
    std::string csv;
    const auto s = run(o, &csv);
    const double gross = s["utilization"]["gross"], net = s["utilization"]["net"];
    EXPECT_GT(gross, net) << rule << ": Poisson runs longer when spread";
    EXPECT_NEAR(net, 0.5, 0.04) << rule;
    // Per job: net service is the single-cluster time of the same total size.
    std::istringstream in(csv);
    std::string line;
    int spread = 0;
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      std::string cell;
      while (std::getline(ss, cell, ',')) f.push_back(cell);
      const int components = std::stoi(f[9]);
      const double service = std::stod(f[12]), net_service = std::stod(f[13]);
      if (components == 1) {
        EXPECT_EQ(service, net_service);
      } else {
        EXPECT_GT(service, net_service);
        ++spread;
      }
    }
    EXPECT_GT(spread, 1000) << rule;
  }
}

TEST(Utilization, NetFollowsTheOfferedLoad) {
  for (const char* u : {"0.3", "0.7"}) {
    Options o = base("ensflow");
    o.utilization = u;
    o.rule = "fco";
    o.policy = "ls";
    o.jobs = 8000;
    const auto s = run(o);
    EXPECT_NEAR(s["utilization"]["net"].get<double>(), std::stod(u), 0.05) << u;
    EXPECT_FALSE(s["saturated"].get<bool>()) << u;
  }
}

TEST(Policies, LpBecomesLsWithoutCoAllocation) {
  // DAS-2 paper 5.2: with only single-component jobs LP's global queue stays empty.
  Options o = base("mixed");
  o.rule = "no";
  o.utilization = "0.7";
  o.policy = "ls";
  std::string ls_csv, lp_csv;
  const auto ls = run(o, &ls_csv);
  o.policy = "lp";
  const auto lp = run(o, &lp_csv);
  EXPECT_EQ(ls["response"], lp["response"]);
  EXPECT_EQ(ls_csv, lp_csv);
  o.rule = "fco";
  const auto lp_fco = run(o);
  o.policy = "ls";
  EXPECT_NE(run(o)["response"], lp_fco["response"]) << "with multi-component jobs they differ";
}

TEST(Runs, WarmUpIsLeftOut) {
  Options o = base();
  o.warmup = "1000";
  std::string csv;
  const auto s = run(o, &csv);
  EXPECT_EQ(s["jobs"]["warmup"].get<int>(), 1000);
  EXPECT_EQ(s["jobs"]["measured"].get<int>(), 5000);
  EXPECT_EQ(s["jobs"]["measured_completed"].get<int>(), 5000);
  EXPECT_EQ(s["response"]["mean"].is_number(), true);
  int unmeasured = 0;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line))
    unmeasured += line.size() > 4 && line.compare(line.size() - 4, 4, ",0,0") == 0;
  EXPECT_EQ(unmeasured, 1000);
}

TEST(Runs, SaturationIsFlagged) {
  Options o = base();
  o.utilization = "1.3";
  o.jobs = 3000;
  EXPECT_TRUE(run(o)["saturated"].get<bool>());
  o.utilization = "0.3";
  EXPECT_FALSE(run(o)["saturated"].get<bool>());
  o.utilization = "1.5";
  o.max_in_system = 300;
  const auto stopped = run(o);
  EXPECT_TRUE(stopped["stopped_early"].get<bool>());
  EXPECT_TRUE(stopped["saturated"].get<bool>());
}

TEST(Runs, SameSeedSameResultBitForBit) {
  for (const char* queue : {"fcfs", "easy", "cons"}) {
    Options o = base("mixed");
    o.rule = "rco";
    o.policy = "lp";
    o.queue = queue;
    o.jobs = 3000;
    std::string a, b, c;
    const auto ra = run(o, &a);
    const auto rb = run(o, &b);
    EXPECT_EQ(ra.dump(), rb.dump()) << queue;
    EXPECT_EQ(a, b) << queue;
    o.seed = 2;
    run(o, &c);
    EXPECT_NE(a, c) << queue << ": another seed, another workload";
  }
}

TEST(Runs, ReplicationsUseDistinctSeeds) {
  Options o = base();
  o.replications = 3;
  o.jobs = 2000;
  const Study s = Study::build(o);
  EXPECT_EQ(s.seed_of(0), o.seed);
  EXPECT_NE(s.seed_of(1), s.seed_of(2));
  EXPECT_NE(s.run_item(1, nullptr)["summary"]["response"]["mean"],
            s.run_item(2, nullptr)["summary"]["response"]["mean"]);
}

}  // namespace
}  // namespace mcb::sim
