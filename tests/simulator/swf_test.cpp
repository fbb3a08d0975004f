// The SWF reader and trace workloads: header oddities, unknown fields, malformed lines (named
// by line number), submit order, jobs larger than the system, rule-based splitting.
#include "simulator/swf.hpp"
#include "simulator/policy.hpp"
#include "simulator/trace_source.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mcb::sim {
namespace {

using test::error_of;
using test::kExcerpt;
using test::spec_for;
using test::TempFile;

void read_all(const std::string& path) {
  SwfReader r(path);
  SwfRecord rec;
  while (r.next(rec)) {
  }
}

TEST(Swf, ReadsTheExcerptAndItsHeader) {
  SwfReader r(kExcerpt);
  EXPECT_EQ(r.header().max_procs, 64);
  EXPECT_EQ(r.header().max_nodes, 32) << "'32 (dual CPU)': the number before the parenthesis";
  EXPECT_EQ(r.header().max_jobs, 40315);
  EXPECT_EQ(r.header().fields.at("Installation"), "DAS2 - Leiden University (fs1)");
  SwfRecord rec;
  int n = 0;
  double last = -1;
  while (r.next(rec)) {
    ++n;
    EXPECT_GE(rec.submit, last);
    last = rec.submit;
  }
  EXPECT_EQ(n, 600);
  EXPECT_EQ(rec.line, 644) << "line numbers count the header";
}

TEST(Swf, KeepsEveryHeaderLineInOrderAndTheTimeZoneWithoutItsRemark) {
  SwfReader r(kExcerpt);
  const SwfHeader& h = r.header();
  EXPECT_EQ(h.unix_start, 1041377305);
  EXPECT_EQ(h.time_zone, "Europe/Amsterdam");
  int queues = 0, information = 0;
  for (const auto& [key, value] : h.lines) {
    queues += key == "Queue";
    information += key == "Information";
  }
  EXPECT_EQ(queues, 1);
  EXPECT_EQ(information, 12) << "repeated keys are all kept";
  ASSERT_FALSE(h.lines.empty());
  EXPECT_EQ(h.lines.front(), std::make_pair(std::string("Version"), std::string("2.2")));
}

std::string value_of(const std::vector<std::pair<std::string, std::string>>& fields,
                     const std::string& key) {
  std::string found = "(absent)";
  for (const auto& [k, v] : fields) {
    if (k == key) found = v;
  }
  return found;
}

// A schedule of the trace on its own machine carries the trace's dates, time zone, nodes and
// queues; the start moves to the first arrival, where the schedule's times begin.
TEST(Swf, ScheduleHeaderCarriesWhatStillHoldsOfTheSource) {
  SwfReader r(kExcerpt);
  SwfScheduleInfo info;
  info.jobs = 600;
  info.cluster_sizes = {64};
  info.queue_names = {"global"};
  info.source = &r.header();
  info.origin = 500;
  const auto fields = swf_schedule_header(info);
  EXPECT_EQ(fields.front().first, "Version");
  EXPECT_EQ(value_of(fields, "UnixStartTime"), "1041377805");
  EXPECT_EQ(value_of(fields, "TimeZoneString"), "Europe/Amsterdam");
  EXPECT_EQ(value_of(fields, "TimeZone"), "3600");
  EXPECT_EQ(value_of(fields, "MaxNodes"), "32 (dual CPU)");
  EXPECT_EQ(value_of(fields, "MaxProcs"), "64");
  EXPECT_EQ(value_of(fields, "MaxQueues"), "1");
  EXPECT_EQ(value_of(fields, "Queue"), "1 - All jobs submitted to same (and only) queue");
  EXPECT_EQ(value_of(fields, "MaxJobs"), "600");

  // Written and read back by the reader, the dates survive.
  TempFile f("schedule.swf", swf_header(fields) + "1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 1 1 1 -1 -1\n");
  SwfReader back(f.path());
  EXPECT_EQ(back.header().unix_start, 1041377805);
  EXPECT_EQ(back.header().time_zone, "Europe/Amsterdam");
  EXPECT_EQ(back.header().max_nodes, 32);
}

TEST(Swf, ScheduleHeaderLeavesOutWhatNoLongerHolds) {
  SwfReader r(kExcerpt);
  SwfScheduleInfo info;
  info.jobs = 10;
  info.cluster_sizes = {32, 32, 32, 32};
  info.queue_names = {"local 0", "local 1", "local 2", "local 3", "global"};
  info.source = &r.header();
  info.scale = 2;  // arrivals compressed: times are no longer the trace's dates
  const auto fields = swf_schedule_header(info);
  EXPECT_EQ(value_of(fields, "UnixStartTime"), "(absent)");
  EXPECT_EQ(value_of(fields, "TimeZoneString"), "(absent)");
  EXPECT_EQ(value_of(fields, "MaxNodes"), "(absent)") << "128 processors are not 32 nodes";
  EXPECT_EQ(value_of(fields, "MaxProcs"), "128");
  EXPECT_EQ(value_of(fields, "MaxQueues"), "5");
  EXPECT_EQ(value_of(fields, "Queue"), "5 - global");
  EXPECT_EQ(value_of(fields, "MaxPartitions"), "4");
  bool noted = false;
  for (const auto& [k, v] : fields) noted |= k == "Note" && v.find("divided by 2") != v.npos;
  EXPECT_TRUE(noted);

  info.source = nullptr;  // a synthetic workload has no dates and no nodes
  const auto synthetic = swf_schedule_header(info);
  EXPECT_EQ(value_of(synthetic, "UnixStartTime"), "(absent)");
  EXPECT_EQ(value_of(synthetic, "MaxNodes"), "(absent)");
}

TEST(Swf, WrittenLinesHoldOnlyWholeNumbersInFixedNotation) {
  SwfRecord r;
  r.job = 38898;
  r.submit = 10300000;
  r.wait = 0;
  r.run = 1200.5;
  r.procs = 64;
  r.req_procs = 64;
  r.req_time = 900000;
  r.status = 1;
  EXPECT_EQ(swf_line(r), "38898 10300000 0 1200.5 64 -1 -1 64 900000 -1 1 -1 -1 -1 -1 -1 -1 -1");
}

TEST(Swf, HeaderOdditiesAndUnknownFields) {
  TempFile f("odd.swf",
             ";  Version: 2.2\n"
             ";\tMaxNodes:\t128 (quad CPU nodes; 512 cores)\n"
             "; MaxProcs: 512 (of which 500 usable)\n"
             "; Note: text: with colons\n"
             "\n"
             "1 0 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
             "; a comment between records\n"
             "   \t\n"
             "2\t10\t-1\t50.5\t-1\t-1\t-1\t2\t-1\t-1\t0\t3\t1\t7\t1\t2\t-1\t-1\n");
  SwfReader r(f.path());
  EXPECT_EQ(r.header().max_nodes, 128);
  EXPECT_EQ(r.header().max_procs, 512);
  EXPECT_EQ(r.header().fields.at("Note"), "text: with colons");
  SwfRecord rec;
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.procs, 4);
  EXPECT_EQ(rec.wait, -1);
  EXPECT_EQ(rec.req_time, 200);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.line, 9);
  EXPECT_EQ(rec.procs, -1);
  EXPECT_EQ(rec.req_procs, 2);
  EXPECT_DOUBLE_EQ(rec.run, 50.5);
  EXPECT_EQ(rec.partition, 2);
  EXPECT_FALSE(r.next(rec));
}

// The option that named the file is the one every refusal names.
TEST(Swf, RefusalsNameTheOptionThatGaveTheFile) {
  EXPECT_EQ(error_of([] { SwfReader r("/nonexistent/x.swf", "--queues"); }).rfind("--queues: ", 0),
            0u);
  TempFile bad("bad.swf", "1 x -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  const std::string e = error_of([&] {
    SwfReader r(bad.path(), "--queues");
    SwfRecord rec;
    r.next(rec);
  });
  EXPECT_EQ(e.rfind("--queues: " + bad.path() + ":1: field 2 'x'", 0), 0u) << e;
}

TEST(Swf, MalformedLinesAreNamedByLine) {
  TempFile few("few.swf",
               "; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n2 5 -1 10 2 -1 -1 2 "
               "20 -1 1 1 1 1 1 -1 -1\n");
  const std::string e1 = error_of([&] { read_all(few.path()); });
  EXPECT_NE(e1.find(few.path() + ":3:"), std::string::npos) << e1;
  EXPECT_NE(e1.find("17 fields"), std::string::npos) << e1;

  TempFile text("text.swf", "1 0 -1 ten 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  const std::string e2 = error_of([&] { read_all(text.path()); });
  EXPECT_NE(e2.find(":1:"), std::string::npos) << e2;
  EXPECT_NE(e2.find("field 4 'ten'"), std::string::npos) << e2;

  TempFile many("many.swf", "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1 99\n");
  EXPECT_NE(error_of([&] { read_all(many.path()); }).find("more than 18"), std::string::npos);

  TempFile fraction("fraction.swf", "1.5 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  EXPECT_NE(error_of([&] { read_all(fraction.path()); }).find("field 1"), std::string::npos);

  EXPECT_NE(error_of([] { SwfReader r("/nonexistent/x.swf"); }).find("cannot read"),
            std::string::npos);
}

// Short fields are read eight bytes at a time: every length up to the word and past it, leading
// zeros, "-1" and other negatives, and fields that only start like a number read as from_chars
// reads them, or are refused naming them.
TEST(Swf, FieldsOfEveryLengthReadAsNumbers) {
  TempFile f("lengths.swf",
             "7 1234567 12345678 -1 -0 -12 0 0000001 9999999 1e3 1 10 100 1000 10000 100000 "
             "1000000 3.5\n"
             "  123456789012345   98  -1   7 \t 4 -1 -1 4 60 -1 1 1 1 1 1 1 -1 -1\r\n");
  SwfReader r(f.path());
  SwfRecord rec;
  // Each value written back in its shortest form: the fields read are the numbers written.
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(swf_line(rec),
            "7 1234567 12345678 -1 0 -12 0 1 9999999 1000 1 10 100 1000 10000 100000 1000000 3.5");
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(swf_line(rec), "123456789012345 98 -1 7 4 -1 -1 4 60 -1 1 1 1 1 1 1 -1 -1");
  const std::pair<const char*, const char*> refused[] = {
      {"1 12a -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n", "field 2 '12a'"},
      {"1 0 -1x 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n", "field 3 '-1x'"},
      {"1 0 -1 1- 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n", "field 4 '1-'"},
      {"1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -\n", "field 18 '-'"}};
  for (const auto& [line, field] : refused) {
    TempFile bad("bad.swf", line);
    EXPECT_NE(error_of([&] { read_all(bad.path()); }).find(std::string(field) + " is not a number"),
              std::string::npos)
        << line;
  }
}

TEST(Swf, JobNumbersBelowMinusOneAreRefused) {
  TempFile missing("missing.swf", "-1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  SwfReader r(missing.path());
  SwfRecord rec;
  ASSERT_TRUE(r.next(rec));  // SWF's mark of an unknown value
  EXPECT_EQ(rec.job, -1);
  TempFile negative("negative.swf",
                    "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"
                    "-3 5 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  const std::string e = error_of([&] { read_all(negative.path()); });
  EXPECT_NE(e.find(negative.path() + ":2: job number (field 1) '-3' is negative"),
            std::string::npos)
      << e;
}

// A trace is read a block of 64 KiB at a time: lines across a block boundary, a last line
// without a line end, and refusals far into the file name the same line and field.
TEST(Swf, ReadsFilesOfManyBlocksLineByLine) {
  std::string text = "; MaxProcs: 64\n";
  for (int i = 1; i <= 3000; ++i) {
    text +=
        std::to_string(i) + (i % 2 ? " 7 -1 1924 8 -1 -1 8 7200 -1 1 1 1 -1 1 -1 -1 -1\n"
                                   : "\t7\t-10\t19.5\t-1 -1 -1 8 7200 -1 1 1 1 -1 1 -1 -1 -1\r\n");
  }
  TempFile whole("blocks.swf", text + "3001 7 -1 5 8 -1 -1 8 7200 -1 1 1 1 -1 1 -1 -1 -1");
  SwfReader r(whole.path());
  SwfRecord rec;
  for (int i = 1; i <= 3001; ++i) {
    ASSERT_TRUE(r.next(rec));
    ASSERT_EQ(rec.line, i + 1);
    ASSERT_EQ(rec.job, i);
    ASSERT_EQ(rec.wait, i % 2 || i == 3001 ? -1 : -10);
    ASSERT_EQ(rec.run, i == 3001 ? 5 : i % 2 ? 1924 : 19.5);
    ASSERT_EQ(rec.procs, i % 2 || i == 3001 ? 8 : -1);
    ASSERT_EQ(rec.think, -1);
  }
  EXPECT_FALSE(r.next(rec));

  TempFile late("late.swf", text + "3001 7 -1 5 8 -1 -1 8 7200 -1 1 -1x 1 -1 1 -1 -1 -1\n");
  EXPECT_EQ(error_of([&] { read_all(late.path()); }),
            "--trace: " + late.path() + ":3002: field 12 '-1x' is not a number");
  TempFile nul("nul.swf", text + "3001 7 -1 5 8 -1 -1 8 7200 -1 1 1 1 -1 1 -1 -1 -1" +
                              std::string(1, '\0') + "\n");
  EXPECT_EQ(error_of([&] { read_all(nul.path()); }),
            "--trace: " + nul.path() + ":3002: a NUL byte at column 50");
  TempFile minus_zero("minus-zero.swf", "1 0 -1 10 -0 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  SwfReader z(minus_zero.path());
  ASSERT_TRUE(z.next(rec));
  EXPECT_EQ(rec.procs, 0) << "-0 is read as std::from_chars reads it";
}

TEST(Trace, ScanCountsJobsAndSkipsUnknowns) {
  TempFile f("unknown.swf",
             "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"
             "2 1 -1 -1 2 -1 -1 2 20 -1 5 1 1 1 1 -1 -1 -1\n"
             "3 2 -1 10 -1 -1 -1 -1 20 -1 0 1 1 1 1 -1 -1 -1\n"
             "4 3 -1 10 -1 -1 -1 3 20 -1 1 1 1 1 1 -1 -1 -1\n");
  const auto policy = make_policy("gs", 1);
  const auto wf = make_placement("wf");
  const TraceScan scan = TraceSource::scan(spec_for(f.path(), "1x8"), *policy, *wf);
  EXPECT_EQ(scan.jobs, 2u);
  EXPECT_EQ(scan.skipped.at("unknown runtime"), 1u);
  EXPECT_EQ(scan.skipped.at("unknown processors"), 1u);
  EXPECT_DOUBLE_EQ(scan.runtime_work, 2 * 10 + 3 * 10)
      << "requested processors stand in for allocated";
}

TEST(Trace, OutOfOrderAndOversizedJobsAreNamedByLine) {
  TempFile order("order.swf",
                 "; header\n1 10 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n2 5 -1 10 2 -1 -1 2 20 "
                 "-1 1 1 1 1 1 -1 -1 -1\n");
  const auto gs = make_policy("gs", 2);
  const auto wf = make_placement("wf");
  const std::string e1 =
      error_of([&] { TraceSource::scan(spec_for(order.path(), "2x4"), *gs, *wf); });
  EXPECT_NE(e1.find(order.path() + ":3:"), std::string::npos) << e1;
  EXPECT_NE(e1.find("submit order"), std::string::npos) << e1;

  const std::string e2 =
      error_of([&] { TraceSource::scan(spec_for(kExcerpt, "2x16", Rule::kCo), *gs, *wf); });
  EXPECT_NE(e2.find("needs 48 processors; the system has 32"), std::string::npos) << e2;
  EXPECT_NE(e2.find(".swf:"), std::string::npos) << e2;

  const std::string e3 = error_of([&] { TraceSource::scan(spec_for(kExcerpt, "2x32"), *gs, *wf); });
  EXPECT_NE(e3.find("has no split --rule no allows"), std::string::npos) << e3;
}

// On one cluster a job has one split, one component, which the rule may still refuse.
TEST(Trace, OnOneClusterAJobIsOneComponentWithinTheRulesLimit) {
  TempFile swf("one.swf",
               "1 0 -1 10 16 -1 -1 16 20 -1 1 1 1 1 1 -1 -1 -1\n"
               "2 5 -1 10 33 -1 -1 33 20 -1 1 1 1 1 1 -1 -1 -1\n");
  TraceSpec spec = spec_for(swf.path(), "64", Rule::kRco);  // components of at most 32
  TraceSource source(spec);
  Job job;
  ASSERT_TRUE(source.next(job));
  EXPECT_EQ(job.req.sizes, Counts{16});
  const std::string e = error_of([&] { source.next(job); });
  EXPECT_NE(e.find(swf.path() + ":2: job 2 (33 processors) has no split --rule rco allows"),
            std::string::npos)
      << e;
}

// The checking pass asks the policy once per size of one-component jobs without a home; a job of
// that size with a home, or of another type, is still asked about.
TEST(Trace, AJobOfASizeThatRanIsStillCheckedWithItsHomeAndType) {
  const auto wf = make_placement("wf");
  // The refusal of the second of two jobs of @p size, the first of @p first_type, the second
  // with @p home (empty: none), under @p policy on 32,8.
  const auto refusal = [&](const char* policy, const std::string& first_type, int size,
                           const std::string& home) {
    const std::string n = std::to_string(size);
    TempFile list("second.csv", "submit,runtime,type,components,home\n0,10," + first_type + "," +
                                    n + ",\n1,10,unordered," + n + "," + home + "\n");
    std::string e = error_of(
        [&] { TraceSource::scan(spec_for(list.path(), "32,8"), *make_policy(policy, 2), *wf); });
    EXPECT_NE(e.find(list.path() + ":3: job 2 with components " + n + " (unordered) can never run"),
              std::string::npos)
        << e;
    return e;
  };
  EXPECT_NE(refusal("ls", "unordered", 16, "1").find("larger than its home cluster 1"),
            std::string::npos);
  refusal("gs", "moldable", 40, "");
}

// A list job of a size known to run is checked without building its request: its id (stated or
// counted), its work and the checks that still apply come out as for any other job.
TEST(Trace, AJobOfASizeKnownToRunKeepsItsIdAndWork) {
  const auto gs = make_policy("gs", 2);
  const auto wf = make_placement("wf");
  const auto scan_of = [&](const std::string& text) {
    TempFile list("known.csv", text);
    return TraceSource::scan(spec_for(list.path(), "32,8"), *gs, *wf);
  };
  // Whether scanning @p text is refused with @p message.
  const auto refused = [&](const std::string& text, const std::string& message) {
    TempFile list("known.csv", text);
    const std::string e =
        error_of([&] { TraceSource::scan(spec_for(list.path(), "32,8"), *gs, *wf); });
    return e.find(message) != std::string::npos;
  };
  const TraceScan scan =
      scan_of("submit,app,runtime,components\n0,a,10,8\n1,a,20,16\n2,a,30,8\n3,b,,8\n4,a,40,16\n");
  EXPECT_EQ(scan.jobs, 5u);
  EXPECT_DOUBLE_EQ(scan.runtime_work, 8 * 10 + 16 * 20 + 8 * 30 + 16 * 40);
  EXPECT_EQ(scan.table_jobs, (std::map<std::pair<std::string, int>, std::uint64_t>{{{"b", 8}, 1}}))
      << "a job without a runtime is still priced by the tables";
  EXPECT_TRUE(refused("id,submit,runtime,components\n1,0,10,8\n2,1,10,8\n1,2,10,8\n",
                      ":4: job id 1 is already used on line 2"));
  EXPECT_TRUE(refused("submit,runtime,components\n0,10,8\n1,10,8\n2,10,41\n",
                      ":4: job 3 needs 41 processors; the system has 40"));
}

// The same for SWF jobs, whose ids are always stated; one with a home is still asked about.
TEST(Trace, AnSwfJobOfASizeKnownToRunKeepsItsIdAndWork) {
  const auto gs = make_policy("gs", 1);
  const auto wf = make_placement("wf");
  // An SWF line of job @p id submitted at @p submit, running @p run s on @p procs processors,
  // in partition @p partition (-1: none).
  const auto line = [](int id, int submit, int run, int procs, int partition = -1) {
    const std::string p = std::to_string(procs);
    return std::to_string(id) + " " + std::to_string(submit) + " -1 " + std::to_string(run) + " " +
           p + " -1 -1 " + p + " 100 -1 1 1 1 1 1 " + std::to_string(partition) + " -1 -1\n";
  };
  TempFile swf("known.swf",
               line(1, 0, 10, 2) + line(2, 1, 20, 4) + line(3, 2, 30, 2) + line(4, 3, 40, 4));
  const TraceScan scan = TraceSource::scan(spec_for(swf.path(), "1x8"), *gs, *wf);
  EXPECT_EQ(scan.jobs, 4u);
  EXPECT_DOUBLE_EQ(scan.runtime_work, 2 * 10 + 4 * 20 + 2 * 30 + 4 * 40);
  TempFile again("again.swf", line(5, 0, 10, 2) + line(6, 1, 10, 4) + line(5, 2, 10, 2));
  const std::string e =
      error_of([&] { TraceSource::scan(spec_for(again.path(), "1x8"), *gs, *wf); });
  EXPECT_NE(e.find(":3: job id 5 is already used on line 1"), std::string::npos) << e;
  TempFile home("home.swf", line(1, 0, 10, 16) + line(2, 1, 10, 16, 2));
  const std::string h = error_of(
      [&] { TraceSource::scan(spec_for(home.path(), "32,8"), *make_policy("ls", 2), *wf); });
  EXPECT_NE(h.find(":2: job 2 with components 16 (unordered) can never run"), std::string::npos)
      << h;
}

TEST(Trace, RulesSplitJobsIntoNearEqualComponents) {
  TraceSpec s = spec_for(kExcerpt, "4x32", Rule::kRco);
  TraceSource source(s);
  Job job;
  int spread = 0;
  while (source.next(job)) {
    int sum = 0;
    for (int c : job.req.sizes) {
      EXPECT_LE(c, 16) << "[rco]: at most half a cluster";
      EXPECT_LE(job.req.sizes.front() - c, 1) << "near-equal";
      sum += c;
    }
    EXPECT_EQ(sum, job.req.total);
    spread += job.req.sizes.size() > 1;
  }
  EXPECT_GT(spread, 0);
}

TEST(Trace, ScalingCompressesArrivalTimes) {
  TraceSpec s = spec_for(kExcerpt, "1x64");
  s.origin = 0;
  s.scale = 2;
  TraceSource source(s);
  Job job;
  ASSERT_TRUE(source.next(job));
  ASSERT_TRUE(source.next(job));
  EXPECT_DOUBLE_EQ(job.submit, 1962 / 2.0);
  EXPECT_DOUBLE_EQ(job.price.runtime, 1536) << "runtimes are not scaled";
  EXPECT_DOUBLE_EQ(job.price.requested, 7200);
}

TEST(JobList, ExplicitComponentsAndClusters) {
  TempFile f("list.csv",
             "id,submit,app,runtime,type,components,clusters,home\n"
             "7,0,a,100,fixed,8+4,1+0,\n"
             "8,5,b,50,,16+16,,2\n"
             "# comment\n"
             "9,6,c,10,flexible,24,,\n");
  TraceSpec s = spec_for(f.path(), "4x16");
  s.apps = {"a", "b", "c"};
  TraceSource source(s);
  Job job;
  ASSERT_TRUE(source.next(job));
  EXPECT_EQ(job.id, 7);
  EXPECT_EQ(job.req.type, RequestType::kFixed);
  EXPECT_EQ(job.req.clusters, (std::vector<int>{1, 0}));
  ASSERT_TRUE(source.next(job));
  EXPECT_EQ(job.app, 1);
  EXPECT_EQ(job.home, 2);
  EXPECT_EQ(job.req.sizes, (Counts{16, 16}));
  ASSERT_TRUE(source.next(job));
  EXPECT_EQ(job.req.type, RequestType::kFlexible);
  EXPECT_EQ(job.req.total, 24);
  EXPECT_FALSE(source.next(job));

  TempFile bad("bad.csv", "submit,components\n0,8\n1,8+x\n");
  TraceSource bad_source(spec_for(bad.path(), "4x16"));
  ASSERT_TRUE(bad_source.next(job));
  const std::string e = error_of([&] { bad_source.next(job); });
  EXPECT_NE(e.find(bad.path() + ":3:"), std::string::npos) << e;
  EXPECT_NE(e.find("'x'"), std::string::npos) << e;
}

// Lists without the optional columns skip them line by line: each one is still read when it is
// the only one a list adds.
TEST(JobList, EachOptionalColumnIsReadWhenItIsTheOnlyOne) {
  for (const std::string column : {"type", "clusters", "home", "min_component", "max_component",
                                   "max_components", "min_size"}) {
    TempFile f("alone.csv", "submit,components," + column + "\n0,8,x\n");
    JobListReader reader(f.path());
    ListRecord record;
    std::vector<int> parts;
    const std::string e = error_of([&] { reader.next(record, parts); });
    EXPECT_NE(e.find(f.path() + ":2: column '" + column + "'"), std::string::npos) << e;
  }
}

// A flexible request in a job list keeps --rule's limits as well as its own bounds (the tighter
// of each): on 4x16 [no] allows one component; [rco] components of at most 8 (half of 16);
// [fco] also at most two components; [co] nothing beyond the list's own bounds.
TEST(JobList, FlexibleRequestsKeepTheRulesLimits) {
  TempFile f("flex.csv",
             "submit,runtime,type,components,max_component,max_components\n"
             "0,10,flexible,24,,\n"
             "1,10,flexible,24,6,3\n");
  const auto limits = [&](Rule rule) {
    TraceSource source(spec_for(f.path(), "4x16", rule));
    Job a, b;
    EXPECT_TRUE(source.next(a));
    EXPECT_TRUE(source.next(b));
    return std::vector<int>{a.req.max_components, a.req.max_component, b.req.max_components,
                            b.req.max_component};
  };
  EXPECT_EQ(limits(Rule::kNo), (std::vector<int>{1, 0, 1, 6}));
  EXPECT_EQ(limits(Rule::kCo), (std::vector<int>{0, 0, 3, 6}));
  EXPECT_EQ(limits(Rule::kRco), (std::vector<int>{0, 8, 3, 6}));
  EXPECT_EQ(limits(Rule::kFco), (std::vector<int>{2, 8, 2, 6}));
}

}  // namespace
}  // namespace mcb::sim
