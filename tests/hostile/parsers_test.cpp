// Regression tests for the defects hostile input found in the parsers: each input that once
// overflowed the stack, overflowed an integer, was silently replaced or let through non-text
// is refused with a UsageError that names the file and line.
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/text.hpp"
#include "simulator/joblist.hpp"
#include "simulator/machine.hpp"
#include "simulator/placement.hpp"
#include "simulator/policy.hpp"
#include "simulator/swf.hpp"
#include "simulator/trace_source.hpp"
#include "tests/support/command.hpp"
#include "tests/support/inputs.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>

namespace mcb {
namespace {

using testing::error_of;
using testing::TempDir;
using testing::write;
using namespace std::string_literals;

void read_swf(const std::string& path) {
  sim::SwfReader reader(path);
  sim::SwfRecord record;
  while (reader.next(record)) {
  }
}

const std::string kSwf = "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1";

TEST(HostileSwf, LinesOfTwentyOrMoreFieldsAreRefusedNotWrittenPastTheRecord) {
  TempDir dir;
  for (int extra : {2, 3, 300}) {
    std::string line = kSwf;
    for (int i = 0; i < extra; ++i) line += " 4.6e18";
    const std::string path = write(dir, "t.swf", line + "\n");
    const std::string e = error_of([&] { read_swf(path); });
    EXPECT_NE(e.find(path + ":1: more than 18 fields"), std::string::npos) << extra << ": " << e;
  }
}

TEST(HostileSwf, HugeCountsAndTimesAreRefusedNotReplaced) {
  TempDir dir;
  const std::string procs =
      write(dir, "p.swf", "1 0 -1 10 1e20 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  EXPECT_NE(error_of([&] { read_swf(procs); }).find(":1: field 5 '1e+20' is out of range"),
            std::string::npos);
  const std::string submit =
      write(dir, "s.swf", "1 1e300 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  EXPECT_NE(error_of([&] { read_swf(submit); }).find(":1: time (field 2) '1e+300' is out of range"),
            std::string::npos);
  const std::string run = write(dir, "r.swf", "1 0 -1 1e13 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n");
  EXPECT_NE(error_of([&] { read_swf(run); }).find("(field 4)"), std::string::npos);
}

TEST(HostileSwf, HeaderTextMustBeUtf8WithoutNul) {
  TempDir dir;
  const std::string latin1 = write(dir, "l.swf", "; Installation: caf\xe9\n" + kSwf + "\n");
  EXPECT_NE(
      error_of([&] { read_swf(latin1); }).find(":1: a byte 0xE9 that is not UTF-8 at column 20"),
      std::string::npos);
  const std::string nul = write(dir, "n.swf", "; Note: a\0b\n"s + kSwf + "\n");
  EXPECT_NE(error_of([&] { read_swf(nul); }).find(":1: a NUL byte at column 10"),
            std::string::npos);
}

sim::TraceSpec spec_for(const std::string& path, const std::string& clusters) {
  sim::TraceSpec s;
  s.path = path;
  s.machine = sim::parse_clusters(clusters);
  s.component_limit = s.machine.smallest() / 2;
  return s;
}

std::string scan_error(const std::string& path, const std::string& clusters = "4x16") {
  const auto policy = sim::make_policy("gs", 4);
  const auto wf = sim::make_placement("wf");
  return error_of([&] { sim::TraceSource::scan(spec_for(path, clusters), *policy, *wf); });
}

TEST(HostileJobList, ComponentSumsCannotOverflow) {
  TempDir dir;
  const std::string sum = write(dir, "s.csv", "submit,components,runtime\n0,8+2147483647,10\n");
  EXPECT_NE(scan_error(sum).find(":2: column 'components': '2147483647' is out of range"),
            std::string::npos);
  const std::string big = write(dir, "b.csv", "submit,components,runtime\n0,2147483648,10\n");
  EXPECT_NE(scan_error(big).find(":2: column 'components'"), std::string::npos);
  // Many components of the largest accepted size: summed in 64 bits, refused by the machine.
  std::string many = "submit,components,runtime\n0,";
  for (int i = 0; i < 8; ++i) many += (i ? "+" : "") + std::string("1000000000");
  const std::string m = write(dir, "m.csv", many + ",10\n");
  EXPECT_NE(scan_error(m).find("needs 8000000000 processors"), std::string::npos) << scan_error(m);
}

TEST(HostileJobList, DuplicateIdsAreRefusedInListsAndTraces) {
  TempDir dir;
  const std::string list =
      write(dir, "d.csv", "id,submit,components,runtime\n4,0,8,10\n4,1,8,10\n");
  EXPECT_NE(scan_error(list).find(":3: job id 4 is already used on line 2"), std::string::npos);
  const std::string swf = write(dir, "d.swf", kSwf + "\n" + kSwf + "\n");
  EXPECT_NE(scan_error(swf).find(":2: job id 1 is already used on line 1"), std::string::npos);
  // Ids left empty are numbered, not compared.
  const std::string none = write(dir, "n.csv", "id,submit,components,runtime\n,0,8,10\n,1,8,10\n");
  EXPECT_EQ(scan_error(none), "");
  // Ids out of order (compared in a table from the first one not above the others), with the
  // duplicate of an id stated before that point or after it.
  const std::string head = "id,submit,components,runtime\n7,0,8,10\n3,1,8,10\n,2,8,10\n";
  EXPECT_EQ(scan_error(write(dir, "o.csv", head + "9,3,8,10\n1,4,8,10\n")), "");
  EXPECT_NE(scan_error(write(dir, "e.csv", head + "9,3,8,10\n7,4,8,10\n"))
                .find(":6: job id 7 is already used on line 2"),
            std::string::npos);
  EXPECT_NE(scan_error(write(dir, "l.csv", head + "9,3,8,10\n9,4,8,10\n"))
                .find(":6: job id 9 is already used on line 5"),
            std::string::npos);
  EXPECT_NE(scan_error(write(dir, "f.csv", "id,submit,components,runtime\n7,0,8,10\n7,1,8,10\n"))
                .find(":3: job id 7 is already used on line 2"),
            std::string::npos);
  const std::string two = "2" + kSwf.substr(1) + "\n";
  EXPECT_NE(scan_error(write(dir, "o.swf", two + kSwf + "\n" + two))
                .find(":3: job id 2 is already used on line 1"),
            std::string::npos);
}

TEST(HostileJobList, AppNamesMustBeText) {
  TempDir dir;
  const std::string nul = write(dir, "n.csv", "submit,app,components,runtime\n0,p\0q,8,10\n"s);
  EXPECT_NE(scan_error(nul).find(":2: a NUL byte"), std::string::npos);
  const std::string latin1 = write(dir, "l.csv", "submit,app,components,runtime\n0,caf\xe9,8,10\n");
  EXPECT_NE(scan_error(latin1).find(":2: a byte 0xE9"), std::string::npos);
}

TEST(HostileClusters, CountTimesSizeHasTheListFormsCaps) {
  for (const char* text :
       {"3x1000000000", "4x99999999999", "2x1000000000", "1000000000,1000000000"}) {
    EXPECT_NE(error_of([&] { sim::parse_clusters(text); }).find("--clusters"), std::string::npos)
        << text;
  }
  EXPECT_EQ(sim::parse_clusters("1x1000000000").total(), 1000000000);
}

TEST(HostileText, TextProblemNamesTheColumn) {
  EXPECT_EQ(text_problem("plain ascii, caf\xc3\xa9, \xe2\x82\xac, \xf0\x9f\x98\x80"), "");
  EXPECT_EQ(text_problem("ab\0c"s), "a NUL byte at column 3");
  EXPECT_EQ(text_problem("caf\xe9"), "a byte 0xE9 that is not UTF-8 at column 4");
  EXPECT_EQ(text_problem("\xc0\xaf"), "a byte 0xC0 that is not UTF-8 at column 1") << "overlong";
  EXPECT_EQ(text_problem("\xed\xa0\x80"), "a byte 0xED that is not UTF-8 at column 1")
      << "surrogate";
  EXPECT_EQ(text_problem("x\xe2\x82"), "a byte 0xE2 that is not UTF-8 at column 2") << "cut";
  // Past the first eight bytes, which are checked eight at a time: the column is still exact.
  EXPECT_EQ(text_problem("0123456789abcdef\0x"s), "a NUL byte at column 17");
  EXPECT_EQ(text_problem("0123456789a\xe9"
                         "bcdefgh"),
            "a byte 0xE9 that is not UTF-8 at column 12");
  EXPECT_EQ(text_problem("01234567\xc3\xa9 9abcdef\x7f\x01 end"), "");
}

// One rule for a byte-order mark in every text input: refused where it stands, with its column.
TEST(HostileText, AByteOrderMarkIsRefusedWhereItStands) {
  EXPECT_EQ(text_problem("\xEF\xBB\xBFgrid = 16"),
            "a byte-order mark (U+FEFF) at column 1; save the file as UTF-8 without it");
  EXPECT_EQ(text_problem("a\xEF\xBB\xBF"),
            "a byte-order mark (U+FEFF) at column 2; save the file as UTF-8 without it");
  EXPECT_EQ(text_problem("\xEF\xBB\xBE"), "") << "U+FEFE is another character";
}

TEST(HostileFolders, UncreatableFoldersAreNamedBeforeAnythingIsWritten) {
  TempDir dir;
  const std::string file = write(dir, "f", "x");
  const std::string e = error_of([&] { check_creatable_folder("output", file + "/sub/out"); });
  EXPECT_NE(e.find("--output: cannot create folder '" + file + "/sub/out'"), std::string::npos)
      << e;
  EXPECT_EQ(error_of([&] { check_creatable_folder("output", dir / "new/deeper"); }), "");
  EXPECT_FALSE(std::filesystem::exists(dir / "new"));
}

}  // namespace
}  // namespace mcb
