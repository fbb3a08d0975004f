// Every program's outputs are one set: a kill at any point of the output step (simulated at each
// of common/output_set.hpp's crash points, MCB_CRASH_AT=N) leaves the previous set or the new one
// whole, never a mix, and a user's own file in the folder survives; a full disk ends with exit 1
// and one line, and the previous set stays as it was.
#include "tests/support/command.hpp"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using mcb::testing::quote;
using mcb::testing::run_command;
using mcb::testing::slurp;
using mcb::testing::TempDir;

const std::string kFix = MCB_FIXTURES_DIR;
const std::string kTables = kFix + "/simulator/das2-study/poisson_sim_service_times.csv";

struct Program {
  std::string name;
  // The command line writing into folder @p out; @p seed tells two runs apart.
  std::string (*command)(const std::string& out, int seed);
};

std::string sim_single(const std::string& out, int seed) {
  return mcb::testing::bin("mcb-sim") + " --workload poisson --tables " + kTables +
         " --utilization 0.5 --jobs 300 --schedule batsim,swf --seed " + std::to_string(seed) +
         " --output " + quote(out);
}
std::string sim_sweep(const std::string& out, int seed) {
  return mcb::testing::bin("mcb-sim") + " --workload poisson --tables " + kTables +
         " --utilization 0.3,0.5 --jobs 200 --seed " + std::to_string(seed) + " --output " +
         quote(out);
}
std::string batchgrid_study(const std::string& out, int seed) {
  return mcb::testing::bin("mcb-batchgrid") + " study --experiments 2 --horizon-days 2 " +
         "--threads 1 --seed " + std::to_string(seed) + " --output " + quote(out);
}
std::string redundant(const std::string& out, int seed) {
  return mcb::testing::bin("mcb-redundant") +
         " --rankers qlen --duplicates 0 --replications 1 --jobs 100 --warmup 10 --seed " +
         std::to_string(seed) + " --output " + quote(out);
}
std::string match_study(const std::string& out, int seed) {
  return mcb::testing::bin("mcb-match-study") + " --replications 1 --seed " + std::to_string(seed) +
         " --output " + quote(out);
}
std::string calibrate(const std::string& out, int /*seed*/) {
  return mcb::testing::bin("mcb-calibrate") + " --input " + kFix +
         "/records/poisson-local --quiet --output " + quote(out);
}

const Program kPrograms[] = {{"SimSingle", sim_single},           {"SimSweep", sim_sweep},
                             {"BatchgridStudy", batchgrid_study}, {"Redundant", redundant},
                             {"MatchStudy", match_study},         {"Calibrate", calibrate}};

// The files of a folder: name -> inode and content.
struct Snapshot {
  std::map<std::string, std::pair<ino_t, std::string>> files;
};

Snapshot snapshot(const fs::path& folder) {
  Snapshot s;
  for (const auto& e : fs::directory_iterator(folder)) {
    struct stat st {};
    ::stat(e.path().c_str(), &st);
    s.files[e.path().filename().string()] = {st.st_ino, slurp(e.path())};
  }
  return s;
}

std::string names(const Snapshot& s) {
  std::string out;
  for (const auto& [name, file] : s.files) out += name + " ";
  return out;
}

class OutputSets : public ::testing::TestWithParam<Program> {};

TEST_P(OutputSets, AKillAtAnyPointLeavesOneWholeSet) {
  const Program& program = GetParam();
  TempDir dir;
  const std::string out = dir / "out";
  const auto first = run_command(program.command(out, 1));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::ofstream(out + "/notes.txt") << "a user's notes\n";
  Snapshot previous = snapshot(out);
  // The names a finished second run leaves (its set plus the notes).
  const std::string fresh = dir / "fresh";
  ASSERT_EQ(run_command(program.command(fresh, 2)).exit_code, 0);
  std::ofstream(fresh + "/notes.txt") << "a user's notes\n";
  const std::string new_names = names(snapshot(fresh));

  int killed = 0;
  for (int point = 1; point < 50; ++point) {
    const auto r =
        run_command("MCB_CRASH_AT=" + std::to_string(point) + " " + program.command(out, 2));
    const Snapshot now = snapshot(out);
    ASSERT_EQ(now.files.at("notes.txt").second, "a user's notes\n") << "point " << point;
    // Whole previous set: the same files (same inodes, same bytes); whole new set: the names of
    // a finished run, none of them a file of the previous set except the notes.
    bool all_old = names(now) == names(previous), all_new = names(now) == new_names;
    for (const auto& [name, file] : now.files) {
      const auto old = previous.files.find(name);
      const bool is_old = old != previous.files.end() && old->second == file;
      all_old &= is_old;
      if (name != "notes.txt") all_new &= !is_old;
    }
    EXPECT_TRUE(all_old || all_new)
        << "a mix after a kill at point " << point << ": " << names(now);
    for (const auto& e : fs::directory_iterator(dir.path())) {
      const std::string name = e.path().filename().string();
      EXPECT_TRUE(name == "out" || name == "fresh" || name.rfind(".out.new.", 0) == 0) << name;
    }
    if (r.exit_code == 0) {
      EXPECT_TRUE(all_new) << "point " << point;
      break;
    }
    ASSERT_EQ(r.exit_code, 137) << r.err;
    ++killed;
    if (!all_old) {  // killed after the exchange: set it back for the next point
      fs::remove_all(out);
      ASSERT_EQ(run_command(program.command(out, 1)).exit_code, 0);
      std::ofstream(out + "/notes.txt") << "a user's notes\n";
      previous = snapshot(out);
    }
  }
  EXPECT_GE(killed, 3) << "the output step has fewer crash points than files";
  // The last, finished run removed every leftover of the killed ones.
  for (const auto& e : fs::directory_iterator(dir.path())) {
    EXPECT_TRUE(e.path().filename() == "out" || e.path().filename() == "fresh") << e.path();
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, OutputSets, ::testing::ValuesIn(kPrograms),
                         [](const auto& info) { return info.param.name; });

// A small file system of its own (tmpfs; needs root), unmounted at the end.
class SmallDisk {
 public:
  explicit SmallDisk(const std::string& path) : path_(path) {
    fs::create_directories(path);
    mounted_ = ::mount("tmpfs", path.c_str(), "tmpfs", 0, "size=256k") == 0;
  }
  ~SmallDisk() {
    if (mounted_) ::umount(path_.c_str());
  }
  bool mounted() const { return mounted_; }

 private:
  std::string path_;
  bool mounted_ = false;
};

TEST(OutputSets, AFullDiskEndsInOneLineAndKeepsThePreviousSet) {
  TempDir dir;
  SmallDisk disk(dir / "disk");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  const std::string out = dir / "disk/out";
  ASSERT_EQ(run_command(sim_single(out, 1)).exit_code, 0);
  const Snapshot previous = snapshot(out);
  // Ten times the jobs: jobs.csv no longer fits beside the previous set.
  const auto r =
      run_command(mcb::testing::bin("mcb-sim") + " --workload poisson --tables " + kTables +
                  " --utilization 0.5 --jobs 3000 --seed 2 --output " + quote(out));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  const Snapshot now = snapshot(out);
  EXPECT_EQ(names(now), names(previous));
  for (const auto& [name, file] : now.files) EXPECT_EQ(file, previous.files.at(name)) << name;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "disk"), fs::directory_iterator{}), 1);
}

// Records are appended, not sets: a record a full disk refuses ends the run with exit code 1 and
// one line, and leaves no empty records file behind.
TEST(OutputSets, ARecordAFullDiskRefusesLeavesNoFile) {
  TempDir dir;
  SmallDisk disk(dir / "disk");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  {
    std::ofstream filler(dir / "disk/filler");
    filler << std::string(256 * 1024, 'x');  // fills the disk to its last block
  }
  const auto r = run_command(mcb::testing::bin("mcb-poisson") + " --grid 16 --quiet --output " +
                             quote(dir / "disk/runs.jsonl"));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("runs.jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "disk/runs.jsonl"));
}

}  // namespace
