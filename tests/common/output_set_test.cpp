// An output folder is one set of files (common/output_set.hpp): readers see the previous set or
// the new one whole, never a mix; what is not the program's own stays; a run that fails or is
// killed leaves the previous set and its leftovers are cleaned by the next run.
#include "common/output_set.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using mcb::OutputSet;
using mcb::testing::slurp;
using mcb::testing::TempDir;

ino_t inode(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Names in @p folder, hidden ones included, sorted.
std::string listing(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.insert(e.path().filename().string());
  std::string out;
  for (const auto& n : names) out += n + " ";
  return out;
}

TEST(OutputSet, ANewFolderGetsTheWholeSet) {
  TempDir dir;
  const std::string out = dir / "a/b/out";
  {
    OutputSet set(out, {"x.csv", "y.json", "z.swf"});
    set.write("x.csv", "1\n");
    set.open("y.json") << "{}\n";
    EXPECT_FALSE(fs::exists(out));  // nothing is in place before commit()
    set.commit();
    EXPECT_EQ(set.path("x.csv"), out + "/x.csv");
  }
  EXPECT_EQ(listing(out), "x.csv y.json ");
  EXPECT_EQ(slurp(out + "/y.json"), "{}\n");
  EXPECT_EQ(listing(dir / "a/b"), "out ");  // no sibling left behind
}

TEST(OutputSet, ASecondSetReplacesTheFirstAndKeepsWhatIsNotItsOwn) {
  TempDir dir;
  const std::string out = dir / "out";
  {
    OutputSet set(out, {"jobs.csv", "summary.json"});
    set.write("jobs.csv", "old jobs\n");
    set.write("summary.json", "old summary\n");
    set.commit();
  }
  fs::create_directories(out + "/figures");
  std::ofstream(out + "/notes.txt") << "mine\n";
  std::ofstream(out + "/figures/f.png") << "png";
  const ino_t notes = inode(out + "/notes.txt");
  {
    // This run writes no jobs.csv: the old one must not stand beside the new summary.
    OutputSet set(out, {"jobs.csv", "summary.json"});
    set.write("summary.json", "new summary\n");
    set.commit();
  }
  EXPECT_EQ(listing(out), "figures notes.txt summary.json ");
  EXPECT_EQ(slurp(out + "/summary.json"), "new summary\n");
  EXPECT_EQ(inode(out + "/notes.txt"), notes);  // the same file, linked, not copied
  EXPECT_EQ(slurp(out + "/figures/f.png"), "png");
  EXPECT_EQ(listing(dir.path()), "out ");
}

TEST(OutputSet, WithoutCommitThePreviousSetStays) {
  TempDir dir;
  const std::string out = dir / "out";
  {
    OutputSet set(out, {"a", "b"});
    set.write("a", "1");
    set.write("b", "1");
    set.commit();
  }
  try {
    OutputSet set(out, {"a", "b"});
    set.write("a", "2");
    throw std::runtime_error("the run failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(slurp(out + "/a"), "1");
  EXPECT_EQ(slurp(out + "/b"), "1");
  EXPECT_EQ(listing(dir.path()), "out ");
}

TEST(OutputSet, LeftoversOfAKilledRunAreRemovedByTheNext) {
  TempDir dir;
  const std::string out = dir / "out";
  fs::create_directories(out);
  // pid 2^22 + 1 is above Linux's pid_max limit, so no live process has it.
  const std::string dead = "4194305";
  fs::create_directories(dir / (".out.new." + dead));
  std::ofstream(dir / (".out.new." + dead) + "/jobs.csv") << "half";
  std::ofstream(out + "/jobs.csv.tmp." + dead) << "half";
  std::ofstream(out + "/keep.tmp.notapid") << "a user's file";
  {
    OutputSet set(out, {"jobs.csv"});
    set.write("jobs.csv", "whole\n");
    set.commit();
  }
  EXPECT_EQ(listing(dir.path()), "out ");
  EXPECT_EQ(listing(out), "jobs.csv keep.tmp.notapid ");
}

TEST(OutputSet, AnInterruptedTwoRenameCommitIsPutBack) {
  // On a file system without an atomic exchange, a kill between the two renames leaves the
  // previous set under ".<name>.old.<pid>" and no folder: the next run restores it first.
  TempDir dir;
  const std::string out = dir / "out";
  const std::string dead = "4194305";
  fs::create_directories(dir / (".out.old." + dead));
  std::ofstream(dir / (".out.old." + dead) + "/mine.txt") << "previous";
  {
    OutputSet set(out, {"new.csv"});
    set.write("new.csv", "n\n");
    set.commit();
  }
  EXPECT_EQ(listing(out), "mine.txt new.csv ");
  EXPECT_EQ(listing(dir.path()), "out ");
}

TEST(OutputSet, ASymbolicLinkToAFolderIsFollowed) {
  TempDir dir;
  fs::create_directories(dir / "real");
  fs::create_directory_symlink(dir / "real", dir / "link");
  {
    OutputSet set(dir / "link", {"a"});
    set.write("a", "1");
    set.commit();
  }
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(slurp(dir / "real/a"), "1");
}

}  // namespace
