// The schedule others read: processor ids within clusters, Batsim's jobs file and the SWF
// schedule of whole runs through the library.
#include "simulator/schedule.hpp"
#include "common/csv.hpp"
#include "simulator/processor_ids.hpp"
#include "simulator/study.hpp"
#include "simulator/swf.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mcb::sim {
namespace {

TEST(ProcessorIds, TakesTheLowestIdleIdsOfEachCluster) {
  ProcessorIds ids({4, 4, 8});
  const std::vector<int> a = {2, 0, 3};
  EXPECT_EQ(interval_text(ids.take(a)), "0-1 8-10");
  const std::vector<int> b = {2, 4, 0};
  EXPECT_EQ(interval_text(ids.take(b)), "2-7") << "cluster 0's 2-3 joins cluster 1's 4-7";
  EXPECT_EQ(ids.idle(0), 0);
  EXPECT_EQ(ids.idle(1), 0);
  EXPECT_EQ(ids.idle(2), 5);
}

TEST(ProcessorIds, GivenBackIdsAreTakenAgainInOrder) {
  ProcessorIds ids({8});
  const IntervalSet first = ids.take(std::vector<int>{3});
  const IntervalSet second = ids.take(std::vector<int>{2});
  EXPECT_EQ(interval_text(second), "3-4");
  ids.give_back(first);
  EXPECT_EQ(interval_text(ids.take(std::vector<int>{4})), "0-2 5");
  EXPECT_EQ(ids.idle(0), 2);
}

TEST(ProcessorIds, DisagreeingAccountsAreLogicErrors) {
  ProcessorIds ids({4});
  EXPECT_THROW(ids.take(std::vector<int>{5}), std::logic_error);
  EXPECT_THROW(ids.give_back({{1, 2}}), std::logic_error);
}

TEST(ProcessorIds, CanonicalTextOfALoneId) {
  EXPECT_EQ(interval_text({{5, 5}, {7, 9}}), "5 7-9");
  EXPECT_EQ(interval_text({}), "");
}

const std::string kRef = std::string(MCB_FIXTURES_DIR) + "/simulator/das2-study/";

struct Files {
  std::string jobs, batsim, swf;
};

Files run(Options o) {
  o.tables = {kRef + "poisson_sim_service_times.csv", kRef + "ensflow_sim_service_times.csv"};
  o.output =
      (std::filesystem::temp_directory_path() / ("mcb_sim_schedule_" + std::to_string(::getpid())))
          .string();
  const Study s = Study::build(o);
  std::ostringstream jobs, batsim, swf;
  s.run_item(0, Study::ItemFiles{&jobs, &batsim, &swf});
  return {jobs.str(), batsim.str(), swf.str()};
}

std::vector<csv::Record> rows_of(const std::string& text) {
  std::istringstream in(text);
  csv::Reader reader(in, "schedule");
  std::vector<csv::Record> rows;
  csv::Record r;
  while (reader.next(r)) rows.push_back(r);
  return rows;
}

// Every processor id belongs to the clusters jobs.csv names, in the counts it names, and no id
// is held by two jobs at once: the ids agree with the engine's per-cluster accounting.
TEST(Schedule, ProcessorIdsAgreeWithTheClustersAndNeverOverlap) {
  Options o;
  o.workload = "mixed";
  o.jobs = 3000;
  o.utilization = "0.7";
  o.rule = "co";
  o.clusters = "32,16,32,24";
  const Files f = run(o);
  const auto jobs = rows_of(f.jobs), batsim = rows_of(f.batsim);
  ASSERT_EQ(batsim.front().fields, kBatsimColumns);
  ASSERT_EQ(jobs.size(), batsim.size());
  std::map<std::string, std::string> clusters_of;  // job id -> "c:n;c:n"
  for (size_t i = 1; i < jobs.size(); ++i) clusters_of[jobs[i].fields[0]] = jobs[i].fields[10];
  const std::vector<int> offset = {0, 32, 48, 80, 104};
  struct Use {
    double start, end;
    std::string job;
  };
  std::map<int, std::vector<Use>> by_id;
  for (size_t i = 1; i < batsim.size(); ++i) {
    const auto& b = batsim[i].fields;
    std::map<int, int> per_cluster;
    std::istringstream in(b[14]);
    std::string interval;
    int total = 0;
    while (in >> interval) {
      const auto dash = interval.find('-');
      const int first = std::stoi(interval.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(interval.substr(dash + 1));
      for (int id = first; id <= last; ++id) {
        int c = 0;
        while (offset[static_cast<size_t>(c) + 1] <= id) ++c;
        ++per_cluster[c];
        ++total;
        by_id[id].push_back({std::stod(b[8]), std::stod(b[10]), b[0]});
      }
    }
    EXPECT_EQ(total, std::stoi(b[4])) << "job " << b[0];
    std::string expected;
    for (const auto& [c, n] : per_cluster) {
      expected += (expected.empty() ? "" : ";") + std::to_string(c) + ":" + std::to_string(n);
    }
    EXPECT_EQ(expected, clusters_of[b[0]]) << "job " << b[0];
  }
  for (auto& [id, uses] : by_id) {
    std::sort(uses.begin(), uses.end(),
              [](const Use& a, const Use& b) { return a.start < b.start; });
    for (size_t k = 1; k < uses.size(); ++k) {
      EXPECT_LE(uses[k - 1].end, uses[k].start)
          << "processor " << id << " held by jobs " << uses[k - 1].job << " and " << uses[k].job;
    }
  }
}

// The SWF schedule reads back through the suite's own SWF reader: one record per job in
// arrival order. The utilization sets a pace with fractional arrival times, which SWF's integer
// fields hold rounded: each instant is Batsim's (exact) one rounded to the second, so the fields
// keep submit <= start <= end and add up to the end.
TEST(Schedule, SwfReadsBackAsWholeSecondsOfTheBatsimTimes) {
  Options o;
  o.workload = "poisson";
  o.jobs = 500;
  o.utilization = "0.6";
  o.clusters = "4x32";
  const Files f = run(o);
  std::map<std::string, std::vector<std::string>> batsim;
  for (const auto& r : rows_of(f.batsim)) batsim[r.fields[0]] = r.fields;
  const auto path = std::filesystem::temp_directory_path() /
                    ("mcb_sim_schedule_" + std::to_string(::getpid()) + ".swf");
  std::ofstream(path) << f.swf;
  SwfReader reader(path.string());
  EXPECT_EQ(reader.header().max_procs, 128);
  EXPECT_NE(f.swf.find("; Note: times rounded to whole seconds"), std::string::npos);
  SwfRecord r;
  size_t count = 0, fractional = 0;
  double last_submit = 0;
  const auto whole = [](double v) { return v == std::round(v); };
  while (reader.next(r)) {
    ++count;
    const auto& b = batsim.at(std::to_string(r.job));
    EXPECT_TRUE(whole(r.submit) && whole(r.wait) && whole(r.run) && whole(r.req_time))
        << "job " << r.job;
    EXPECT_GE(r.submit, last_submit) << "arrival order";
    last_submit = r.submit;
    fractional += !whole(std::stod(b[3]));
    EXPECT_EQ(r.submit, std::round(std::stod(b[3])));
    EXPECT_EQ(r.submit + r.wait, std::round(std::stod(b[8]))) << "start";
    EXPECT_EQ(r.submit + r.wait + r.run, std::round(std::stod(b[10]))) << "end";
    EXPECT_GE(r.wait, 0);
    EXPECT_GE(r.run, 0);
    EXPECT_GE(r.req_time, r.run);
    EXPECT_EQ(r.procs, std::stoll(b[4]));
    EXPECT_EQ(r.status, 1);
  }
  std::filesystem::remove(path);
  EXPECT_EQ(count, 500u);
  EXPECT_GT(fractional, 400u) << "the pace gives fractional arrivals, else nothing was rounded";
}

TEST(Schedule, WholeSecondsKeepTheOrderOfCloseInstants) {
  // 0.4 and 0.6 round apart; a job of 0.2 s across a half second runs 1 s, one within it 0 s.
  SwfTimes t = swf_whole_times(0.4, 0.4, 0.6, 0.6);
  EXPECT_EQ(t.submit, 0);
  EXPECT_EQ(t.wait, 0);
  EXPECT_EQ(t.run, 1);
  EXPECT_EQ(t.req_time, 1);
  EXPECT_TRUE(t.rounded);
  t = swf_whole_times(10.1, 10.2, 10.3, 12.7);
  EXPECT_EQ(t.submit, 10);
  EXPECT_EQ(t.wait, 0);
  EXPECT_EQ(t.run, 0);
  EXPECT_EQ(t.req_time, 3);
  t = swf_whole_times(100, 250, 1000, 4600);
  EXPECT_EQ(t.submit, 100);
  EXPECT_EQ(t.wait, 150);
  EXPECT_EQ(t.run, 750);
  EXPECT_EQ(t.req_time, 4350);
  EXPECT_FALSE(t.rounded);
}

}  // namespace
}  // namespace mcb::sim
