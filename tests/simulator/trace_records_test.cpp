// The jobs the checking pass keeps for the runs (TraceRecords): a run replays them as reading the
// file gives them, each field of a list job kept whether it is rare or not, and SWF counts past an
// int refused or taken as no cluster, as the file's values would be.
#include "simulator/policy.hpp"
#include "simulator/trace_source.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace mcb::sim {
namespace {

using test::spec_for;
using test::TempFile;

// The jobs of a trace as a run sees them: id, line, submit, sizes and clusters, runtime.
std::vector<std::string> jobs_of(TraceSource& source) {
  std::vector<std::string> out;
  Job job;
  while (source.next(job)) {
    const Request& r = job.req;
    std::string s = std::to_string(job.id) + " " + std::to_string(job.line) + " " +
                    std::to_string(job.submit) + " " + std::to_string(job.app) + " " +
                    std::to_string(job.price.runtime) + " " + std::to_string(job.price.requested) +
                    " home " + std::to_string(job.home) + " " + std::string(to_string(r.type)) +
                    " bounds " + std::to_string(r.min_component) + " " +
                    std::to_string(r.max_component) + " " + std::to_string(r.max_components) + " " +
                    std::to_string(r.min_size) + " total " + std::to_string(r.total);
    for (int c : job.req.sizes) s += " s" + std::to_string(c);
    for (int c : job.req.clusters) s += " c" + std::to_string(c);
    out.push_back(s);
  }
  return out;
}

// The checking pass reads the file once and keeps its jobs: a run replays them, the same jobs
// (the same random splits too) as reading the file again, even once the file is gone. A list
// job of one component that gives nothing else is kept apart from those that give a type, a
// home, bounds or clusters: each of those comes back, between plain jobs.
TEST(Trace, RunsReplayTheJobsTheCheckingPassRead) {
  const auto gs = make_policy("gs", 4);
  const auto wf = make_placement("wf");
  TempFile swf("copy.swf", [] {
    std::ifstream in(test::kExcerpt);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }());
  TempFile list("list.csv",
                "id,submit,app,runtime,requested,type,components,clusters,home,min_component,"
                "max_component,max_components,min_size\n"
                "7,0,a,100,,fixed,8+4,1+0,,,,,\n"
                "8,5,,50,60,,16+16,,,,,,\n"
                "9,6,c,10,,flexible,24,,,,,,\n"
                ",6,c,10,,,12,,,,,,\n"
                "11,7,a,20,30,,3,,2,,,,\n"
                ",7,,20,,flexible,20,,,2,,,\n"
                "13,8,,20,,flexible,8,,,,8,,\n"
                "14,8,,20,,flexible,20,,,,,3,\n"
                "15,9,,20,,moldable,20,,,,,,10\n"
                "16,9,a,20,,unordered,5,,,,,,\n"
                "17,9,a,20,25,,6,,,,,,\n");
  for (const auto& [path, rule] : {std::pair{swf.path(), Rule::kCo}, {list.path(), Rule::kCo}}) {
    TraceSpec spec = spec_for(path, "4x32", rule);
    spec.apps = {"trace", "a", "job", "c"};
    TraceSource streamed(spec);
    const std::vector<std::string> expected = jobs_of(streamed);
    ASSERT_FALSE(expected.empty());
    // Each field as the list gives it; plain: a job of the run's type, without a home or bounds.
    if (path == list.path()) {
      const auto plain = [](int total) {
        return " home -1 unordered bounds 1 0 0 0 total " + std::to_string(total) + " s";
      };
      EXPECT_EQ(
          expected,
          (std::vector<std::string>{
              "7 2 0.000000 1 100.000000 -1.000000 home -1 fixed" +
                  std::string(" bounds 1 0 0 0 total 12 s8 s4 c1 c0"),
              "8 3 5.000000 2 50.000000 60.000000" + plain(32) + "16 s16",
              "9 4 6.000000 3 10.000000 -1.000000 home -1 flexible bounds 1 0 0 0 total 24 s24",
              "1 5 6.000000 3 10.000000 -1.000000" + plain(12) + "12",
              "11 6 7.000000 1 20.000000 30.000000 home 2 unordered bounds 1 0 0 0 total 3 s3",
              "2 7 7.000000 2 20.000000 -1.000000 home -1 flexible bounds 2 0 0 0 total 20 s20",
              "13 8 8.000000 2 20.000000 -1.000000 home -1 flexible bounds 1 8 0 0 total 8 s8",
              "14 9 8.000000 2 20.000000 -1.000000 home -1 flexible bounds 1 0 3 0 total 20 s20",
              "15 10 9.000000 2 20.000000 -1.000000 home -1 moldable bounds 1 0 0 10 total 20 s20",
              "16 11 9.000000 1 20.000000 -1.000000" + plain(5) + "5",
              "17 12 9.000000 1 20.000000 25.000000" + plain(6) + "6"}));
    }
    spec.records = TraceSource::scan(spec, *gs, *wf).records;
    ASSERT_TRUE(spec.records);
    std::filesystem::remove(path);
    TraceSource replayed(spec);
    EXPECT_EQ(jobs_of(replayed), expected) << path;
  }
}

// The checking pass keeps an SWF job's processors and partition as ints: a job of more processors
// than an int holds is refused with its count as the file gives it, and a partition past an int
// is no cluster (not the one it would wrap to).
TEST(Trace, SwfCountsPastAnIntAreRefusedOrNoCluster) {
  const auto gs = make_policy("gs", 2);
  const auto wf = make_placement("wf");
  TempFile big("big.swf",
               "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"
               "2 5 -1 10 4294967298 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  const std::string e =
      test::error_of([&] { TraceSource::scan(spec_for(big.path(), "2x4"), *gs, *wf); });
  EXPECT_NE(e.find(big.path() + ":2: job 2 needs 4294967298 processors; the system has 8"),
            std::string::npos)
      << e;
  TempFile far("far.swf",
               "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 4294967298 -1 -1\n"
               "2 5 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 2 -1 -1\n");
  TraceSpec spec = spec_for(far.path(), "2x4");
  spec.records = TraceSource::scan(spec, *gs, *wf).records;
  TraceSource source(spec);
  Job job;
  ASSERT_TRUE(source.next(job));
  EXPECT_EQ(job.home, -1);
  ASSERT_TRUE(source.next(job));
  EXPECT_EQ(job.home, 1);
}

}  // namespace
}  // namespace mcb::sim
