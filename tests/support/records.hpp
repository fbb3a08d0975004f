#pragma once
// What the end-to-end tests of the measurement programs share: reading the records a run
// appended, and checking the answer to bad input as the suite promises it (exit code 2, one
// line on stderr naming the option and value, no record, no verdict), and about invalid runs.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/jsonl.hpp"
#include "tests/support/command.hpp"

namespace mcb::testing {

// The records of a JSON Lines file, in order, read with the suite's reader (common/jsonl.hpp).
// Stricter than the programs: a torn last line throws, since a test's records must be whole.
inline std::vector<nlohmann::json> read_records(const std::string& path) {
  const jsonl::Contents contents = jsonl::read(path, {}, /*missing_ok=*/true);
  if (contents.torn) throw std::runtime_error(jsonl::torn_notice(contents));
  std::vector<nlohmann::json> records;
  for (const jsonl::Line& line : contents.lines) records.push_back(line.doc);
  return records;
}

// Checks the promise about a run that fails its own verification: exit code 1, INVALID in the
// verdict line, and one record marked invalid whose reason contains `reason`.
inline void expect_invalid_run(const CommandResult& r, const std::string& records_file,
                               const std::string& reason) {
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("INVALID"), std::string::npos) << r.out;
  const auto records = read_records(records_file);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["status"], "invalid");
  EXPECT_NE(records[0]["reason"].get<std::string>().find(reason), std::string::npos)
      << records[0]["reason"];
}

// One bad command line and the text its one error line must contain.
struct BadInput {
  std::string ranks_and_args;  // "<ranks>|<arguments>"
  std::string names;           // text the one line must contain
};

// Names a case by its arguments in test listings (GoogleTest would print the object's bytes).
inline void PrintTo(const BadInput& input, std::ostream* os) { *os << input.ranks_and_args; }

// Runs `program` as `input` says (one rank as an MPI singleton, without mpirun, as a user may
// run it) with --output in a fresh folder unless the arguments name their own, and checks the
// promise about bad input.
inline void expect_usage_error(const std::string& program, const BadInput& input) {
  const auto bar = input.ranks_and_args.find('|');
  const int ranks = std::stoi(input.ranks_and_args.substr(0, bar));
  const std::string args = input.ranks_and_args.substr(bar + 1);
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  const bool own_output = args.find("--output") != std::string::npos;
  const std::string launcher = ranks == 1 ? std::string() : mpirun(ranks);
  const auto r = run_command(launcher + bin(program) + " " + args +
                             (own_output ? "" : " --output " + quote(out)));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  const auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find(input.names), std::string::npos) << lines[0];
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(r.out.find("VALID"), std::string::npos);
}

}  // namespace mcb::testing
