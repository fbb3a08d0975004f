// Which runs pool into one row: repetitions do; any difference in configuration does not.
#include "calibration/grouping.hpp"
#include "calibration/runtime_table.hpp"
#include "common/errors.hpp"
#include "record_builder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace mcb::calib {
namespace {

using test::as_records;
using test::json;
using test::pointers;
using test::poisson_record;

// Two repetitions that differ in everything a repetition may differ in.
std::vector<json> two_repetitions() {
  json a = poisson_record("c-1-r1", 2, 2, 2, "local", 10.0, 3.0);
  json b = poisson_record("c-1-r2", 2, 2, 2, "local", 14.0, 3.0);
  b["repetition"] = 2;
  b["config"]["seed"] = 7;
  b["config"]["cluster_names"] = {"fs3", "fs1"};
  b["config"]["cluster_map"] = {1, 1, 0, 0};  // the same split, labels the other way round
  b["env"]["host"] = "node2";
  b["env"]["date"] = "2026-11-22T08:00:00Z";
  b["result"]["compute_time"]["avg"] = 3.5;
  return {a, b};
}

TEST(Grouping, RepetitionsPoolIntoOneRow) {
  const auto records = as_records(two_repetitions());
  const RuntimeTable table = build_runtime_table(pointers(records), "runtime-where");
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].stats.n, 2u);
  EXPECT_DOUBLE_EQ(table.rows[0].stats.avg, 12.0);
  EXPECT_EQ(table.groups[0].runs.size(), 2u);
}

// Every configuration field but the ignored ones keeps runs apart: either a different row (the
// key columns) or a refusal that names the field.
TEST(Grouping, AnyConfigurationDifferenceSeparates) {
  const json base = poisson_record("d-1-r1", 2, 2, 2, "local", 10.0, 3.0);
  const std::vector<std::string> key_columns = {"problem", "total_size", "components", "system"};
  int checked = 0;
  for (const auto& [key, value] : base["config"].items()) {
    if (key == "seed" || key == "cluster_names") continue;
    json other = base;
    other["run_id"] = "d-1-r2";
    json& v = other["config"][key];
    if (v.is_boolean()) {
      v = !v.get<bool>();
    } else if (v.is_number_integer()) {
      v = v.get<int>() + 1;
    } else if (v.is_number()) {
      v = v.get<double>() * 2;
    } else if (v.is_string()) {
      v = v.get<std::string>() + "-other";
    } else if (v.is_array()) {
      v = json::array({0, 1, 0, 1});  // a different split of the four ranks
    } else {
      v = json{{"latency", 0.001}};  // wan switched on
    }
    const auto records = as_records({base, other});
    ++checked;
    if (std::find(key_columns.begin(), key_columns.end(), key) != key_columns.end()) {
      const RuntimeTable table = build_runtime_table(pointers(records), "runtime-where");
      EXPECT_EQ(table.rows.size(), 2u) << "config." << key << " should make its own row";
      continue;
    }
    try {
      build_runtime_table(pointers(records), "runtime-where");
      ADD_FAILURE() << "runs differing in config." << key << " were pooled";
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("config." + key), std::string::npos) << message;
      EXPECT_NE(message.find("test.jsonl:1"), std::string::npos) << message;
      EXPECT_NE(message.find("test.jsonl:2"), std::string::npos) << message;
      if (!base["config"][key].is_structured()) {
        EXPECT_NE(message.find("--runtime-where " + key + "="), std::string::npos) << message;
      } else {
        EXPECT_NE(message.find("--runtime-where KEY=VALUE"), std::string::npos) << message;
      }
    }
  }
  EXPECT_GE(checked, 18);  // every key of the Poisson config was tried
}

TEST(Grouping, ComparableConfigDropsIdentityAndRenumbersClusters) {
  const json c = comparable_config(
      {{"seed", 3}, {"cluster_names", {"b", "a"}}, {"cluster_map", {2, 2, 0, 1}}, {"sync", true}});
  EXPECT_EQ(c, (json{{"cluster_map", {0, 0, 1, 2}}, {"sync", true}}));
}

TEST(Grouping, NoNodeLoadIsTheSameAsNone) {
  EXPECT_EQ(comparable_config({{"node_load", "none"}, {"sync", true}}), (json{{"sync", true}}));
  EXPECT_EQ(comparable_config({{"node_load", "cpu=25%"}}), (json{{"node_load", "cpu=25%"}}));
}

TEST(Grouping, FirstDifferenceNamesTheNestedPath) {
  const json a = {{"wan", {{"latency", 1}, {"bandwidth", 2}}}, {"grid", 64}};
  json b = a;
  b["wan"]["bandwidth"] = 3;
  EXPECT_EQ(first_difference(a, b), "wan.bandwidth");
  EXPECT_EQ(first_difference(a, a), "");
  EXPECT_EQ(first_difference(json{{"x", 1}}, json::object()), "x");
}

TEST(Grouping, NaturalOrderComparesNumbersAsNumbers) {
  EXPECT_TRUE(natural_less("64x64", "100x100"));
  EXPECT_FALSE(natural_less("100x100", "64x64"));
  EXPECT_TRUE(natural_less("8", "16"));
  EXPECT_TRUE(natural_less("local", "local-2"));
  EXPECT_FALSE(natural_less("a", "a"));
}

TEST(Grouping, FiltersCompareByTypeAndLetRecordsWithoutTheKeyPass) {
  const auto records = as_records({poisson_record("f-1", 2, 2, 1, "local", 1, 1),
                                   test::links_record("f-2", "local", {1, 2}, {})});
  EXPECT_TRUE(parse_filter("where", "sync=false").passes(records[0]));
  EXPECT_FALSE(parse_filter("where", "sync=true").passes(records[0]));
  EXPECT_TRUE(parse_filter("where", "omega=1").passes(records[0]));  // 1.0 == 1
  EXPECT_TRUE(parse_filter("where", "procs=2x2").passes(records[0]));
  EXPECT_FALSE(parse_filter("where", "grid=65").passes(records[0]));
  EXPECT_TRUE(parse_filter("where", "wan=null").passes(records[0]));
  EXPECT_TRUE(parse_filter("where", "sync=true").passes(records[1]));  // links have no sync
  EXPECT_FALSE(parse_filter("where", "sync=true").applies_to(records[1]));
  EXPECT_THROW(parse_filter("where", "sync"), UsageError);
  EXPECT_THROW(parse_filter("where", "=true"), UsageError);
}

}  // namespace
}  // namespace mcb::calib
