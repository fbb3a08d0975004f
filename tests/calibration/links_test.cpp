// mcb-links as a user runs it, on emulated wide-area links: what its record holds, the OSU-style
// table, the link classes, the shared-link and relay studies, and bad input. Times measured on a
// live host are checked only in the direction a busy host cannot break (a message never crosses
// the emulated link in less than its latency + bytes / bandwidth); what the emulation books is
// checked by the link clock's account in wan_mpi_test, and how close this host delivers it is
// the program's own verdict (emulated_link), which must agree with its record.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "calibration/links/link_fit.hpp"
#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

namespace mcb::testing {
namespace {

using nlohmann::json;

const char* const kOverloaded =
    "the emulated cross-cluster link measured more than 10% off its parameters (an overloaded "
    "host?)";

json run_links(int ranks, const std::string& args, const TempDir& dir) {
  const std::string out = dir / "runs.jsonl";
  std::remove(out.c_str());
  const auto r = run_command(mpirun(ranks) + bin("mcb-links") + " " + args +
                             " --counters '' --output " + quote(out));
  // VALID (0) or INVALID (1): a busy host may deliver the emulated link late.
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << args << "\n" << r.out << r.err;
  const auto records = read_records(out);
  EXPECT_EQ(records.size(), 1u) << args;
  return records.empty() ? json() : records[0];
}

// A VALID record, or an INVALID one for the one reason a busy host gives: the emulated link
// measured off its parameters, as its own check says.
void expect_valid_unless_late(const json& rec) {
  const json& check = rec["verdict"]["checks"]["emulated_link"];
  if (rec["status"] == "valid") return;
  EXPECT_EQ(rec.value("reason", ""), kOverloaded) << rec["verdict"].dump();
  EXPECT_FALSE(check.is_null()) << rec["verdict"].dump();
}

// The record's fit of the best repetitions is the T0 + N / B fit of its own points.
void expect_fit_of_points(const json& cls) {
  std::vector<double> bytes;
  std::vector<double> seconds;
  for (const json& p : cls["points"]) {
    bytes.push_back(p["bytes"].get<double>());
    seconds.push_back(p["min"].get<double>());
  }
  const links::LinkFit fit = links::fit_link(bytes, seconds);
  const json& best = cls["fit_min"];
  EXPECT_NEAR(best["t0"].get<double>(), fit.t0, 1e-9 + 1e-9 * std::fabs(fit.t0)) << best.dump();
  EXPECT_NEAR(best["bandwidth"].get<double>(), fit.bandwidth / 1e6, 1e-9 * fit.bandwidth / 1e6)
      << best.dump();
}

TEST(Links, TheFitRecoversTheEmulatedLink) {
  TempDir dir;
  const double latency = 20e-3;
  const double bandwidth = 20e6;
  const json rec = run_links(2,
                             "--clusters 2 --wan-latency 20ms --wan-bandwidth 160Mbit/s "
                             "--sizes 1,64KiB,256KiB,1MiB,2MiB --repetitions 3 --max-time 30ms "
                             "--window-bytes 256KiB",
                             dir);
  ASSERT_FALSE(rec.is_null());
  EXPECT_EQ(rec["app"], "links");
  EXPECT_EQ(rec["config"]["system"], "emulated-160Mbit-20ms");
  EXPECT_EQ(rec["config"]["sizes"], json({1, 65536, 262144, 1048576, 2097152}));
  const json& classes = rec["result"]["classes"];
  ASSERT_EQ(classes.size(), 1u) << classes.dump();  // two ranks, two clusters: one class
  const json& cross = classes["cross_cluster"];
  EXPECT_EQ(cross["pairs"], json({{0, 1}}));
  ASSERT_EQ(cross["points"].size(), 5u);
  for (const json& p : cross["points"]) {
    EXPECT_LE(p["min"].get<double>(), p["avg"].get<double>());
    EXPECT_LE(p["avg"].get<double>(), p["max"].get<double>());
    const double least = latency + p["bytes"].get<double>() / bandwidth;
    EXPECT_GE(p["min"].get<double>(), least * 0.999) << p.dump();
    EXPECT_TRUE(p.contains("gap"));
  }
  // The fits are those of the points; exact points of an emulated link give back its latency
  // and bandwidth (the fit's own check, below), and how near this host's points come is the
  // verdict's emulated_link check.
  expect_fit_of_points(cross);
  const json& fit = cross["fit"];
  for (const char* key : {"t0", "bandwidth", "r2", "max_relative_gap"}) {
    EXPECT_TRUE(fit.contains(key)) << key;
  }
  EXPECT_EQ(cross["bandwidth"].size(), 5u);
  EXPECT_EQ(cross["nominal"]["t0"], latency);
  EXPECT_EQ(rec["verdict"]["checks"]["data_verified"], true);
  // VALID exactly when the emulated link was delivered within 10%.
  const json& best = cross["fit_min"];
  const double megabytes = bandwidth / 1e6;  // the record's unit
  const json& check = rec["verdict"]["checks"]["emulated_link"];
  const bool delivered = std::fabs(best["t0"].get<double>() - latency) <= 0.1 * latency &&
                         std::fabs(best["bandwidth"].get<double>() / megabytes - 1) <= 0.1;
  EXPECT_EQ(rec["status"] == "valid", delivered) << check.dump();
}

// The fit mcb-links uses recovers a link from exact points of it: latency + N / B at the sizes
// above, as the emulation books them.
TEST(Links, TheFitOfExactPointsIsTheLink) {
  const double latency = 20e-3;
  const double bandwidth = 20e6;
  std::vector<double> bytes = {1, 65536, 262144, 1048576, 2097152};
  std::vector<double> seconds;
  for (double n : bytes) seconds.push_back(latency + n / bandwidth);
  const links::LinkFit fit = links::fit_link(bytes, seconds);
  EXPECT_NEAR(fit.t0, latency, 1e-9);
  EXPECT_NEAR(fit.bandwidth, bandwidth, 1e-6 * bandwidth);
  EXPECT_LT(fit.max_relative_gap, 1e-9);
}

// The printed table reads as OSU's: a '# Size  Latency (us)  Bandwidth (MB/s)' header, then one
// row of plain numbers per size, the record's averages in us and MB/s.
TEST(Links, PrintsAnOsuStyleTableOfTheRecordsNumbers) {
  TempDir dir;
  const std::string out = dir / "runs.jsonl";
  const auto r =
      run_command(mpirun(2) + bin("mcb-links") +
                  " --sizes 1,4KiB,64KiB --repetitions 2 --counters '' --output " + quote(out));
  ASSERT_EQ(r.exit_code == 0 || r.exit_code == 1, true) << r.out << r.err;
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 1u);
  const json& cls = records[0]["result"]["classes"]["same_node"];
  const auto header = r.out.find("# Size          Latency (us)    Bandwidth (MB/s)\n");
  ASSERT_NE(header, std::string::npos) << r.out;
  std::istringstream rows(r.out.substr(r.out.find('\n', header) + 1));
  for (std::size_t i = 0; i < 3; ++i) {
    std::size_t bytes = 0;
    double latency = 0, bandwidth = 0;
    ASSERT_TRUE(rows >> bytes >> latency >> bandwidth) << r.out;
    EXPECT_EQ(bytes, cls["points"][i]["bytes"].get<std::size_t>());
    EXPECT_NEAR(latency, cls["points"][i]["avg"].get<double>() * 1e6, 0.006);
    EXPECT_NEAR(bandwidth, cls["bandwidth"][i]["avg"].get<double>(), 0.006);  // both MB/s
  }
  EXPECT_NE(r.out.find("figure of merit"), std::string::npos);
  EXPECT_NE(r.out.find(" MB/s (bandwidth of the slowest link class)"), std::string::npos) << r.out;
}

TEST(Links, ClassesSharedLinkAndRelayStudyOnFourRanks) {
  TempDir dir;
  const double bandwidth = 50.0;  // MB/s: 400Mbit/s, as the record writes it
  const json rec = run_links(4,
                             "--clusters 2 --relay --wan-latency 1ms --wan-bandwidth 400Mbit/s "
                             "--sizes 1,4KiB,64KiB,256KiB --repetitions 2 --max-time 20ms "
                             "--window-bytes 256KiB",
                             dir);
  ASSERT_FALSE(rec.is_null());
  expect_valid_unless_late(rec);
  EXPECT_EQ(rec["config"]["system"], "emulated-400Mbit-1ms-relay");
  const json& classes = rec["result"]["classes"];
  EXPECT_TRUE(classes.contains("same_node"));
  EXPECT_TRUE(classes.contains("cross_cluster"));
  EXPECT_FALSE(classes.contains("same_cluster"));  // one host
  EXPECT_EQ(classes["same_node"]["pairs"], json({{0, 1}}));
  EXPECT_EQ(classes["cross_cluster"]["pairs"], json({{0, 2}}));
  expect_fit_of_points(classes["cross_cluster"]);
  // Two transfers across the one link direction, alone and together. Neither pair can get more
  // than the link (the link clock lets no message through faster); how evenly they split it on
  // this host is the study's figure (`share`), not a promise a busy host keeps.
  const json& shared = classes["cross_cluster"]["shared"];
  EXPECT_EQ(shared["pairs"], json({{0, 2}, {1, 3}}));
  ASSERT_EQ(shared["together"].size(), 2u);
  ASSERT_EQ(shared["share"].size(), 2u);
  for (const json* s : {&shared["alone"], &shared["together"][0], &shared["together"][1]}) {
    EXPECT_GT((*s)["min"].get<double>(), 0) << shared.dump();
    EXPECT_LE((*s)["max"].get<double>(), bandwidth * 1.001) << shared.dump();
  }
  // The relay study: every operation, both routes, against the lower bound.
  const json& study = rec["result"]["relay_study"];
  EXPECT_EQ(study["gateways"], json({0, 2}));
  EXPECT_EQ(study["pair"], json({1, 3}));  // not gateways: all three hops
  for (const json* points :
       {&study["point_to_point"], &study["broadcast"]["points"], &study["alltoall"]["points"]}) {
    ASSERT_EQ(points->size(), 4u);
    for (const json& p : *points) {
      for (const char* key : {"direct", "relay"}) {
        // A ping-pong leg crosses the emulated link, whichever route: at least its latency.
        // (The collectives are timed from each rank's own exit from a barrier, which a busy
        // host delays by more than the latency: only that they were timed.)
        const double least = points == &study["point_to_point"] ? 1e-3 * 0.999 : 0.0;
        EXPECT_GT(p[key]["min"].get<double>(), 0) << p.dump();
        EXPECT_GE(p[key]["min"].get<double>(), least) << p.dump();
      }
      EXPECT_GT(p["lower_bound"].get<double>(), 0);
      for (const char* key : {"relay_over_direct", "relay_over_bound", "direct_over_bound"}) {
        EXPECT_TRUE(p.contains(key)) << key;
      }
    }
  }
  EXPECT_EQ(rec["verdict"]["checks"]["data_verified"], true);
}

TEST(Links, BadOptionsNameTheOptionAndValue) {
  expect_usage_error(
      "mcb-links", BadInput{"2|--sizes 1:3KiB", "--sizes: '1:3KiB': '3KiB' is not a power of two"});
  expect_usage_error("mcb-links", BadInput{"2|--wan-latency 1ms --wan-bandwidth 0bit/s",
                                           "--wan-bandwidth: '0bit/s' must be positive"});
}

}  // namespace
}  // namespace mcb::testing
