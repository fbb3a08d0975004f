// Reading records: campaign folders, identical repeats, and refusals that name file and line.
#include "calibration/records.hpp"
#include "calibration/runtime_table.hpp"
#include "common/errors.hpp"
#include "record_builder.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace mcb::calib {
namespace {

namespace fs = std::filesystem;

const std::string kRecords = std::string(MCB_FIXTURES_DIR) + "/records";

TEST(Records, FolderReadsEveryJsonlFileAndDropsIdenticalRepeats) {
  const RecordSet set = load_records({kRecords + "/poisson-local"});
  // more.jsonl sorts before runs.jsonl; notes.txt is not read.
  ASSERT_EQ(set.summary.files.size(), 2u);
  EXPECT_EQ(fs::path(set.summary.files[0]).filename(), "more.jsonl");
  EXPECT_EQ(fs::path(set.summary.files[1]).filename(), "runs.jsonl");
  EXPECT_EQ(set.summary.lines, 11u);
  ASSERT_EQ(set.summary.duplicates.size(), 1u);
  // fx-1-r1 is read from more.jsonl:4 first; its copy on runs.jsonl:1 is the repeat.
  EXPECT_NE(set.summary.duplicates[0].find("runs.jsonl:1 repeats"), std::string::npos)
      << set.summary.duplicates[0];
  EXPECT_EQ(set.records.size(), 10u);
  EXPECT_EQ(set.summary.schema, "mcb-run/2");  // version-1 fixtures read as version 2
}

TEST(Records, AFileGivenTwiceIsReadOnce) {
  const RecordSet set =
      load_records({kRecords + "/poisson-local", kRecords + "/poisson-local/runs.jsonl"});
  EXPECT_EQ(set.summary.files.size(), 2u);
  EXPECT_EQ(set.records.size(), 10u);
}

TEST(Records, FixtureRuntimesByHand) {
  const RecordSet set = load_records({kRecords + "/poisson-local"});
  std::vector<const Record*> valid;
  for (const Record& r : set.records) {
    if (r.status() == "valid") valid.push_back(&r);
  }
  const RuntimeTable t = build_runtime_table(valid, "runtime-where");
  ASSERT_EQ(t.rows.size(), 3u);
  // 2 processes: 10, 12, 14 -> 12 +- 2; 4 processes: 6 7 8 11; 4 in 2 clusters: 9 alone.
  EXPECT_EQ(t.rows[0].total_size, 2);
  EXPECT_DOUBLE_EQ(t.rows[0].stats.avg, 12.0);
  EXPECT_DOUBLE_EQ(*t.rows[0].stats.stddev, 2.0);
  EXPECT_DOUBLE_EQ(t.rows[1].stats.median, 7.5);
  EXPECT_EQ(t.rows[2].components, 2);
  EXPECT_EQ(t.rows[2].stats.n, 1u);
}

std::string refusal(const std::vector<std::string>& inputs) {
  try {
    load_records(inputs);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Records, BadInputNamesFileAndLine) {
  const std::string bad = kRecords + "/bad/";
  EXPECT_EQ(refusal({bad + "missing-field.jsonl"})
                .rfind(bad + "missing-field.jsonl:2: missing field 'config.total_size'", 0),
            0u)
      << refusal({bad + "missing-field.jsonl"});
  EXPECT_EQ(refusal({bad + "malformed.jsonl"}).rfind(bad + "malformed.jsonl:2: malformed JSON", 0),
            0u);
  EXPECT_EQ(refusal({bad + "wrong-schema.jsonl"})
                .rfind(bad + "wrong-schema.jsonl:1: unknown schema 'mcb-run/9'", 0),
            0u);
  EXPECT_EQ(refusal({bad + "mixed-schema.jsonl"})
                .rfind(bad + "mixed-schema.jsonl:2: unknown schema 'mcb-run/3'", 0),
            0u);
  EXPECT_EQ(refusal({bad + "conflict.jsonl"})
                .rfind(bad + "conflict.jsonl:2: run_id 'fxb-1-r1' was read before", 0),
            0u);
  EXPECT_NE(refusal({bad + "conflict.jsonl"}).find("result.wall_time"), std::string::npos);
  EXPECT_EQ(refusal({bad + "empty.jsonl"}), bad + "empty.jsonl: no records (empty input)");
  EXPECT_NE(refusal({bad + "nothing-here.jsonl"}).find("no such file"), std::string::npos);
}

TEST(Records, WrongTypesAndInconsistentRanksAreNamed) {
  const auto dir = test::fresh_dir("types");
  auto doc = test::poisson_record("t-1", 2, 2, 1, "local", 1, 1);
  doc["config"]["total_size"] = "4";
  test::write_jsonl(dir / "a.jsonl", {doc});
  EXPECT_NE(refusal({(dir / "a.jsonl").string()})
                .find("a.jsonl:1: field 'config.total_size' must be an integer, not a string"),
            std::string::npos);
  doc = test::poisson_record("t-2", 2, 2, 1, "local", 1, 1);
  doc["ranks"].erase(3);
  test::write_jsonl(dir / "b.jsonl", {doc});
  EXPECT_NE(refusal({(dir / "b.jsonl").string()}).find("field 'ranks' has 3 entries"),
            std::string::npos);
  doc = test::poisson_record("t-3", 2, 2, 1, "local", 1, 1);
  doc["status"] = "done";
  test::write_jsonl(dir / "c.jsonl", {doc});
  EXPECT_NE(refusal({(dir / "c.jsonl").string()}).find("field 'status' is 'done'"),
            std::string::npos);
  doc = test::poisson_record("t-4", 2, 2, 1, "local", 1, 1);
  doc["ranks"][1]["channels"]["left"]["time"].erase("inter");
  test::write_jsonl(dir / "d.jsonl", {doc});
  EXPECT_NE(refusal({(dir / "d.jsonl").string()})
                .find("missing field 'ranks.1.channels.left.time.inter'"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(Records, NotValidRecordsNeedOnlyTheirIdentity) {
  const auto dir = test::fresh_dir("failed");
  const nlohmann::json failed = {{"schema", "mcb-run/1"},
                                 {"run_id", "x-1"},
                                 {"app", "poisson"},
                                 {"status", "failed"},
                                 {"reason", "killed"}};
  test::write_jsonl(dir / "f.jsonl", std::vector<nlohmann::json>{failed});
  const RecordSet set = load_records({dir.string()});
  ASSERT_EQ(set.records.size(), 1u);
  EXPECT_EQ(set.records[0].status(), "failed");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mcb::calib
