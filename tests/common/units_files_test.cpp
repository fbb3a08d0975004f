// Units a user writes, and output files that survive crashes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/text.hpp"
#include "common/units.hpp"
#include "tests/support/command.hpp"

namespace mcb {
namespace {

TEST(Units, DurationsWithTheirUnit) {
  EXPECT_DOUBLE_EQ(parse_duration("1ms"), 1e-3);
  EXPECT_DOUBLE_EQ(parse_duration("20us"), 20e-6);
  EXPECT_DOUBLE_EQ(parse_duration("1.5s"), 1.5);
  EXPECT_DOUBLE_EQ(parse_duration("3"), 3.0);
  EXPECT_DOUBLE_EQ(parse_duration(" 250 ns "), 250e-9);
  EXPECT_DOUBLE_EQ(parse_duration("2min"), 120.0);
  EXPECT_DOUBLE_EQ(parse_duration("1.5h"), 5400.0);
  for (const char* bad : {"", "ms", "1 parsec", "-1ms", "1e999s", "abc"}) {
    EXPECT_THROW(parse_duration(bad), std::invalid_argument) << bad;
  }
}

// One cap for every duration an input gives (options, platform lines, campaign specs).
TEST(Units, DurationsPastTheCapAreRefused) {
  EXPECT_DOUBLE_EQ(parse_duration("1e12s"), kLongestDuration);
  EXPECT_DOUBLE_EQ(parse_duration("1e12"), kLongestDuration);
  for (const char* bad : {"1e300s", "1e300h", "1e300", "1e9h", "2e10min", "1.000001e12"}) {
    try {
      parse_duration(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "'" + std::string(bad) + "' is above the cap of 1e12 s");
    }
  }
}

TEST(Units, RatesAreBytesPerSecond) {
  EXPECT_DOUBLE_EQ(parse_rate("100Mbit/s"), 12.5e6);
  EXPECT_DOUBLE_EQ(parse_rate("1Gbit/s"), 125e6);
  EXPECT_DOUBLE_EQ(parse_rate("8bit/s"), 1.0);
  EXPECT_DOUBLE_EQ(parse_rate("12.5MB/s"), 12.5e6);
  EXPECT_DOUBLE_EQ(parse_rate("1MiB/s"), 1048576.0);
  for (const char* bad : {"100", "0Mbit/s", "-5Mbit/s", "100Mbps", "fast"}) {
    EXPECT_THROW(parse_rate(bad), std::invalid_argument) << bad;
  }
  EXPECT_EQ(format_rate(12.5e6), "100Mbit/s");
  EXPECT_EQ(format_bandwidth(12.5e6), "12.5 MB/s");
  EXPECT_EQ(megabytes_per_second(12.5e6), 12.5);
  EXPECT_EQ(format_duration(1e-3), "1ms");
}

// The one reading of a whole number (process counts, spec integers): all of the text or nothing.
TEST(Text, WholeNumbersAreReadWhole) {
  EXPECT_EQ(whole_number("12"), 12);
  EXPECT_EQ(whole_number("-3"), -3);
  for (const char* bad : {"", "12x", "1.5", " ", "x12", "99999999999999999999"}) {
    EXPECT_FALSE(whole_number(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(Files, AppendLineCutsATornTailBeforeAppending) {
  testing::TempDir dir;
  const std::string path = dir / "runs.jsonl";
  append_line(path, R"({"run":1})");
  // A crash mid-write leaves half a line.
  {
    std::ofstream out(path, std::ios::app);
    out << R"({"run":2,"trunc)";
  }
  append_line(path, R"({"run":3})");
  EXPECT_EQ(testing::slurp(path), "{\"run\":1}\n{\"run\":3}\n");
}

TEST(Files, AppendLineFromManyProcessesKeepsWholeLines) {
  testing::TempDir dir;
  const std::string path = dir / "runs.jsonl";
  const std::string line(5000, 'x');
  std::vector<pid_t> children;
  for (int p = 0; p < 4; ++p) {
    const pid_t pid = fork();
    if (pid == 0) {
      for (int i = 0; i < 50; ++i) append_line(path, line);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) waitpid(pid, nullptr, 0);
  std::ifstream in(path);
  std::string got;
  int lines = 0;
  while (std::getline(in, got)) {
    EXPECT_EQ(got, line);
    ++lines;
  }
  EXPECT_EQ(lines, 200);
}

TEST(Files, WriteFileAtomicallyReplacesWholeFiles) {
  testing::TempDir dir;
  const std::string path = dir / "table.csv";
  write_file_atomically(path, "a,b\n1,2\n");
  write_file_atomically(path, "a,b\n3,4\n");
  EXPECT_EQ(testing::slurp(path), "a,b\n3,4\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
  EXPECT_THROW(write_file_atomically(dir / "missing/dir/file", "x"), std::runtime_error);
}

TEST(Files, AtomicFileShowsNothingUntilCommitted) {
  testing::TempDir dir;
  const std::string path = dir / "jobs.csv";
  write_file_atomically(path, "old\n");
  {
    AtomicFile file(path);
    for (int i = 0; i < 100000; ++i) file.stream() << i << '\n';
    file.finish();
    EXPECT_EQ(testing::slurp(path), "old\n") << "finish() leaves the destination alone";
    file.commit();
  }
  const std::string text = testing::slurp(path);
  EXPECT_EQ(text.substr(0, 4), "0\n1\n");
  EXPECT_EQ(text.substr(text.size() - 6), "99999\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(Files, AtomicFileNotCommittedLeavesTheOldFileAndNoTemporary) {
  testing::TempDir dir;
  const std::string path = dir / "summary.json";
  write_file_atomically(path, "old\n");
  try {
    AtomicFile file(path);
    file.stream() << "half";
    throw std::runtime_error("the run failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(testing::slurp(path), "old\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
  EXPECT_THROW(AtomicFile(dir / "missing/dir/file"), std::runtime_error);
}

TEST(Files, CheckWritableNamesTheOptionAndPath) {
  testing::TempDir dir;
  EXPECT_NO_THROW(check_writable_file("output", dir / "new.jsonl"));
  EXPECT_FALSE(std::filesystem::exists(dir / "new.jsonl")) << "the check must not create files";
  try {
    check_writable_file("output", dir / "no/such/dir.jsonl");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--output: cannot write"), std::string::npos);
  }
  EXPECT_THROW(check_writable_file("output", dir.path().string()), UsageError);
}

TEST(Cli, BadValuesAndUnknownOptionsAreUsageErrors) {
  namespace po = boost::program_options;
  int n = 0;
  po::options_description desc;
  desc.add_options()("count", po::value(&n), "a count");
  const char* unknown[] = {"prog", "--bogus", "1"};
  EXPECT_THROW(cli::parse(3, unknown, desc, "prog"), UsageError);
  const char* bad[] = {"prog", "--count", "many"};
  try {
    cli::parse(3, bad, desc, "prog");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("many"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("count"), std::string::npos);
  }
  const char* missing_config[] = {"prog", "--config", "/no/such.ini"};
  EXPECT_THROW(cli::parse(3, missing_config, desc, "prog"), UsageError);
  EXPECT_EQ(cli::run("prog", []() -> int { throw UsageError("--x: bad"); }), 2);
}

}  // namespace
}  // namespace mcb
