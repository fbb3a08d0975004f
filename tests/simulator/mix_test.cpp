// Job mixes: the shares the rules imply equal the DAS-2 study's Tables 6-8 (rule-derived; see
// fixtures/simulator/das2-study/README.md), and generated workloads match them within sampling
// error.
#include "common/errors.hpp"
#include "simulator/job_mix.hpp"
#include "simulator/tables.hpp"
#include "simulator/workload_synthetic.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

namespace mcb::sim {
namespace {

const std::string kRef = std::string(MCB_FIXTURES_DIR) + "/simulator/das2-study/";

using Key = std::tuple<std::string, std::string, int, int>;  // rule, app, total, components

// Reads jobmix_<mix>.csv into fractions (the single-app files have no app column).
std::map<Key, double> reference(const std::string& mix) {
  std::ifstream in(kRef + "jobmix_" + mix + ".csv");
  EXPECT_TRUE(in) << kRef;
  std::string line;
  std::getline(in, line);
  const bool has_app = line.find("app") != std::string::npos;
  std::map<Key, double> out;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string rule, app = mix, total, comps, percent;
    std::getline(ss, rule, ',');
    if (has_app) std::getline(ss, app, ',');
    std::getline(ss, total, ',');
    std::getline(ss, comps, ',');
    std::getline(ss, percent, ',');
    out[{rule, app, std::stoi(total), std::stoi(comps)}] = std::stod(percent) / 100;
  }
  return out;
}

PriceBook das2_book(const std::vector<std::string>& apps) {
  const auto tables = RuntimeTables::load(
      {kRef + "poisson_sim_service_times.csv", kRef + "ensflow_sim_service_times.csv"});
  return tables.select(apps, {}, "", Statistic::kAvg);
}

class Mixes : public ::testing::TestWithParam<std::string> {};

TEST_P(Mixes, RulesGiveThePapersShares) {
  const std::string name = GetParam();
  const auto ref = reference(name);
  const JobMix mix = load_mix(name);
  const MachineSpec m = parse_clusters("4x32");
  for (const char* rule : {"no", "co", "rco", "fco"}) {
    std::map<Key, double> got;
    for (const auto& c : mix_choices(mix, parse_rule(rule), RequestType::kUnordered, m, 16)) {
      got[{rule, mix.apps[static_cast<size_t>(c.app)].name, c.total, c.components}] +=
          c.probability;
    }
    double sum = 0;
    for (const auto& [key, p] : got) {
      sum += p;
      ASSERT_TRUE(ref.count(key)) << rule << " generates " << std::get<1>(key) << " "
                                  << std::get<2>(key) << "/" << std::get<3>(key);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
    for (const auto& [key, p] : ref) {
      if (std::get<0>(key) != rule) continue;
      const double g = got.count(key) ? got.at(key) : 0.0;
      // The printed shares are rounded (33.34% for 1/3): allow 1e-4.
      EXPECT_NEAR(g, p, 1e-4) << rule << " " << std::get<1>(key) << " " << std::get<2>(key) << "/"
                              << std::get<3>(key);
    }
  }
}

TEST_P(Mixes, GeneratedJobsMatchTheSharesWithinSamplingError) {
  const std::string name = GetParam();
  const auto ref = reference(name);
  const JobMix mix = load_mix(name);
  std::vector<std::string> apps;
  for (const auto& a : mix.apps) apps.push_back(a.name);
  const PriceBook book = das2_book(apps);
  const MachineSpec m = parse_clusters("4x32");
  constexpr std::uint64_t kJobs = 60000;
  for (const char* rule : {"no", "co", "rco", "fco"}) {
    SyntheticSpec spec;
    spec.choices = mix_choices(mix, parse_rule(rule), RequestType::kUnordered, m, 16);
    spec.apps = apps;
    spec.book = &book;
    spec.machine = m;
    spec.rate = 0.01;
    spec.jobs = kJobs;
    spec.seed = 42;
    SyntheticSource source(spec);
    std::map<Key, double> count;
    Job job;
    double last = 0;
    while (source.next(job)) {
      count[{rule, apps[static_cast<size_t>(job.app)], job.req.total,
             static_cast<int>(job.req.sizes.size())}] += 1;
      ASSERT_TRUE(job.price.table) << "every generated job is priced by the tables";
      for (int s : job.req.sizes) ASSERT_EQ(s, job.req.sizes.front()) << "components are equal";
      last = job.submit;
    }
    EXPECT_NEAR(last / kJobs, 1 / spec.rate, 0.02 / spec.rate) << "Poisson arrivals at the rate";
    for (const auto& [key, n] : count) ASSERT_TRUE(ref.count(key)) << rule;
    for (const auto& [key, p] : ref) {
      if (std::get<0>(key) != rule) continue;
      const double f = (count.count(key) ? count.at(key) : 0.0) / kJobs;
      const double sigma = std::sqrt(p * (1 - p) / kJobs);
      EXPECT_NEAR(f, p, 4 * sigma + 1e-4)
          << rule << " " << std::get<1>(key) << " " << std::get<2>(key) << "/" << std::get<3>(key);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Das2, Mixes, ::testing::Values("poisson", "ensflow", "mixed"));

TEST(Mix, SameSeedSameJobsOtherSeedOtherJobs) {
  const JobMix mix = load_mix("mixed");
  const PriceBook book = das2_book({"poisson", "ensflow"});
  const auto draw = [&](std::uint64_t seed) {
    SyntheticSpec spec;
    spec.choices = mix_choices(mix, Rule::kCo, RequestType::kUnordered, parse_clusters("4x32"), 16);
    spec.apps = {"poisson", "ensflow"};
    spec.book = &book;
    spec.machine = parse_clusters("4x32");
    spec.rate = 0.01;
    spec.jobs = 500;
    spec.seed = seed;
    SyntheticSource source(spec);
    std::ostringstream out;
    Job job;
    while (source.next(job))
      out << job.submit << ' ' << job.app << ' ' << job.req.total << ' ' << job.req.sizes.size()
          << '\n';
    return out.str();
  };
  EXPECT_EQ(draw(7), draw(7));
  EXPECT_NE(draw(7), draw(8));
}

TEST(Mix, RulesLimitComponents) {
  const MachineSpec m = parse_clusters("4x32");
  for (const auto& c : mix_choices(load_mix("mixed"), Rule::kFco, RequestType::kUnordered, m, 16)) {
    EXPECT_LE(c.components, 2);
    EXPECT_LE(c.total / c.components, 16);
  }
  for (const auto& c : mix_choices(load_mix("mixed"), Rule::kNo, RequestType::kUnordered, m, 16)) {
    EXPECT_EQ(c.components, 1);
  }
}

// The bounds of a flexible request: the tighter of the rule's, the user's and the job's own.
TEST(Mix, FlexibleBoundsTakeTheTighterOfEach) {
  Request r;
  r.type = RequestType::kFlexible;
  r.total = 24;
  // [fco] on 4x32 (at most 2 components of 16); the user asks for at most 3, at least 8.
  bound_flexible(r, rule_limits(Rule::kFco, 16), {8, 3});
  EXPECT_EQ(r.max_components, 2);
  EXPECT_EQ(r.max_component, 16);
  EXPECT_EQ(r.min_component, 8);
  // [co]: no limits; the user's 3 holds, and a job list's own 12 and 2 are tighter still.
  bound_flexible(r, rule_limits(Rule::kCo, 16), {8, 3}, {2, 12}, 10);
  EXPECT_EQ(r.max_components, 2);
  EXPECT_EQ(r.max_component, 12);
  EXPECT_EQ(r.min_component, 10);
  // A job smaller than the user's smallest component stays whole (24 < 32); no bound: none.
  bound_flexible(r, rule_limits(Rule::kCo, 16), {32, 0});
  EXPECT_EQ(r.min_component, 24);
  EXPECT_EQ(r.max_components, 0);
  EXPECT_EQ(r.max_component, 0);
}

TEST(Mix, ASizeNoSplitAllowsIsAnError) {
  // [no] on clusters of 16: Poisson's 32 can be neither one component nor split.
  EXPECT_THROW(mix_choices(load_mix("poisson"), Rule::kNo, RequestType::kUnordered,
                           parse_clusters("4x16"), 8),
               UsageError);
  EXPECT_THROW(mix_choices(load_mix("poisson"), Rule::kCo, RequestType::kUnordered,
                           parse_clusters("1x16"), 8),
               UsageError)
      << "larger than the system";
}

TEST(Mix, IniFileDefinesApplications) {
  const auto mix = load_mix(std::string(MCB_FIXTURES_DIR) + "/simulator/mix-small.ini");
  ASSERT_EQ(mix.apps.size(), 2u);
  EXPECT_EQ(mix.apps[0].name, "poisson");
  EXPECT_EQ(mix.apps[0].sizes, (std::vector<int>{16, 32}));
  EXPECT_DOUBLE_EQ(mix.apps[1].weight, 3);
  ASSERT_EQ(mix.apps[0].exclude.size(), 1u);
  EXPECT_EQ(mix.apps[0].exclude[0], std::make_pair(32, 4));
  const auto choices =
      mix_choices(mix, Rule::kCo, RequestType::kUnordered, parse_clusters("4x32"), 16);
  double ensflow = 0;
  for (const auto& c : choices) ensflow += c.app == 1 ? c.probability : 0;
  EXPECT_NEAR(ensflow, 0.75, 1e-12);
}

}  // namespace
}  // namespace mcb::sim
