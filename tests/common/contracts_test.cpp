// The contracts between stages, owned by common/: the CSV codec, the JSON Lines reader and its
// torn-tail policy, the run record, the runtime table and the statistics.
#include "common/compute_fits.hpp"
#include "common/csv.hpp"
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/job_models.hpp"
#include "common/jsonl.hpp"
#include "common/run_record.hpp"
#include "common/runtime_table.hpp"
#include "common/statistics.hpp"
#include "tests/support/command.hpp"
#include "tests/support/inputs.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace mcb {
namespace {

using nlohmann::json;
using testing::error_of;
using testing::TempDir;
using testing::write;

TEST(Csv, FieldsNeedingQuotesRoundTrip) {
  const std::vector<std::string> fields = {"das2, \"vu\"", "plain",      "",   " padded ",
                                           "#first",       "two\nlines", "1.5"};
  const std::string line = csv::join(fields);
  EXPECT_EQ(line, "\"das2, \"\"vu\"\"\",plain,,\" padded \",\"#first\",\"two\nlines\",1.5");
  std::istringstream in(line + "\n");
  csv::Reader reader(in, "t.csv");
  csv::Record record;
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.fields, fields);
  EXPECT_EQ(record.line, 1u);
  EXPECT_FALSE(reader.next(record));
  EXPECT_EQ(reader.line(), 2u) << "the quoted line break spans two lines";
}

TEST(Environment, RecordsCarryTheBatchJobId) {
  const char* argv[] = {"prog"};
  for (const char* name : {"SLURM_JOB_ID", "PBS_JOBID", "JOB_ID", "SGE_ROOT"}) ::unsetenv(name);
  EXPECT_TRUE(environment_block(1, argv)["batch_job_id"].is_null());
  ::setenv("JOB_ID", "77", 1);
  EXPECT_TRUE(environment_block(1, argv)["batch_job_id"].is_null())
      << "JOB_ID outside a Grid Engine job (no SGE_ROOT) is someone else's";
  ::setenv("SGE_ROOT", "/var/lib/gridengine", 1);
  EXPECT_EQ(environment_block(1, argv)["batch_job_id"], "77") << "Grid Engine's job";
  ::setenv("PBS_JOBID", "812.pbs-server", 1);
  EXPECT_EQ(environment_block(1, argv)["batch_job_id"], "812.pbs-server");
  ::setenv("SLURM_JOB_ID", "4711", 1);
  EXPECT_EQ(environment_block(1, argv)["batch_job_id"], "4711") << "Slurm's id first";
  for (const char* name : {"SLURM_JOB_ID", "PBS_JOBID", "JOB_ID", "SGE_ROOT"}) ::unsetenv(name);
}

TEST(Csv, ExactNumbersReadBackTheSameAndStreamRowsKeepTheirWidth) {
  EXPECT_EQ(csv::exact(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(csv::exact(0.3), "0.3");
  EXPECT_EQ(csv::exact(2.0980392156862746), "2.0980392156862746");
  EXPECT_EQ(csv::exact(NAN), "");
  EXPECT_EQ(csv::exact(-INFINITY), "-inf");
  std::ostringstream out;
  csv::StreamWriter writer(out, {"id", "resources"});
  writer.row({"1", "0-7 32-39"});
  writer.row({"2", "a,b"});
  EXPECT_THROW(writer.row({"3"}), std::logic_error);
  writer.flush();
  EXPECT_EQ(out.str(), "id,resources\n1,0-7 32-39\n2,\"a,b\"\n");
}

TEST(Csv, StreamRowsAreHeldBackUntilABlockOrFlushOrTheEnd) {
  std::ostringstream out;
  std::string expected = "n,text\n";
  {
    csv::StreamWriter writer(out, {"n", "text"});
    EXPECT_EQ(out.str(), expected) << "the header at once";
    writer.integer(1).text("a").end_row();
    EXPECT_EQ(out.str(), expected) << "a row is held back";
    writer.integer(2);
    writer.flush();
    expected += "1,a\n";
    EXPECT_EQ(out.str(), expected) << "flush() writes the rows ended, not the row being given";
    writer.text("b").end_row();
    expected += "2,b\n";
    for (int i = 0; i < 20'000; ++i) {  // past several blocks
      writer.integer(i).text("x").end_row();
      expected += std::to_string(i) + ",x\n";
    }
    EXPECT_LT(out.str().size(), expected.size());
    EXPECT_GT(out.str().size(), expected.size() / 2) << "full blocks are written as they come";
    EXPECT_TRUE(out.str() == expected.substr(0, out.str().size())) << "whole rows, in order";
  }
  EXPECT_TRUE(out.str() == expected) << "the rest when the writer is destroyed";
}

TEST(Csv, RowsGivenFieldByFieldAreTheRowsGivenWhole) {
  const double values[] = {0.1 + 0.2, 900000, 1.5e-7, NAN, -INFINITY, 1e16, -0.0};
  const std::string texts[] = {"plain", "a,b", "say \"hi\"", " padded", "#hash", "", "x;0:64"};
  std::ostringstream whole, by_field;
  csv::StreamWriter a(whole, {"n", "number", "text"}), b(by_field, {"n", "number", "text"});
  for (size_t i = 0; i < std::size(values); ++i) {
    a.row({std::to_string(-42 * static_cast<long long>(i)), csv::exact(values[i]), texts[i]});
    b.integer(-42 * static_cast<long long>(i)).exact(values[i]).text(texts[i]);
    b.end_row();
  }
  a.flush();
  b.flush();
  EXPECT_EQ(by_field.str(), whole.str());
  b.integer(1).text("short");
  EXPECT_THROW(b.end_row(), std::logic_error);
  b.integer(2).exact(3).text("next");  // the refused row is dropped, not written
  b.end_row();
  b.flush();
  EXPECT_EQ(by_field.str(), whole.str() + "2,3,next\n");
}

TEST(Csv, NamesQuotedOnceCountsAndEmptyFieldsAreTheTextGivenWhole) {
  const std::vector<std::string> names = {"plain", "a,b", "say \"hi\"", " padded", "#hash", ""};
  const std::vector<std::vector<int>> counts = {
      {64}, {0, 64, 0, 16}, {}, {0, 0}, {7, 0, 123456789}};
  const std::vector<std::string> cells = {"0:64", "1:64;3:16", "", "", "0:7;2:123456789"};
  std::ostringstream whole, by_field;
  csv::StreamWriter a(whole, {"name", "cell", "empty"}), b(by_field, {"name", "cell", "empty"});
  for (size_t i = 0; i < names.size(); ++i) {
    const csv::Quoted name(names[i]);
    EXPECT_EQ(name.text(), csv::field(names[i]));
    a.row({names[i], cells[i % cells.size()], ""});
    b.text(name).counts(counts[i % counts.size()]).empty().end_row();
  }
  a.flush();
  b.flush();
  EXPECT_EQ(by_field.str(), whole.str());
}

TEST(Csv, WholeNumbersAreWrittenWithEveryDigit) {
  // A reader of integer fields (Python's int(), C's %d) refuses or misreads "9e+05".
  EXPECT_EQ(csv::exact(900000), "900000");
  EXPECT_EQ(csv::exact(1e7), "10000000");
  EXPECT_EQ(csv::exact(-3e6), "-3000000");
  EXPECT_EQ(csv::exact(1e16), "10000000000000000");
  // Whole numbers are formatted as integers: the same digits, and zero keeps its sign.
  EXPECT_EQ(csv::exact(99999999999999984.0), "99999999999999984");
  EXPECT_EQ(csv::exact(-99999999999999984.0), "-99999999999999984");
  EXPECT_EQ(csv::exact(-0.0), "-0");
  EXPECT_EQ(csv::exact(-1), "-1");
  EXPECT_EQ(csv::exact(0.0), "0");
  EXPECT_EQ(csv::exact(1.5e-7), "1.5e-07") << "fractions keep the shortest form";
  EXPECT_EQ(csv::number(35000000000.0), "35000000000");
  EXPECT_EQ(csv::number(1230), "1230");
  EXPECT_EQ(csv::number(0.0123456789), "0.0123456789");
}

TEST(Csv, IntegersKeepEveryDigitOnBothSidesOf32Bits) {
  for (const long long v :
       {0LL, 7LL, 4294967295LL, 4294967296LL, -1LL, -4294967295LL,
        std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max()}) {
    std::ostringstream out;
    csv::StreamWriter writer(out, {"n"});
    writer.integer(v).end_row();
    writer.flush();
    EXPECT_EQ(out.str(), "n\n" + std::to_string(v) + "\n");
  }
  EXPECT_EQ(csv::exact(4294967295.0), "4294967295");
  EXPECT_EQ(csv::exact(4294967296.0), "4294967296");
  EXPECT_EQ(csv::exact(-4294967296.0), "-4294967296");
}

TEST(Csv, ShortIntegersHaveTheDigitsOfToChars) {
  // Integers and whole doubles below 2^32 are formatted inline at 32 bits, the rest out of line:
  // every value below 10^6, then a stride through 10^8 that meets every digit count, and the
  // edges of each count and of 32 bits.
  std::vector<long long> values;
  for (long long v = 0; v < 1'000'000; ++v) values.push_back(v);
  for (long long v = 1'000'000; v < 100'000'000; v += 997) values.push_back(v);
  for (long long p = 10; p <= 1'000'000'000; p *= 10) {
    for (const long long v : {p - 1, p, p + 1, 2 * p - 1, 5 * p + 3}) values.push_back(v);
  }
  for (const long long v : {4294967295LL, 4294967296LL, 4294967297LL}) values.push_back(v);
  std::ostringstream out;
  csv::StreamWriter writer(out, {"n", "exact"});
  std::string expected = "n,exact\n";
  for (const long long v : values) {
    writer.integer(v).exact(static_cast<double>(v)).end_row();
    char digits[24];
    const std::string_view text(digits, std::to_chars(digits, digits + 24, v).ptr - digits);
    expected.append(text).append(",").append(text).append("\n");
  }
  writer.flush();
  EXPECT_TRUE(out.str() == expected) << "a short integer's digits differ from std::to_chars'";
}

TEST(Csv, ReaderSkipsCommentsAndBlankLinesAndTrimsUnquotedFields) {
  std::istringstream in("# a comment\n\napp , size\r\n  poisson,\t8 \n");
  csv::Reader reader(in, "t.csv");
  csv::Record record;
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.line, 3u);
  EXPECT_EQ(record.fields, (std::vector<std::string>{"app", "size"}));
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.line, 4u);
  EXPECT_EQ(record.fields, (std::vector<std::string>{"poisson", "8"}));
}

TEST(Csv, MalformedRecordsAreNamedByFileAndLine) {
  TempDir dir;
  const std::string open_quote = write(dir, "a.csv", "x,y\n1,\"never closed\n");
  EXPECT_EQ(error_of([&] { csv::read_file(open_quote); }),
            open_quote + ":2: unterminated quoted field");
  const std::string stray = write(dir, "b.csv", "x,y\n1,2\n3,a\"b\n");
  EXPECT_NE(error_of([&] { csv::read_file(stray); }).find(stray + ":3: a quote inside"),
            std::string::npos);
  const std::string wide = write(dir, "c.csv", "x,y\n1,2,3\n");
  EXPECT_EQ(error_of([&] { csv::read_file(wide); }), wide + ":2: 3 fields, the header has 2");
  EXPECT_THROW(csv::split("\"a\"b"), std::invalid_argument);
}

TEST(Jsonl, TornLastLineIsIgnoredWithOneNotice) {
  TempDir dir;
  const std::string path = write(dir, "r.jsonl", "{\"a\":1}\n\n{\"a\":2}\n{\"a\":");
  const jsonl::Contents c = jsonl::read(path);
  ASSERT_EQ(c.lines.size(), 2u);
  EXPECT_EQ(c.lines[1].number, 3u);
  EXPECT_EQ(c.lines[1].doc["a"], 2);
  ASSERT_TRUE(c.torn.has_value());
  EXPECT_EQ(jsonl::torn_notice(c), path +
                                       ":4: torn last line ignored (5 bytes without a newline; "
                                       "the next append cuts it off)");
  // The writer agrees: the next append cuts the torn line off.
  append_line(path, "{\"a\":3}");
  const jsonl::Contents after = jsonl::read(path);
  EXPECT_FALSE(after.torn.has_value());
  ASSERT_EQ(after.lines.size(), 3u);
  EXPECT_EQ(after.lines[2].number, 4u);
}

TEST(Jsonl, MalformedWholeLineIsAnErrorNamingFileAndLine) {
  TempDir dir;
  const std::string path = write(dir, "r.jsonl", "{\"a\":1}\n{\"a\":\n{\"a\":3}\n");
  EXPECT_NE(error_of([&] { jsonl::read(path); }).find(path + ":2: malformed JSON"),
            std::string::npos);
}

TEST(Jsonl, ReadingOnFromAnOffsetKeepsLineNumbers) {
  TempDir dir;
  const std::string path = write(dir, "r.jsonl", "{\"a\":1}\n{\"a\":2}\n");
  const jsonl::Contents first = jsonl::read(path);
  append_line(path, "{\"a\":3}");
  const jsonl::Contents more = jsonl::read(path, {first.end_of_whole, first.last_line});
  ASSERT_EQ(more.lines.size(), 1u);
  EXPECT_EQ(more.lines[0].number, 3u);
  EXPECT_TRUE(jsonl::read(dir / "missing.jsonl", {}, true).lines.empty());
  EXPECT_THROW(jsonl::read(dir / "missing.jsonl"), UsageError);
}

TEST(RunRecordContract, ReadingAndWritingGivesBackTheSameText) {
  const json doc = json::parse(
      R"({"schema":"mcb-run/2","run_id":"c-1-r1","campaign":null,"repetition":1,"app":"poisson",)"
      R"("status":"invalid","reason":"error too large","config":{"grid":32},"env":{"host":"h"},)"
      R"("result":{"wall_time":1.5},"ranks":[{"rank":0}],"counters":null,"verdict":{"valid":false}})");
  const RunRecord r = RunRecord::from_json(doc);
  EXPECT_EQ(r.run_id, "c-1-r1");
  EXPECT_FALSE(r.campaign.has_value());
  EXPECT_EQ(r.reason, "error too large");
  EXPECT_EQ(r.extra.size(), 2u) << "counters and verdict";
  EXPECT_EQ(r.line(), doc.dump());
}

// Version 1 gave bandwidths in bytes per second; it reads as version 2, in MB/s, field by field
// as docs/records.md lists them, and nothing else changes.
TEST(RunRecordContract, AVersionOneRecordReadsWithItsBandwidthsInMegabytesPerSecond) {
  const json v1 = json::parse(R"({"schema":"mcb-run/1","run_id":"l-1","app":"links",
    "status":"valid","config":{"wan":{"latency":0.001,"bandwidth":12500000.0,
      "links":[{"clusters":["0","1"],"latency":0.001,"bandwidth":12500000.0}]}},
    "result":{"wall_time":3.0,"classes":{"cross_cluster":{"points":[{"bytes":1,"avg":0.001}],
      "bandwidth":[{"bytes":1,"min":1000000.0,"avg":2000000.0,"max":3000000.0}],
      "fit":{"t0":0.001,"bandwidth":12000000.0},"fit_min":{"t0":0.001,"bandwidth":12500000.0},
      "nominal":{"t0":0.001,"bandwidth":12500000.0},
      "shared":{"bytes":1048576,"alone":{"min":1e7,"avg":1e7,"max":1e7},
        "together":[{"min":5e6,"avg":5e6,"max":5e6},{"min":4e6,"avg":4e6,"max":4e6}],
        "share":[0.5,0.4]}}},
      "relay_study":{"lower_bound":{"t0":0.001,"bandwidth":12000000.0}}},
    "verdict":{"checks":{"emulated_link":{"nominal":{"t0":0.001,"bandwidth":12500000.0},
      "fitted":{"t0":0.001,"bandwidth":12500000.0},"latency_error":0.0}},
      "figure_of_merit":{"value":12000000.0,"unit":"B/s"}}})");
  const json now = RunRecord::from_json(v1).to_json();
  EXPECT_EQ(now["schema"], kRunRecordSchema);
  EXPECT_EQ(now["config"]["wan"]["bandwidth"], 12.5);
  EXPECT_EQ(now["config"]["wan"]["links"][0]["bandwidth"], 12.5);
  EXPECT_EQ(now["config"]["wan"]["latency"], 0.001);
  const json& c = now["result"]["classes"]["cross_cluster"];
  EXPECT_EQ(c["bandwidth"][0], json::parse(R"({"bytes":1,"min":1.0,"avg":2.0,"max":3.0})"));
  EXPECT_EQ(c["points"][0]["avg"], 0.001);
  EXPECT_EQ(c["fit"]["bandwidth"], 12.0);
  EXPECT_EQ(c["fit_min"]["bandwidth"], 12.5);
  EXPECT_EQ(c["nominal"]["bandwidth"], 12.5);
  EXPECT_EQ(c["shared"]["alone"]["avg"], 10.0);
  EXPECT_EQ(c["shared"]["together"][1]["max"], 4.0);
  EXPECT_EQ(c["shared"]["share"], json({0.5, 0.4}));
  EXPECT_EQ(c["shared"]["bytes"], 1048576);
  EXPECT_EQ(now["result"]["relay_study"]["lower_bound"]["bandwidth"], 12.0);
  EXPECT_EQ(now["result"]["wall_time"], 3.0);
  const json& checks = now["verdict"]["checks"]["emulated_link"];
  EXPECT_EQ(checks["nominal"]["bandwidth"], 12.5);
  EXPECT_EQ(checks["fitted"]["bandwidth"], 12.5);
  EXPECT_EQ(now["verdict"]["figure_of_merit"], json::parse(R"({"value":12.0,"unit":"MB/s"})"));

  // Poisson's transfer rate; a current record is read as it is.
  const json poisson = json::parse(R"({"schema":"mcb-run/1","run_id":"p-1","app":"poisson",
    "status":"valid","result":{"transfer_rate":102400.0,"wall_time":1.0}})");
  EXPECT_EQ(current_record(poisson)["result"]["transfer_rate"], 0.1024);
  json current = poisson;
  current["schema"] = kRunRecordSchema;
  EXPECT_EQ(current_record(current), current);
}

TEST(RunRecordContract, HeaderIsChecked) {
  const auto error = [](const std::string& text) {
    try {
      RunRecord::from_json(json::parse(text));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string head = R"({"schema":"mcb-run/1","run_id":"x","app":"poisson",)";
  EXPECT_EQ(error(head + R"("status":"done"})"),
            "field 'status' is 'done'; expected valid, invalid or failed");
  EXPECT_EQ(error(R"({"schema":"mcb-run/1","app":"p","status":"valid"})"),
            "missing field 'run_id'");
  EXPECT_EQ(error(head + R"("status":"valid","config":[1]})"),
            "field 'config' must be an object, not an array");
  EXPECT_EQ(error(head + R"("status":"valid","repetition":"1"})"),
            "field 'repetition' must be an integer, not a string");
  EXPECT_EQ(error("[1]"), "a record must be a JSON object");
}

TEST(RuntimeTableContract, QuotedLabelsRoundTrip) {
  RuntimeTable table;
  table.rows.push_back({"poisson", "32x32", 2, 2, "das2, \"vu\"", summarize({1.5, 2.5}), 0});
  table.rows.push_back({"poisson", "32x32", 2, 1, "das2, \"vu\"", summarize({1.0}), 0});
  const std::string text = table.to_csv();
  EXPECT_EQ(text,
            "app,problem,total_size,components,system,n,min,avg,max,median,stddev\n"
            "poisson,32x32,2,2,\"das2, \"\"vu\"\"\",2,1.5,2,2.5,2,0.7071067812\n"
            "poisson,32x32,2,1,\"das2, \"\"vu\"\"\",1,1,1,1,1,\n");
  TempDir dir;
  write(dir, "runtimes.csv", text);
  const RuntimeTable back = RuntimeTable::read(dir.path().string());
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[0].system, "das2, \"vu\"");
  EXPECT_EQ(back.rows[1].line, 3u);
  EXPECT_EQ(back.to_csv(), text);
}

TEST(RuntimeTableContract, ServiceTimeLayoutAndRefusals) {
  TempDir dir;
  const RuntimeTable service = RuntimeTable::read(
      write(dir, "s.csv", "app,total_size,components,service_time_s\npoisson,8,2,1390.0\n"));
  ASSERT_TRUE(service.service_time_layout);
  EXPECT_EQ(service.rows[0].stats.avg, 1390);
  EXPECT_FALSE(service.rows[0].stats.stddev.has_value());
  const std::string h = std::string(kRuntimeHeader) + "\n";
  const auto refused = [&](const std::string& body, const std::string& what) {
    const std::string path = write(dir, "bad.csv", h + body);
    EXPECT_EQ(error_of([&] { RuntimeTable::read(path); }), path + ":2: " + what) << body;
  };
  refused("poisson,p,8,two,s,1,1,1,1,1,\n", "components 'two' is not an integer");
  refused("poisson,p,8,9,s,1,1,1,1,1,\n", "components exceed total_size (9 > 8)");
  refused("poisson,p,8,1,s,2,1,1,1,1,\n", "stddev is empty but n is 2");
  refused("poisson,p,8,1,s,1,2,1,1,1,\n",
          "statistics out of order (need min <= avg, median <= max)");
  const std::string path = write(dir, "h.csv", "app,size\npoisson,8\n");
  EXPECT_NE(error_of([&] { RuntimeTable::read(path); }).find(path + ":1: unknown header"),
            std::string::npos);
}

TEST(ComputeFitsContract, RoundTripsFindsAndRefuses) {
  ComputeFitTable table;
  ComputeFitRow row;
  row.app = "ensflow";
  row.problem = "m24-d80-g63";
  row.system = "das2, \"vu\"";
  row.a = 1.5;
  row.b = -0.25;  // written as mcb-calibrate fitted it (it warns of a negative part)
  row.r2 = 0.99;
  row.rmse = 0.01;
  row.max_relative_gap = 0.02;
  row.points = 6;
  row.sizes = 3;
  row.p_min = 1;
  row.p_max = 4;
  table.rows.push_back(row);
  const std::string text = table.to_csv();
  EXPECT_EQ(text,
            std::string(kComputeFitsHeader) +
                "\nensflow,m24-d80-g63,\"das2, \"\"vu\"\"\",1.5,-0.25,0.99,0.01,0.02,6,3,1,4\n");
  TempDir dir;
  std::filesystem::create_directories(dir / "tables");
  write(dir, "tables/compute_fits.csv", text);
  const ComputeFitTable back = ComputeFitTable::read(dir.path().string());  // the folder
  EXPECT_EQ(back.to_csv(), text);
  const ComputeFitRow* found = back.find("ensflow", "m24-d80-g63", "das2, \"vu\"");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->line, 2u);
  EXPECT_DOUBLE_EQ(found->seconds(2), 1.5 - 0.125);
  EXPECT_EQ(back.find("ensflow", "m24-d80-g63", "local"), nullptr);
  const std::string h = std::string(kComputeFitsHeader) + "\n";
  const auto refused = [&](const std::string& body, const std::string& what) {
    const std::string path = write(dir, "bad.csv", h + body);
    EXPECT_EQ(error_of([&] { ComputeFitTable::read(path); }), path + ":" + what) << body;
  };
  refused("ensflow,p,s,one,1,1,0,0,2,2,1,2\n", "2: a 'one' is not a number");
  refused("ensflow,p,s,1,1,1,0,0,2,1,1,2\n",
          "2: a fit needs points >= sizes >= 2, found points 2, sizes 1");
  refused("ensflow,p,s,1,1,1,0,0,2,2,3,2\n",
          "2: p_min..p_max '3..2' is not a range of process counts");
  refused(",p,s,1,1,1,0,0,2,2,1,2\n", "2: app is empty");
  refused("ensflow,p,s,1,1,1,0,0,2,2,1,2\nensflow,p,s,2,1,1,0,0,2,2,1,2\n",
          "3: fit for ensflow,p,s repeats line 2");
  const std::string path = write(dir, "h.csv", "app,problem,system,a,b\nensflow,p,s,1,2\n");
  EXPECT_NE(error_of([&] { ComputeFitTable::read(path); }).find(path + ":1: unknown header"),
            std::string::npos);
}

TEST(JobModelsContract, RoundTripsFindsAndRefuses) {
  JobModelTable table;
  JobModelRow row;
  row.app = "synth";
  row.problem = "nearest-m65536-b5e+07-f0";
  row.total_size = 4;
  row.tp = 1.5;
  row.tc = 0.5;
  row.pnbw = 0.3;
  row.dedicated_runs = 2;
  row.fitted_runs = 8;
  row.median_abs_relative_error = 0.125;
  table.rows.push_back(row);
  const std::string text = table.to_csv();
  EXPECT_EQ(text, std::string(kJobModelsHeader) +
                      "\nsynth,nearest-m65536-b5e+07-f0,4,1.5,0.5,0.3,2,8,0.125\n");
  TempDir dir;
  write(dir, "job_models.csv", text);
  const JobModelTable back = JobModelTable::read(dir.path().string());  // the folder
  EXPECT_EQ(back.to_csv(), text);
  const JobModelRow* found = back.find("synth", "nearest-m65536-b5e+07-f0", 4);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->line, 2u);
  EXPECT_DOUBLE_EQ(found->comm_share(), 0.25);
  EXPECT_EQ(back.find("synth", "nearest-m65536-b5e+07-f0", 8), nullptr);
  const std::string h = std::string(kJobModelsHeader) + "\n";
  const auto refused = [&](const std::string& body, const std::string& what) {
    const std::string path = write(dir, "bad.csv", h + body);
    EXPECT_EQ(error_of([&] { JobModelTable::read(path); }), path + ":" + what) << body;
  };
  refused("synth,p,4,0,1,1,1,1,0\n", "2: tp '0' must be > 0");
  refused("synth,p,4,1,-1,1,1,1,0\n", "2: tc '-1' must be >= 0");
  refused("synth,p,4,1,1,nan,1,1,0\n", "2: pnbw 'nan' is not a number");
  refused("synth,p,0,1,1,1,1,1,0\n", "2: total_size '0' must be in 1..1e9");
  refused("synth,p,4,1,1,1,0,1,0\n", "2: dedicated_runs '0' must be in 1..1e9");
  refused("synth,p,4,1,1,1,1,0,0\n", "2: fitted_runs '0' must be in 1..1e9");
  refused("synth,,4,1,1,1,1,1,0\n", "2: problem is empty");
  refused("synth,p,4,1,1,1,1,1,0\nsynth,p,4,2,1,1,1,1,0\n",
          "3: model for synth,p,4 repeats line 2");
  const std::string path = write(dir, "h.csv", "app,problem,tp\nsynth,p,1\n");
  EXPECT_NE(error_of([&] { JobModelTable::read(path); }).find(path + ":1: unknown header"),
            std::string::npos);
}

TEST(Statistics, SummaryOfASample) {
  const Summary s = summarize({4, 1, 3, 2});
  EXPECT_EQ(s.n, 4u);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
  EXPECT_EQ(s.avg, 2.5);
  EXPECT_EQ(s.median, 2.5);
  EXPECT_NEAR(*s.stddev, std::sqrt(5.0 / 3.0), 1e-15);
  EXPECT_FALSE(summarize({7}).stddev.has_value());
  EXPECT_THROW(summarize({}), std::invalid_argument);
  const Spread spread = Spread::of(1, 6, 3, 3);
  EXPECT_EQ(spread.to_json(), json({{"min", 1.0}, {"avg", 2.0}, {"max", 3.0}}));
}

TEST(Statistics, StudentTQuantilesMatchPublishedValues) {
  // Two-sided 95% critical values (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2).
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.303, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 100), 1.984, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), 1.960, 5e-4);
  EXPECT_TRUE(std::isnan(student_t_quantile(0.975, 0)));
}

}  // namespace
}  // namespace mcb
