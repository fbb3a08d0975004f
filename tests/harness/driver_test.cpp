// The run sequence every MPI program shares (harness/driver.hpp) at 1, 2 and 4 ranks, driven by
// a small measurement that sums the rank numbers: a measured run leaves one record with every
// rank's block, the verdict and the figure of merit; a run that throws on a rank leaves one
// failed record naming the reason, and every rank ends with exit code 1.
#include "harness/driver.hpp"
#include "common/cli.hpp"
#include "common/run_record.hpp"
#include "tests/support/mpi_world.hpp"
#include "tests/support/records.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mcb::harness {
namespace {

using nlohmann::json;

class SumOfRanks : public Measurement {
 public:
  explicit SumOfRanks(int failing_rank) : failing_rank_(failing_rank) {}

  bool parse(int argc, char** argv, int /*ranks*/, bool is_root) override {
    boost::program_options::options_description desc("driver test");
    add_run_options(desc, options_);
    const cli::Parsed parsed = cli::parse(argc, argv, desc, "driver_test [options]");
    if (parsed.help_printed) return false;
    check_run_options(options_, parsed.vm, is_root);
    return true;
  }
  const RunOptions& run_options() const override { return options_; }
  ClusterMap default_cluster_map(int ranks, int clusters) const override {
    return ClusterMap::blocks(ranks, clusters);
  }
  json config(const Run& run) const override {
    return {{"total_size", run.size}, {"components", run.clusters().clusters()}};
  }
  void measure(Run& run, Counters& /*counters*/) override {
    MPI_Allreduce(&run.rank, &sum_, 1, MPI_INT, MPI_SUM, run.world);
    if (run.rank == failing_rank_) {
      throw std::runtime_error("rank " + std::to_string(run.rank) + ": out of memory");
    }
  }
  json conclude(const Run& run) override { return {{"rank_squared", run.rank * run.rank}}; }
  Judgement judge(const Run& run) override {
    Judgement j;
    j.valid = sum_ == run.size * (run.size - 1) / 2;
    if (!j.valid) j.reason = "the ranks summed to " + std::to_string(sum_);
    j.verdict = {{"sum", sum_}};
    j.result = {{"sum", sum_}};
    j.figure = sum_;
    j.unit = "ranks";
    j.figure_text = std::to_string(sum_) + " ranks";
    j.meaning = "sum of the rank numbers";
    return j;
  }
  void print_summary(const Run& /*run*/, const json& /*record*/) const override {}
  std::string counters_reason() const override { return "the sum counts no hardware events"; }

 private:
  int failing_rank_;
  RunOptions options_;
  int sum_ = -1;
};

// A records file in a folder rank 0 created, its path known on every rank.
class SharedRecords {
 public:
  SharedRecords() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) dir_.emplace();
    std::string path = rank == 0 ? std::string(*dir_ / "runs.jsonl") : std::string();
    int length = static_cast<int>(path.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    path.resize(static_cast<std::size_t>(length));
    MPI_Bcast(path.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = path;
  }
  const std::string& path() const { return path_; }

 private:
  std::optional<mcb::testing::TempDir> dir_;
  std::string path_;
};

int drive_with(Measurement& m, const std::string& output, const std::string& run_id) {
  std::vector<std::string> args = {"driver_test", "--output", output,
                                   "--run-id",    run_id,     "--quiet"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return drive(MPI_COMM_WORLD, "driver_test", "sum", static_cast<int>(argv.size()), argv.data(), m);
}

TEST(Driver, AMeasuredRunLeavesOneRecordWithEveryRanksBlockAndTheVerdict) {
  const int rank = mcb::testing::world_rank();
  const int size = mcb::testing::world_size();
  const SharedRecords records;
  SumOfRanks m(-1);
  EXPECT_EQ(drive_with(m, records.path(), "sum-1"), 0);
  if (rank != 0) return;
  const auto all = mcb::testing::read_records(records.path());
  ASSERT_EQ(all.size(), 1u);
  const json& r = all[0];
  EXPECT_EQ(r["schema"], kRunRecordSchema);
  EXPECT_EQ(r["run_id"], "sum-1");
  EXPECT_EQ(r["app"], "sum");
  EXPECT_EQ(r["status"], "valid");
  EXPECT_EQ(r["config"]["total_size"], size);
  EXPECT_EQ(r["env"]["ranks"], size);
  EXPECT_EQ(r["verdict"]["valid"], true);
  EXPECT_EQ(r["verdict"]["sum"], size * (size - 1) / 2);
  EXPECT_EQ(r["verdict"]["figure_of_merit"]["value"], size * (size - 1) / 2);
  EXPECT_EQ(r["verdict"]["figure_of_merit"]["unit"], "ranks");
  EXPECT_EQ(r["result"]["sum"], size * (size - 1) / 2);
  EXPECT_TRUE(r["counters"].is_null());
  EXPECT_EQ(r["counters_reason"], "the sum counts no hardware events");
  ASSERT_EQ(r["ranks"].size(), static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    const json& block = r["ranks"][static_cast<std::size_t>(i)];
    EXPECT_EQ(block["rank"], i);
    EXPECT_EQ(block["cluster"], 0);
    EXPECT_EQ(block["host"], r["env"]["hosts"][static_cast<std::size_t>(i)]);
    EXPECT_EQ(block["rank_squared"], i * i);
  }
}

TEST(Driver, AnExceptionOnOneRankLeavesOneFailedRecordAndExitCodeOneEverywhere) {
  const int rank = mcb::testing::world_rank();
  const int size = mcb::testing::world_size();
  const SharedRecords records;
  SumOfRanks m(size - 1);
  EXPECT_EQ(drive_with(m, records.path(), "sum-2"), 1);
  if (rank != 0) return;
  const auto all = mcb::testing::read_records(records.path());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]["status"], "failed");
  EXPECT_EQ(all[0]["reason"], "rank " + std::to_string(size - 1) + ": out of memory");
  EXPECT_EQ(all[0]["run_id"], "sum-2");
  EXPECT_EQ(all[0]["config"]["total_size"], size);
  EXPECT_FALSE(all[0].contains("ranks"));
}

}  // namespace
}  // namespace mcb::harness
