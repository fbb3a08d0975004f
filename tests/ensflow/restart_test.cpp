// mcb-ensflow's checkpoint and restart as a runner meets them: real runs through mpirun that stop
// at a day, continue from the restart file at another process count (so another member mapping)
// and end exactly where an uninterrupted run ends; restart files that are refused (exit code 2,
// one line naming the file and what is wrong, no record); and no torn file after a kill.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

namespace mcb::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// program_test's small experiment: 12 members on a 15x15 basin, analyses on days 2 and 4.
const std::string kSmall =
    " --members 12 --days 4 --grid 15 --observations 30 --initial-length 300 --counters ''"
    " --deformation-radius 0 --localisation 250 --analysis-every 2 --spinup-days 5 --quiet";

CommandResult ensflow(int ranks, const std::string& args, const std::string& base = kSmall) {
  return run_command(mpirun(ranks) + bin("mcb-ensflow") + base + " " + args);
}

// kSmall to @p days instead of 4.
std::string small_to(int days) {
  std::string base = kSmall;
  base.replace(base.find("--days 4"), 8, "--days " + std::to_string(days));
  return base;
}

json last_record(const std::string& file) {
  const auto records = read_records(file);
  return records.empty() ? json() : records.back();
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Only the files named, no temporaries beside them.
void expect_only(const fs::path& dir, const std::set<std::string>& names) {
  std::set<std::string> present;
  for (const auto& entry : fs::directory_iterator(dir)) present.insert(entry.path().filename());
  EXPECT_EQ(present, names);
}

struct Split {
  int first_ranks;   // the run that stops
  int second_ranks;  // the run that continues it
  int stop_day;
  std::string args;  // both runs' and the uninterrupted run's
};

void PrintTo(const Split& s, std::ostream* os) {
  *os << s.first_ranks << " then " << s.second_ranks << " processes, stop at day " << s.stop_day
      << " " << s.args;
}

class EnsflowRestart : public ::testing::TestWithParam<Split> {};

TEST_P(EnsflowRestart, ContinuesBitForBitAtAnotherProcessCount) {
  const Split& p = GetParam();
  TempDir dir;
  const std::string whole = dir / "whole.rst", part = dir / "part.rst";
  // Uninterrupted, at a third process count; its last restart file is written at day 4.
  const auto w = ensflow(
      2, p.args + " --checkpoint " + quote(whole) + " --output " + quote(dir / "whole.jsonl"));
  const json ref = last_record(dir / "whole.jsonl");
  ASSERT_FALSE(ref.is_null()) << w.out << w.err;

  const auto a = ensflow(p.first_ranks, p.args + " --checkpoint " + quote(part) +
                                            " --stop-at-day " + std::to_string(p.stop_day) +
                                            " --output " + quote(dir / "a.jsonl"));
  const json first = last_record(dir / "a.jsonl");
  ASSERT_FALSE(first.is_null()) << a.out << a.err;
  // A stopped run is judged on the days it reached: as a run of those days alone (without the
  // final error, which only the last day has), and its exit code says the same.
  // (with a restart file of its own: the split's options may ask for checkpoints)
  const auto upto = ensflow(p.first_ranks,
                            p.args + " --no-free-run --checkpoint " + quote(dir / "upto.rst") +
                                " --output " + quote(dir / "upto.jsonl"),
                            small_to(p.stop_day));
  const json short_run = last_record(dir / "upto.jsonl");
  fs::remove(dir / "upto.jsonl");
  fs::remove(dir / "upto.rst");
  ASSERT_FALSE(short_run.is_null()) << upto.out << upto.err;
  EXPECT_EQ(first["verdict"]["stopped_at_day"], p.stop_day);
  EXPECT_EQ(first["verdict"]["checks"], short_run["verdict"]["checks"]);
  EXPECT_EQ(first["verdict"]["analyses"], short_run["verdict"]["analyses"]);
  EXPECT_EQ(first["status"], short_run["status"]);
  EXPECT_EQ(a.exit_code, first["status"] == "valid" ? 0 : 1);
  if (first["status"] != "valid") {
    EXPECT_EQ(first["reason"].get<std::string>().rfind(
                  "up to day " + std::to_string(p.stop_day) + " (--stop-at-day): ", 0),
              0u)
        << first["reason"];
  }
  const json& book = first["result"]["restart"];
  EXPECT_EQ(book["write_days"].back(), p.stop_day);
  EXPECT_EQ(book["write_bytes"].back().get<std::size_t>(), fs::file_size(part));
  EXPECT_EQ(book["last_day"], p.stop_day);
  EXPECT_TRUE(book["restart_file"].is_null());

  const std::size_t part_bytes = fs::file_size(part);
  const auto b = ensflow(p.second_ranks, p.args + " --restart " + quote(part) + " --checkpoint " +
                                             quote(part) + " --output " + quote(dir / "b.jsonl"));
  const json second = last_record(dir / "b.jsonl");
  ASSERT_FALSE(second.is_null()) << b.out << b.err;
  const json& read = second["result"]["restart"];
  EXPECT_EQ(read["restart_day"], p.stop_day);
  EXPECT_EQ(read["first_day"], p.stop_day + 1);
  EXPECT_EQ(read["restart_bytes"].get<std::size_t>(), part_bytes);
  EXPECT_GE(read["read_time"].get<double>(), 0);
  EXPECT_EQ(second["config"]["total_size"], p.second_ranks);

  // The same run: every diagnostic and innovation bit for bit, the same verdict, and the
  // last restart files (every member's final state among them) byte for byte.
  EXPECT_EQ(second["result"]["diagnostics"], ref["result"]["diagnostics"]);
  EXPECT_EQ(second["result"]["innovations"], ref["result"]["innovations"]);
  EXPECT_EQ(second["verdict"]["checks"], ref["verdict"]["checks"]);
  EXPECT_EQ(second["status"], ref["status"]);
  EXPECT_EQ(b.exit_code, w.exit_code);
  EXPECT_TRUE(bytes_of(part) == bytes_of(whole)) << "the final restart files differ";
  expect_only(dir.path(), {"whole.rst", "part.rst", "whole.jsonl", "a.jsonl", "b.jsonl"});
}

INSTANTIATE_TEST_SUITE_P(Splits, EnsflowRestart,
                         ::testing::Values(Split{1, 4, 2, ""},
                                           Split{4, 2, 3, "--checkpoint-every 1"},
                                           Split{2, 1, 2, "--filter sqrt"}));

// --stop-file: a stop file that is there stops the run at its first analysis exactly as
// --stop-at-day would (the same restart file, the same verdict over the days reached, the record
// saying what stopped it), and the run continues from it bit for bit; one that never appears
// changes nothing.
TEST(EnsflowStopFile, StopsAtTheNextAnalysisAndContinuesBitForBit) {
  TempDir dir;
  const std::string whole = dir / "whole.rst", part = dir / "part.rst", at = dir / "at.rst";
  const std::string stop = dir / "stop";
  // Uninterrupted, with a stop file that never appears.
  const auto w = ensflow(2, "--checkpoint " + quote(whole) + " --stop-file " + quote(stop) +
                                " --output " + quote(dir / "whole.jsonl"));
  const json ref = last_record(dir / "whole.jsonl");
  ASSERT_FALSE(ref.is_null()) << w.out << w.err;
  EXPECT_TRUE(ref["result"]["restart"]["stopped_at_day"].is_null());
  EXPECT_EQ(ref["result"]["restart"]["last_day"], 4);

  std::ofstream(stop) << "";
  const auto a = ensflow(4, "--checkpoint " + quote(part) + " --stop-file " + quote(stop) +
                                " --output " + quote(dir / "a.jsonl"));
  const json first = last_record(dir / "a.jsonl");
  ASSERT_FALSE(first.is_null()) << a.out << a.err;
  const json& book = first["result"]["restart"];
  EXPECT_EQ(book["last_day"], 2);  // the first analysis
  EXPECT_EQ(book["stopped_at_day"], 2);
  EXPECT_EQ(book["stopped_by"], "--stop-file");
  EXPECT_EQ(book["stop_file"], stop);
  EXPECT_EQ(book["write_days"], json::array({2}));
  EXPECT_EQ(first["verdict"]["stopped_at_day"], 2);

  // The same as --stop-at-day 2: the file byte for byte, the checks over days 1 to 2.
  const auto b = ensflow(
      1, "--checkpoint " + quote(at) + " --stop-at-day 2 --output " + quote(dir / "at.jsonl"));
  const json by_day = last_record(dir / "at.jsonl");
  ASSERT_FALSE(by_day.is_null()) << b.out << b.err;
  EXPECT_TRUE(bytes_of(part) == bytes_of(at)) << "--stop-file and --stop-at-day files differ";
  EXPECT_EQ(first["verdict"]["checks"], by_day["verdict"]["checks"]);
  EXPECT_EQ(first["status"], by_day["status"]);
  EXPECT_EQ(by_day["result"]["restart"]["stopped_by"], "--stop-at-day");

  fs::remove(stop);
  const auto c =
      ensflow(1, "--restart " + quote(part) + " --checkpoint " + quote(part) + " --stop-file " +
                     quote(stop) + " --output " + quote(dir / "c.jsonl"));
  const json second = last_record(dir / "c.jsonl");
  ASSERT_FALSE(second.is_null()) << c.out << c.err;
  EXPECT_EQ(second["result"]["restart"]["first_day"], 3);
  EXPECT_EQ(second["result"]["diagnostics"], ref["result"]["diagnostics"]);
  EXPECT_EQ(second["result"]["innovations"], ref["result"]["innovations"]);
  EXPECT_EQ(second["verdict"]["checks"], ref["verdict"]["checks"]);
  EXPECT_EQ(c.exit_code, w.exit_code);
  EXPECT_TRUE(bytes_of(part) == bytes_of(whole)) << "the final restart files differ";
}

// A good restart file at day 2, written by one process.
std::string good_file(const TempDir& dir) {
  std::string file = dir / "good.rst";
  ensflow(1,
          "--checkpoint " + quote(file) + " --stop-at-day 2 --output " + quote(dir / "good.jsonl"));
  return file;
}

void expect_refused(const std::string& file, const std::string& args, const std::string& what) {
  TempDir out;
  const std::string records = out / "runs.jsonl";
  const std::string before = bytes_of(file);
  const auto r = ensflow(2, args + " --restart " + quote(file) + " --checkpoint " + quote(file) +
                                " --output " + quote(records));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  const auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("--restart: '" + file + "': " + what), std::string::npos) << lines[0];
  EXPECT_FALSE(fs::exists(records));
  EXPECT_TRUE(bytes_of(file) == before) << "a refused file was touched";
}

TEST(EnsflowRestartFile, IsRefusedFromAnotherConfigurationOrWhenDamaged) {
  TempDir dir;
  const std::string good = good_file(dir);
  const std::string bytes = bytes_of(good);
  ASSERT_GT(bytes.size(), 1000u);
  expect_refused(good, "--seed 3",
                 "written for another configuration: seed '1' in the file, '3' in this run");
  expect_refused(good, "--truth-seed 2",
                 "written for another configuration: truth-seed '1' in the file, '2' in this run");
  expect_refused(good, "--filter sqrt", "written for another configuration: filter");

  const std::string truncated = dir / "truncated.rst";
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  expect_refused(truncated, "",
                 "truncated or torn: its header gives " + std::to_string(bytes.size()) +
                     " bytes, the file has " + std::to_string(bytes.size() / 2));

  for (std::size_t at : {bytes.size() / 3, bytes.size() - 3}) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    const std::string file = dir / ("flipped-" + std::to_string(at) + ".rst");
    std::ofstream(file, std::ios::binary) << flipped;
    expect_refused(file, "", "checksum mismatch");
  }
  const std::string text = dir / "text.rst";
  std::ofstream(text) << "day 2\n";
  expect_refused(text, "", "not an mcb-ensflow restart file");
  expect_refused(dir / "missing.rst", "", "cannot be read");
}

TEST(EnsflowRestartFile, OptionsThatCannotWorkTogetherAreRefused) {
  TempDir dir;
  const std::string good = good_file(dir);
  const std::string x = quote(dir / "x.rst");
  for (const auto& [args, line] : std::vector<std::pair<std::string, std::string>>{
           {"--stop-at-day 2", "--stop-at-day: '2' needs --checkpoint FILE"},
           {"--checkpoint-every 2", "--checkpoint-every: needs --checkpoint FILE"},
           {"--checkpoint " + x + " --checkpoint-every 0",
            "--checkpoint-every: '0' is not 'analysis'"},
           {"--checkpoint " + x + " --stop-at-day 5", "--stop-at-day: '5' must lie between 0 and"},
           {"--checkpoint /nonexistent-dir/x.rst", "--checkpoint: cannot write"},
           {"--restart " + quote(good) + " --checkpoint " + x + " --stop-at-day 1",
            "--stop-at-day: '1' is not after day 2 of"},
           {"--stop-file " + x, "--stop-file: '" + (dir / "x.rst") + "' needs --checkpoint FILE"},
           {"--checkpoint " + x + " --stop-file ''", "--stop-file: empty path"},
           {"--checkpoint " + x + " --stop-file " + quote(dir.path().string()),
            "--stop-file: '" + dir.path().string() + "' is a directory"},
           {"--checkpoint " + x + " --stop-file /nonexistent-dir/stop",
            "--stop-file: '/nonexistent-dir/stop': directory '/nonexistent-dir' does not "
            "exist"}}) {
    const auto r = run_command(bin("mcb-ensflow") + kSmall + " " + args + " --output " +
                               quote(dir / "none.jsonl"));
    EXPECT_EQ(r.exit_code, 2) << args << r.err;
    ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
    EXPECT_NE(r.err_lines()[0].find(line), std::string::npos) << r.err_lines()[0];
    EXPECT_FALSE(fs::exists(dir / "none.jsonl"));
  }
  EXPECT_FALSE(fs::exists(dir / "x.rst"));
}

TEST(EnsflowRestartFile, AKillLeavesTheLastWholeFileOrNone) {
  // One process (an MPI singleton) writing a restart file every day, killed while it runs:
  // whatever sits under the final name then is a whole file that a restart accepts.
  TempDir dir;
  const std::string file = dir / "run.rst";
  const std::string script = bin("mcb-ensflow") +
                             " --members 12 --days 400 --grid 15"
                             " --observations 30 --initial-length 300 --counters '' "
                             "--deformation-radius 0 --localisation 250 --analysis-every 2 "
                             "--spinup-days 5 --quiet --no-free-run --checkpoint-every 1 "
                             "--checkpoint " +
                             quote(file) + " --output " + quote(dir / "runs.jsonl") +
                             " & pid=$!; for i in $(seq 600); do [ -e " + quote(file) +
                             " ] && break; sleep 0.05; done; sleep 0.3; kill -9 $pid; wait $pid";
  const auto r = run_command("sh -c " + quote(script));
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.out << r.err;
  ASSERT_TRUE(fs::exists(file)) << r.err;
  // --check reads and checks the whole file as a run would, without running.
  const auto check = run_command(bin("mcb-ensflow") +
                                 " --members 12 --days 400 --grid 15 --observations 30"
                                 " --initial-length 300 --deformation-radius 0 --localisation 250"
                                 " --analysis-every 2 --spinup-days 5 --no-free-run --check"
                                 " --ranks 4 --restart " +
                                 quote(file));
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename();
    // A temporary the kill interrupted may remain beside it, never under the final name.
    EXPECT_TRUE(name == "run.rst" || name.rfind("run.rst.tmp.", 0) == 0) << name;
  }
}

}  // namespace
}  // namespace mcb::testing
