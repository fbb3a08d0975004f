// The one input dialect (docs/input.md): the same tricky lines mean the same in every reader --
// the INI reader itself, --config, campaign specs, job-mix files, cluster maps and platform
// files. '#' starts a comment only at the start of a line or after a blank, outside quotes; ';'
// is an ordinary character.
#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/ini.hpp"
#include "harness/cluster_map.hpp"
#include "harness/wan_links.hpp"
#include "jobscripts/spec.hpp"
#include "simulator/job_mix.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

using mcb::testing::TempDir;
namespace ini = mcb::ini;

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

// The error message of @p f, or "" when it succeeds.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const mcb::UsageError& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kKeys =
    "# a comment line\n"
    "   # an indented one\n"
    "x = a#b   # '#' inside a word stays, after a blank it starts a comment\n"
    "y = \"c # d\"\t# inside quotes it stays\n"
    "z = e;f\r\n";  // ';' is text; a CRLF ending is dropped

TEST(InputDialect, TheIniReaderKeepsWordsQuotesAndSemicolons) {
  TempDir dir;
  const ini::File f = ini::read_ini(write(dir, "f.ini", kKeys));
  ASSERT_EQ(f.entries.size(), 3u);
  EXPECT_EQ(f.entries[0].value, "a#b");
  EXPECT_EQ(f.entries[0].line, 3);
  EXPECT_EQ(ini::single_value(f.entries[1].value), "c # d");
  EXPECT_EQ(f.entries[2].value, "e;f");
  EXPECT_EQ(ini::strip_comment("#all"), "");
  EXPECT_EQ(ini::strip_comment("k = \"a\\\" # b\" # c"), "k = \"a\\\" # b\" ");
  EXPECT_EQ(error_of([&] { ini::read_ini(write(dir, "g.ini", "ok = 1\nno equals\n")); }),
            dir / "g.ini" + std::string(":2: 'no equals' is not 'key = value' or '[section]'"));
  EXPECT_EQ(error_of([&] { ini::read_ini(write(dir, "h.ini", "a = 1\nb = x\x01y\n"), "--x: "); }),
            "--x: " + dir / "h.ini" + std::string(":2: control character in the line"));
}

TEST(InputDialect, ConfigFilesReadTheSameValues) {
  TempDir dir;
  std::string x, y, z;
  namespace po = boost::program_options;
  po::options_description desc("test");
  desc.add_options()("x", po::value(&x))("y", po::value(&y))("z", po::value(&z));
  const std::string path = write(dir, "c.ini", kKeys);
  const char* argv[] = {"prog", "--config", path.c_str()};
  mcb::cli::parse(3, argv, desc, "prog");
  EXPECT_EQ(x, "a#b");
  EXPECT_EQ(y, "c # d");
  EXPECT_EQ(z, "e;f");
  // A bad line, an unknown key and a repeated key name the file and line.
  const auto parse_error = [&](const std::string& text) {
    const std::string p = write(dir, "bad.ini", text);
    const char* args[] = {"prog", "--config", p.c_str()};
    return error_of([&] { mcb::cli::parse(3, args, desc, "prog"); });
  };
  EXPECT_EQ(parse_error("x = 1\nw = 2\n"),
            "--config: " + dir / "bad.ini" + std::string(":2: unknown option 'w'"));
  EXPECT_EQ(parse_error("x = 1\nx = 2\n"),
            "--config: " + dir / "bad.ini" + std::string(":2: x: set twice (first on line 1)"));
}

// Boost's own wording of an option error loops for ever on a value that holds its placeholder
// ("%value%"); such a value ends with the same one line as any other bad value.
TEST(InputDialect, ValuesHoldingPlaceholdersEndInOneLine) {
  TempDir dir;
  int n = 0;
  namespace po = boost::program_options;
  po::options_description desc("test");
  desc.add_options()("n", po::value(&n));
  const std::string path = write(dir, "p.ini", "n = \"1%value%\"\n");
  const char* from_file[] = {"prog", "--config", path.c_str()};
  EXPECT_EQ(error_of([&] { mcb::cli::parse(3, from_file, desc, "prog"); }),
            "--config: " + dir / "p.ini" +
                std::string(":1: the argument ('1%value%') for option 'n' is invalid"));
  const char* typed[] = {"prog", "--n", "%value%%canonical_option%"};
  EXPECT_EQ(error_of([&] { mcb::cli::parse(3, typed, desc, "prog"); }),
            "the argument ('%value%%canonical_option%') for option '--n' is invalid");
  const char* unknown[] = {"prog", "--%canonical_option%"};
  EXPECT_NE(error_of([&] { mcb::cli::parse(2, unknown, desc, "prog"); }), "");
}

TEST(InputDialect, CampaignSpecsReadTheSameValues) {
  TempDir dir;
  const mcb::campaign::CampaignSpec spec = mcb::campaign::load_spec(
      write(dir, "s.ini",
            std::string("name = a#b   # trailing\napp = poisson\nbinary = /bin/true\n[options]\n") +
                "system = \"c # d\" e;f   # two values\n"));
  EXPECT_EQ(spec.name, "a#b");
  ASSERT_EQ(spec.options.size(), 1u);
  EXPECT_EQ(spec.options[0].values, (std::vector<std::string>{"c # d", "e;f"}));
}

TEST(InputDialect, JobMixFilesReadTheSameWay) {
  TempDir dir;
  const mcb::sim::JobMix mix = mcb::sim::load_mix(
      write(dir, "m.ini", "# a mix\n[poisson]   # one application\nsizes = 16 32  # two\n"));
  ASSERT_EQ(mix.apps.size(), 1u);
  EXPECT_EQ(mix.apps[0].sizes, (std::vector<int>{16, 32}));
  // '#' inside a word and ';' are values, not comments (the reader refuses them as numbers).
  EXPECT_NE(error_of([&] {
              mcb::sim::load_mix(write(dir, "n.ini", "[p]\nweight = 3#x\nsizes = 1\n"));
            }).find("weight: '3#x' is not a positive number"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              mcb::sim::load_mix(write(dir, "o.ini", "[p]\nsizes = 16 ; 32\n"));
            }).find("';' is not a positive integer"),
            std::string::npos);
}

TEST(InputDialect, ClusterMapsAndPlatformFilesReadTheSameWay) {
  TempDir dir;
  const auto map = mcb::harness::ClusterMap::from_file(
      write(dir, "map.txt", "# ranks 0-1, then 2-3\na#b a#b   # trailing\r\nc;d, c;d\n"), 4);
  EXPECT_EQ(map.clusters(), 2);
  EXPECT_EQ(map.names(), (std::vector<std::string>{"a#b", "c;d"}));
  const auto links = mcb::harness::LinkTable::from_platform_file(
      write(dir, "p.txt", "# one link\n  a#b c;d 1ms 100Mbit/s   # the only pair\n"), map,
      std::nullopt);
  EXPECT_DOUBLE_EQ(links.between(0, 1).latency, 1e-3);
}

}  // namespace
