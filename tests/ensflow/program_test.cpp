// mcb-ensflow as a user meets it: real runs through mpirun, the record they append, the
// verdict, the same answer at every process count, traffic only in the analysis phases, and
// the answer to bad input (exit code 2, one line naming the option and value, no record).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

namespace mcb::testing {
namespace {

using nlohmann::json;

// A few seconds' worth of work at most: 12 members on a 15x15 basin, two analyses. Barotropic:
// a 62 km grid does not resolve the two-layer model's 30 km deformation radius, and these
// tests are about the program, not the flow (ensflow_mpi_test runs the two-layer model).
const std::string kSmallBase =
    " --members 12 --days 4 --grid 15 --observations 30 --initial-length 300 --counters ''"
    " --deformation-radius 0 --localisation 250";  // the scales of a 15-point grid (dx 62 km)
const std::string kSmall = kSmallBase + " --analysis-every 2 --spinup-days 5";

// At this size the verdict of a correct filter depends on the draw: over 200 seeds it was
// INVALID in 37 (38 with the former std:: draws), mostly at the second analysis, which works
// at the observation-error level (README, "Verdict"). These tests are about the program, so
// either verdict will do as long as the exit code, the record's status and its verdict agree;
// that correct filters pass and broken ones fail is ensflow_verdict_test's, at the default size.
void expect_consistent_verdict(int exit_code, const json& rec) {
  ASSERT_TRUE(exit_code == 0 || exit_code == 1) << exit_code;
  EXPECT_EQ(rec["status"], exit_code == 0 ? "valid" : "invalid");
  EXPECT_EQ(rec["verdict"]["valid"], exit_code == 0);
}

json run_one(int ranks, const std::string& args, const std::string& out,
             const std::string& base = kSmall) {
  const auto r = run_command(mpirun(ranks) + bin("mcb-ensflow") + base + " " + args + " --output " +
                             quote(out));
  const auto records = read_records(out);
  EXPECT_FALSE(records.empty()) << r.out << r.err;
  if (records.empty()) return json();
  expect_consistent_verdict(r.exit_code, records.back());
  return records.back();
}

TEST(EnsflowProgram, RecordOfATwoClusterRunHoldsTheCommonFieldsAndThePhases) {
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  const auto r = run_command(mpirun(4) + bin("mcb-ensflow") + kSmall +
                             " --clusters 2 --seed 9 --truth-seed 5 --run-id t-1-r1 --campaign t"
                             " --output " +
                             quote(out));
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 1u) << r.out << r.err;
  const json& rec = records[0];
  expect_consistent_verdict(r.exit_code, rec);
  EXPECT_NE(r.out.find(r.exit_code == 0 ? "VALID  figure of merit" : "INVALID  figure of merit"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("member-days/s"), std::string::npos);
  EXPECT_EQ(rec["schema"], "mcb-run/2");
  EXPECT_EQ(rec["run_id"], "t-1-r1");
  EXPECT_EQ(rec["campaign"], "t");
  EXPECT_EQ(rec["app"], "ensflow");

  const json& config = rec["config"];
  EXPECT_EQ(config["problem"], "m12-d4-g15");
  EXPECT_EQ(config["total_size"], 4);
  EXPECT_EQ(config["components"], 2);
  EXPECT_EQ(config["cluster_map"], json({0, 0, 1, 1}));
  EXPECT_EQ(config["system"], "local");
  EXPECT_EQ(config["seed"], 9);
  EXPECT_EQ(config["truth_seed"], 5);
  EXPECT_EQ(config["members"], 12);
  EXPECT_EQ(config["members_per_process"], 3);
  EXPECT_EQ(config["days"], 4);
  EXPECT_EQ(config["analysis_every"], 2);
  EXPECT_EQ(config["grid"], 15);
  EXPECT_EQ(config["observations"], 30);
  EXPECT_EQ(config["filter"], "stochastic");
  EXPECT_TRUE(config.contains("wan"));
  for (const char* key : {"viscosity", "steps_per_day", "time_step_s", "basin_km", "beta"}) {
    EXPECT_TRUE(config["model"].contains(key)) << key;
  }
  for (const char* key :
       {"host", "hosts", "mpi", "compiler", "build_type", "revision", "date", "command_line"}) {
    EXPECT_TRUE(rec["env"].contains(key)) << key;
  }

  const json& result = rec["result"];
  EXPECT_GT(result["wall_time"].get<double>(), 0);
  for (const char* key : {"compute_time", "comm_time", "analysis_time"}) {
    for (const char* stat : {"min", "avg", "max"}) EXPECT_TRUE(result[key].contains(stat)) << key;
  }
  for (const char* phase :
       {"forecast", "observe", "transform", "apply", "restore", "gather", "transpose", "update"}) {
    EXPECT_TRUE(result["phase_times"].contains(phase)) << phase;
  }
  EXPECT_EQ(result["analyses"], 2);
  EXPECT_GE(result["comm_time_paper"].get<double>(), 0);

  const json& verdict = rec["verdict"];
  EXPECT_EQ(verdict["figure_of_merit"]["unit"], "member-days/s");
  ASSERT_EQ(verdict["analyses"].size(), 2u);
  for (const auto& a : verdict["analyses"]) {
    EXPECT_TRUE(a["improved"].is_boolean());  // not worse than the forecast beyond the margin
    EXPECT_GT(a["analysis"]["spread"].get<double>(), 0);
  }
  // Every statistical check is recorded with its value, band and outcome (its value in its band).
  for (const char* check : {"spread_skill_forecast", "spread_skill_analysis", "chi_square",
                            "error_consistency", "rank_outer_ratio"}) {
    ASSERT_TRUE(verdict["checks"].contains(check)) << check;
    const json& c = verdict["checks"][check];
    ASSERT_EQ(c["band"].size(), 2u) << check;
    EXPECT_EQ(c["pass"].get<bool>(), c["value"] >= c["band"][0] && c["value"] <= c["band"][1])
        << check;
  }
  ASSERT_EQ(result["innovations"].size(), 2u);
  for (const auto& i : result["innovations"]) {
    long total = 0;
    for (const auto& c : i["rank_histogram"]) total += c.get<long>();
    EXPECT_EQ(total, 30);                        // one rank per observation
    EXPECT_EQ(i["rank_histogram"].size(), 13u);  // M + 1 bins
    EXPECT_GT(i["chi_square"].get<double>(), 0);
  }
  EXPECT_EQ(rec["config"]["localisation_km"], 250.0);
  EXPECT_EQ(rec["config"]["model"]["walls"], "no-slip");
  EXPECT_LT(verdict["final"]["rmse"].get<double>(), verdict["free_final"]["rmse"].get<double>());

  ASSERT_EQ(rec["ranks"].size(), 4u);
  for (int rank = 0; rank < 4; ++rank) {
    const json& entry = rec["ranks"][static_cast<size_t>(rank)];
    EXPECT_EQ(entry["rank"], rank);
    EXPECT_EQ(entry["cluster"], rank < 2 ? 0 : 1);
    EXPECT_EQ(entry["members"], json({3 * rank, 3 * rank + 3}));
    ASSERT_EQ(entry["channels"].size(), 4u) << "channels are the analysis phases only";
    for (const char* ch : {"gather", "transpose", "update"}) {
      // Every rank has two peers in the other cluster: each phase crosses the wide-area link.
      EXPECT_GT(entry["channels"][ch]["sent"]["inter"]["bytes"].get<long>(), 0) << ch;
      EXPECT_GT(entry["channels"][ch]["sent"]["intra"]["bytes"].get<long>(), 0) << ch;
    }
  }
}

TEST(EnsflowProgram, TrafficComesOnlyWithAnalysesInBothClusterClasses) {
  // Four days with analyses every 2 days and every 4 days: if the members' evolution sent
  // anything, the books could not be exactly twice those of the one-analysis run.
  TempDir dir;
  const json two =
      run_one(4, "--clusters 2 --analysis-every 2 --spinup-days 5", dir / "a.jsonl", kSmallBase);
  const json one =
      run_one(4, "--clusters 2 --analysis-every 4 --spinup-days 5", dir / "b.jsonl", kSmallBase);
  ASSERT_EQ(two["result"]["analyses"], 2);
  ASSERT_EQ(one["result"]["analyses"], 1);
  for (int rank = 0; rank < 4; ++rank) {
    const json& a = two["ranks"][static_cast<size_t>(rank)]["channels"];
    const json& b = one["ranks"][static_cast<size_t>(rank)]["channels"];
    for (const char* ch : {"gather", "transpose", "update"}) {
      for (const char* dir_name : {"sent", "received"}) {
        for (const char* cls : {"intra", "inter"}) {
          for (const char* what : {"messages", "bytes"}) {
            EXPECT_EQ(a[ch][dir_name][cls][what].get<long>(),
                      2 * b[ch][dir_name][cls][what].get<long>())
                << "rank " << rank << " " << ch << " " << dir_name << " " << cls << " " << what;
          }
        }
      }
    }
  }
}

TEST(EnsflowProgram, EveryProcessCountReportsTheSameErrors) {
  TempDir dir;
  json first;
  for (int ranks : {1, 2, 4}) {
    const std::string file = std::to_string(ranks) + "-processes.jsonl";
    const json rec = run_one(ranks, "--filter sqrt --quiet", dir / file);
    if (first.is_null()) {
      first = rec;
      continue;
    }
    // Bit-identical, so compared as exact JSON numbers, and so judged alike.
    EXPECT_EQ(rec["result"]["diagnostics"], first["result"]["diagnostics"])
        << ranks << " processes";
    EXPECT_EQ(rec["verdict"]["checks"], first["verdict"]["checks"]) << ranks << " processes";
  }
}

TEST(EnsflowProgram, TheSeedsARecordCarriesRepeatItsRunBitForBit) {
  TempDir dir;
  const json first = run_one(2, "--seed 7 --truth-seed 8 --spinup-seed 9 --quiet", dir / "a.jsonl");
  const json& c = first["config"];
  ASSERT_EQ(c["seed"], 7);
  ASSERT_EQ(c["truth_seed"], 8);
  ASSERT_EQ(c["spinup_seed"], 9);
  // Again from the record alone, in another process.
  const json again =
      run_one(2,
              "--seed " + c["seed"].dump() + " --truth-seed " + c["truth_seed"].dump() +
                  " --spinup-seed " + c["spinup_seed"].dump() + " --quiet",
              dir / "b.jsonl");
  EXPECT_EQ(again["result"]["diagnostics"], first["result"]["diagnostics"]);
  EXPECT_EQ(again["result"]["innovations"], first["result"]["innovations"]);
  EXPECT_EQ(again["verdict"]["checks"], first["verdict"]["checks"]);
  // Another member seed draws another ensemble.
  const json other = run_one(2, "--seed 6 --truth-seed 8 --spinup-seed 9 --quiet", dir / "c.jsonl");
  EXPECT_NE(other["result"]["diagnostics"], first["result"]["diagnostics"]);
}

TEST(EnsflowProgram, TheLocalAnalysisExchangesAHaloInsteadOfGatheringAndAnalysesTheSame) {
  TempDir dir;
  const json regional = run_one(4, "--clusters 2 --filter sqrt --quiet", dir / "r.jsonl");
  const json gathered =
      run_one(4, "--clusters 2 --filter sqrt --analysis-layout gathered --quiet", dir / "g.jsonl");
  EXPECT_EQ(regional["status"], gathered["status"]);
  EXPECT_EQ(regional["config"]["analysis_layout"], "regional");
  EXPECT_EQ(regional["config"]["analysis_layout_option"], "auto");
  EXPECT_EQ(gathered["config"]["analysis_layout"], "gathered");
  long halo = 0;
  for (int rank = 0; rank < 4; ++rank) {
    const json& r = regional["ranks"][static_cast<size_t>(rank)];
    const json& g = gathered["ranks"][static_cast<size_t>(rank)]["channels"];
    for (const char* cls : {"intra", "inter"}) {
      EXPECT_EQ(r["channels"]["gather"]["sent"][cls]["bytes"].get<long>(), 0);
      EXPECT_EQ(g["halo"]["sent"][cls]["bytes"].get<long>(), 0);
      halo += r["channels"]["halo"]["sent"][cls]["bytes"].get<long>();
    }
    EXPECT_EQ(r["grid_rows"].size(), 2u);
  }
  EXPECT_GT(halo, 0);
  // The same analysis; error and spread are summed over other blocks, so equal to round-off.
  const json& a = regional["result"]["diagnostics"];
  const json& b = gathered["result"]["diagnostics"];
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    for (const char* key : {"rmse", "spread"}) {
      const double x = a[k][key].get<double>(), y = b[k][key].get<double>();
      EXPECT_NEAR(x, y, 1e-12 * y) << k << " " << key;
    }
  }
}

TEST(EnsflowProgram, AnEmulatedWideAreaIsRecordedAndLeavesTheResultUnchanged) {
  TempDir dir;
  const json local = run_one(4, "--clusters 2 --quiet", dir / "local.jsonl");
  const json wan = run_one(4, "--clusters 2 --quiet --wan-latency 2ms --wan-bandwidth 100Mbit/s",
                           dir / "wan.jsonl");
  EXPECT_TRUE(local["config"]["wan"].is_null());
  EXPECT_EQ(local["config"]["system"], "local");
  ASSERT_TRUE(wan["config"]["wan"].is_object());
  EXPECT_EQ(wan["config"]["wan"]["latency"], 0.002);
  EXPECT_EQ(wan["config"]["system"], "emulated-100Mbit-2ms");
  EXPECT_EQ(wan["status"], local["status"]);
  EXPECT_EQ(wan["result"]["diagnostics"], local["result"]["diagnostics"]);
  EXPECT_EQ(wan["ranks"][0]["channels"]["transpose"]["sent"],
            local["ranks"][0]["channels"]["transpose"]["sent"]);
}

TEST(EnsflowProgram, WithoutTheFreeRunTheVerdictChecksTheAnalysesOnly) {
  TempDir dir;
  const json rec = run_one(2, "--no-free-run --quiet", dir / "runs.jsonl");
  EXPECT_EQ(rec["config"]["free_run"], false);
  EXPECT_EQ(rec["verdict"]["free_run"], false);
  EXPECT_TRUE(rec["verdict"]["free_final"]["rmse"].is_null());
  EXPECT_EQ(rec["result"]["free_run_time"], 0.0);
}

TEST(EnsflowProgram, ADivergingModelIsInvalidAndRecordedAsSuch) {
  // One time step per day under a strong wind on a shallow layer breaks the advective
  // stability limit many times over.
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  const auto r = run_command(mpirun(2) + bin("mcb-ensflow") + kSmallBase +
                             " --analysis-every 2"
                             " --steps-per-day 1 --wind-stress 2 --depth 50 --spinup-days 20"
                             " --output " +
                             quote(out));
  expect_invalid_run(r, out, "non-finite");
}

class EnsflowBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(EnsflowBadInput, ExitsWithCodeTwoAndOneLineAndNoRecord) {
  expect_usage_error("mcb-ensflow", GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, EnsflowBadInput,
    ::testing::Values(
        BadInput{"4|--members 6",
                 "--members: '6' is not divisible by the 4 processes of this run; valid process "
                 "counts: 1 2 3 6"},
        BadInput{"7|",
                 "--members: '60' is not divisible by the 7 processes of this run; valid process "
                 "counts: 1 2 3 4 5 6 10 12 15 20 30 60"},
        BadInput{"1|--members 0", "--members: '0' must be positive"},
        BadInput{"1|--members=-3", "--members: '-3' must be positive"},
        BadInput{"1|--members 1", "--members: '1' must be at least 2"},
        BadInput{"1|--days 0", "--days: '0' must be positive"},
        BadInput{"1|--days=-2", "--days: '-2' must be positive"},
        BadInput{"1|--grid 0", "--grid: '0' must be positive"},
        BadInput{"1|--grid=-15", "--grid: '-15' must be positive"},
        BadInput{"1|--observations 0", "--observations: '0' must be positive"},
        BadInput{"1|--observations=-5", "--observations: '-5' must be positive"},
        BadInput{"1|--grid 15 --observations 300", "--observations: '300' exceeds the 225 points"},
        BadInput{"1|--analysis-every 0", "--analysis-every: '0' must be positive"},
        BadInput{"1|--days 5 --analysis-every 10", "--analysis-every: '10' exceeds --days 5"},
        BadInput{"1|--filter ensrf", "--filter: 'ensrf'"},
        BadInput{"1|--obs-variance 0", "--obs-variance: '0' must be positive"},
        BadInput{"1|--inflation 0.9", "--inflation: '0.9' must be at least 1"},
        BadInput{"1|--latitude 0", "--latitude: '0'"},
        BadInput{"1|--localisation=-5", "--localisation: '-5' must be at least 0"},
        BadInput{"1|--relaxation 1.5", "--relaxation: '1.5' must lie between 0 and 1"},
        BadInput{"1|--walls sticky", "--walls: 'sticky' is not one of no-slip, free-slip"},
        BadInput{"1|--analysis-layout bands", "--analysis-layout: 'bands' is not one of auto"},
        BadInput{"1|--analysis-layout regional",
                 "--analysis-layout: 'regional' needs the local analysis"},
        BadInput{"1|--analysis-layout regional --filter sqrt --localisation 0",
                 "--analysis-layout: 'regional' needs the local analysis"},
        BadInput{"4|--analysis-layout regional --filter sqrt --grid 3 --observations 5",
                 "--analysis-layout: 'regional' needs at most one process per grid row"},
        BadInput{"1|--steps-per-day 0", "--steps-per-day: '0'"},
        BadInput{"1|--viscosity fast", "--viscosity: 'fast'"},
        BadInput{"4|--members 12 --clusters 3", "--clusters: '3' does not divide the 4 processes"},
        BadInput{"2|--frobnicate 3", "--frobnicate"}, BadInput{"2|--members abc", "'abc'"},
        BadInput{"1|--output /nonexistent-dir/runs.jsonl",
                 "--output: cannot write '/nonexistent-dir/runs.jsonl'"}));

TEST(EnsflowProgram, HelpListsTheOptions) {
  const auto r = run_command(bin("mcb-ensflow") + " --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--members", "--days", "--analysis-every", "--grid", "--observations",
                             "--obs-variance", "--filter", "--truth-seed", "--clusters",
                             "--cluster-map", "--output", "--seed", "--config", "--system"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
}

TEST(EnsflowProgram, ConfigFileSuppliesOptionsAndCommandLineWins) {
  TempDir dir;
  const std::string ini = dir / "run.ini";
  std::ofstream(ini) << "members = 12\ndays = 4\nanalysis-every = 2\ngrid = 15\nobservations = 30\n"
                        "spinup-days = 5\ninitial-length = 300\nseed = 5\nsystem = lab\n"
                        "deformation-radius = 0\n";
  const std::string out = dir / "runs.jsonl";
  const auto r = run_command(mpirun(1) + bin("mcb-ensflow") + " --config " + quote(ini) +
                             " --seed 6 --quiet --no-free-run --output " + quote(out));
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 1u) << r.out << r.err;
  expect_consistent_verdict(r.exit_code, records[0]);
  EXPECT_EQ(records[0]["config"]["problem"], "m12-d4-g15");
  EXPECT_EQ(records[0]["config"]["seed"], 6);
  EXPECT_EQ(records[0]["config"]["system"], "lab");
}

}  // namespace
}  // namespace mcb::testing
