// The fits recover the coefficients synthetic data was made with; the combined service time
// equals the hand-computed sum; predictions outside the measured range are refused unless asked.
#include "calibration/fits.hpp"
#include "common/errors.hpp"
#include "record_builder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace mcb::calib {
namespace {

using test::as_records;
using test::json;
using test::LinkLaw;
using test::links_record;
using test::pointers;
using test::poisson_record;

TEST(LineFit, RecoversExactLine) {
  const LineFit f = fit_line({1, 2, 3, 4}, {5, 7, 9, 11});
  EXPECT_NEAR(f.intercept, 3.0, 1e-12);
  EXPECT_NEAR(f.slope, 2.0, 1e-12);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_NEAR(f.rmse, 0.0, 1e-12);
  EXPECT_EQ(f.points, 4u);
}

TEST(LineFit, GoodnessOfAnImperfectFitByHand) {
  // y = 0, 1, 1 at x = 0, 1, 2: least squares gives 1/6 + x/2, residuals -1/6, 1/3, -1/6,
  // SS_res = 1/6, SS_tot = 2/3, so r2 = 0.75.
  const LineFit f = fit_line({0, 1, 2}, {0, 1, 1});
  EXPECT_NEAR(f.intercept, 1.0 / 6.0, 1e-12);
  EXPECT_NEAR(f.slope, 0.5, 1e-12);
  EXPECT_NEAR(f.r2, 0.75, 1e-12);
  EXPECT_NEAR(f.rmse, std::sqrt(1.0 / 18.0), 1e-12);
}

TEST(LineFit, NeedsTwoDistinctX) { EXPECT_THROW(fit_line({4, 4}, {1, 2}), std::invalid_argument); }

// compute = a + b / P from runs at five sizes, with +-1% noise that averages out per size.
TEST(ComputeFit, RecoversKnownCoefficients) {
  const double a = 2.5;
  const double b = 40.0;
  std::vector<json> docs;
  int id = 0;
  for (const auto& [h, v] :
       std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {2, 2}, {4, 2}, {4, 4}}) {
    const double p = h * v;
    for (double noise : {0.99, 1.01}) {
      docs.push_back(poisson_record("s-" + std::to_string(++id), h, v, 1, "local", 100.0,
                                    (a + b / p) * noise));
    }
  }
  const auto records = as_records(docs);
  const Models m = fit_models(pointers(records), {}, "runtime-where");
  ASSERT_EQ(m.compute.size(), 1u);
  const ComputeFit& f = m.compute[0];
  EXPECT_NEAR(f.a, a, 0.05);
  EXPECT_NEAR(f.b, b, 0.2);
  EXPECT_GT(f.fit.r2, 0.999);
  EXPECT_LT(f.fit.r2, 1.0);
  EXPECT_EQ(f.p_min, 1);
  EXPECT_EQ(f.p_max, 16);
  EXPECT_EQ(f.sizes, 5u);
  EXPECT_EQ(f.runs, 10u);
}

// Ensflow records carry members_per_process, which changes with P: it must not split the fit.
TEST(ComputeFit, EnsflowSharePerProcessPoolsAcrossSizes) {
  std::vector<json> docs;
  for (const auto& [h, v] : std::vector<std::pair<int, int>>{{2, 1}, {2, 2}, {4, 1}}) {
    json d =
        poisson_record("e-" + std::to_string(h * v), h, v, 1, "local", 50.0, 1.0 + 60.0 / (h * v));
    d["app"] = "ensflow";
    d["config"]["problem"] = "m60-d20-g64";
    d["config"]["members_per_process"] = 60 / (h * v);
    for (const char* poisson_only : {"procs", "h", "v", "halo", "sync"})
      d["config"].erase(poisson_only);
    docs.push_back(d);
  }
  const auto records = as_records(docs);
  const Models m = fit_models(pointers(records), {}, "runtime-where");
  ASSERT_EQ(m.compute.size(), 1u);
  EXPECT_EQ(m.compute[0].app, "ensflow");
  EXPECT_NEAR(m.compute[0].a, 1.0, 1e-9);
  EXPECT_NEAR(m.compute[0].b, 60.0, 1e-9);
}

// Emulated runs list one link per cluster pair in config.wan.links, so the list follows the
// cluster count (a size key): runs on 1, 2 and 4 clusters still fit together; a different
// latency does not.
TEST(ComputeFit, EmulatedLinksPerClusterPairDoNotSplitTheFit) {
  std::vector<json> docs;
  for (int clusters : {1, 2, 4}) {
    json d = poisson_record("w-" + std::to_string(clusters), 4, 1, clusters, "emulated-100Mbit-1ms",
                            50.0, 1.0 + 8.0 / 4);
    json links = json::array();
    for (int a = 0; a < clusters; ++a) {
      for (int b = a + 1; b < clusters; ++b)
        links.push_back({{"clusters", {a, b}}, {"latency", 0.001}});
    }
    d["config"]["wan"] = {{"latency", 0.001}, {"bandwidth", 12.5e6}, {"links", links}};
    docs.push_back(d);
  }
  json two = poisson_record("w-8", 8, 1, 1, "emulated-100Mbit-1ms", 50.0, 1.0 + 8.0 / 8);
  two["config"]["wan"] = {{"latency", 0.001}, {"bandwidth", 12.5e6}, {"links", json::array()}};
  docs.push_back(two);
  const auto records = as_records(docs);
  const Models m = fit_models(pointers(records), {}, "runtime-where");
  ASSERT_EQ(m.compute.size(), 1u);
  EXPECT_NEAR(m.compute[0].a, 1.0, 1e-9);
  EXPECT_NEAR(m.compute[0].b, 8.0, 1e-9);

  docs.back()["config"]["wan"]["latency"] = 0.002;
  const auto differing = as_records(docs);
  EXPECT_THROW(fit_models(pointers(differing), {}, "runtime-where"), UsageError);
}

// Runs at different sizes that also differ in configuration would fit a line through two
// experiments: refused, naming the field.
TEST(ComputeFit, RunsDifferingInConfigurationAreNotFittedTogether) {
  json reference = poisson_record("k-2", 2, 2, 1, "local", 9, 3);
  reference["config"]["kernel"] = "reference";
  const auto records = as_records({poisson_record("k-1", 2, 1, 1, "local", 9, 5), reference});
  try {
    fit_models(pointers(records), {}, "runtime-where");
    ADD_FAILURE() << "fitted across kernels";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("compute fit row poisson,64x64,local: runs differ in "
                                         "config.kernel"),
              std::string::npos)
        << e.what();
  }
}

TEST(ComputeFit, OneSizeIsSkippedWithAReason) {
  const auto records = as_records({poisson_record("o-1", 2, 2, 1, "local", 9, 3),
                                   poisson_record("o-2", 2, 2, 2, "local", 9, 3)});
  const Models m = fit_models(pointers(records), {}, "runtime-where");
  EXPECT_TRUE(m.compute.empty());
  ASSERT_EQ(m.skipped.size(), 1u);
  EXPECT_NE(m.skipped[0].reason.find("one total size"), std::string::npos);
}

// T(N) = t0 + N / B on a DAS-2-like wide-area link and a fast local one, pooled over two runs
// with different size lists.
TEST(LinkFit, RecoversLatencyAndBandwidthPerClass) {
  const std::map<std::string, LinkLaw> laws = {{"cross_cluster", {5e-5, 1.25e7}},
                                               {"same_node", {1e-6, 8e9}}};
  const auto records =
      as_records({links_record("l-1", "emu", {1, 8, 64, 512, 4096, 32768, 262144}, laws),
                  links_record("l-2", "emu", {2, 16, 128, 1024, 1048576, 4194304}, laws)});
  const Models m = fit_models({}, pointers(records), "runtime-where");
  ASSERT_EQ(m.links.size(), 2u);
  for (const LinkFit& f : m.links) {
    const LinkLaw law = laws.at(f.link_class);
    EXPECT_NEAR(f.t0 / law.t0, 1.0, 1e-9) << f.link_class;
    EXPECT_NEAR(f.bandwidth / law.bandwidth, 1.0, 1e-9) << f.link_class;
    EXPECT_TRUE(f.usable);
    EXPECT_EQ(f.runs, 2u);
    EXPECT_EQ(f.fit.points, 13u);
    EXPECT_DOUBLE_EQ(f.bytes_min, 1);
    EXPECT_DOUBLE_EQ(f.bytes_max, 4194304);
    EXPECT_EQ(f.system, "emu");
  }
}

TEST(LinkFit, WithNoiseStaysWithinTenPercent) {
  const std::vector<double> sizes = {1, 16, 256, 4096, 65536, 1048576};
  const std::vector<double> noise = {1.03, 0.98, 1.02, 0.97, 1.01, 0.99};
  const auto records =
      as_records({links_record("n-1", "emu", sizes, {{"cross_cluster", {1e-3, 1.25e7}}}, noise)});
  const Models m = fit_models({}, pointers(records), "runtime-where");
  ASSERT_EQ(m.links.size(), 1u);
  EXPECT_NEAR(m.links[0].t0, 1e-3, 1e-4);
  EXPECT_NEAR(m.links[0].bandwidth, 1.25e7, 1.25e6);
  EXPECT_GT(m.links[0].fit.max_relative_gap, 0.0);
  EXPECT_LT(m.links[0].fit.max_relative_gap, 0.05);
}

TEST(LinkFit, TimeThatFallsWithSizeIsNotUsable) {
  auto doc = links_record("u-1", "emu", {1, 1024}, {{"same_node", {1e-6, 1e9}}});
  doc["result"]["classes"]["same_node"]["points"][1]["avg"] = 1e-7;
  const auto records = as_records({doc});
  const Models m = fit_models({}, pointers(records), "runtime-where");
  ASSERT_EQ(m.links.size(), 1u);
  EXPECT_FALSE(m.links[0].usable);
  EXPECT_FALSE(m.skipped.empty());
}

// Runs at P = 2 and 4 on system "emu" (compute = 1 + 8 / P), link laws for it, and traffic of
// an 8-process run measured elsewhere.
struct ServiceSetup {
  std::vector<Record> records;
  Models models;
  ServiceSetup() {
    records =
        as_records({poisson_record("p-1", 2, 1, 1, "emu", 6.0, 5.0),
                    poisson_record("p-2", 2, 2, 2, "emu", 3.5, 3.0),
                    poisson_record("p-3", 4, 2, 2, "local", 2.0, 2.0),
                    links_record("k-1", "emu", {1, 64, 4096},
                                 {{"same_node", {2e-6, 5e9}}, {"cross_cluster", {1e-4, 1.25e7}}})});
    std::vector<const Record*> apps = {&records[0], &records[1], &records[2]};
    models = fit_models(apps, {&records[3]}, "runtime-where");
  }
};

TEST(ServiceTime, IsComputeFitPlusBusiestRankOnTheLinkModels) {
  ServiceSetup s;
  RuntimeRow measured{"poisson", "64x64", 4, 2, "emu", Summary{1, 3.5, 3.5, 3.5, 3.5, {}}};
  std::string refusal;
  const auto p = predict({"poisson", "64x64", 4, 2, "emu"}, s.models, {measured}, false, refusal);
  ASSERT_TRUE(p) << refusal;
  // Every rank of the 2x2 grid in two strips receives 100 messages of 32 * 8 = 256 bytes from
  // its own cluster (top or bottom) and 100 from the other cluster (left or right):
  // 100 * 2e-6 + 25600 / 5e9 + 100 * 1e-4 + 25600 / 1.25e7 = 0.01225312 s.
  EXPECT_NEAR(p->compute, 1.0 + 8.0 / 4.0, 1e-9);
  EXPECT_NEAR(p->comm, 0.01225312, 1e-12);
  EXPECT_NEAR(p->service, 3.01225312, 1e-9);
  EXPECT_EQ(p->intra_class, "same_node");
  EXPECT_EQ(p->inter_class, "cross_cluster");
  EXPECT_FALSE(p->extrapolated);
  ASSERT_TRUE(p->measured);
  EXPECT_DOUBLE_EQ(p->measured->avg, 3.5);
}

TEST(ServiceTime, OutsideTheMeasuredSizesIsRefusedUnlessAsked) {
  ServiceSetup s;
  std::string refusal;
  const Target eight{"poisson", "64x64", 8, 2, "emu"};
  EXPECT_FALSE(predict(eight, s.models, {}, false, refusal));
  EXPECT_NE(refusal.find("total size 8 outside the measured 2..4"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("--extrapolate"), std::string::npos);
  const auto p = predict(eight, s.models, {}, true, refusal);
  ASSERT_TRUE(p) << refusal;
  EXPECT_TRUE(p->extrapolated);
  EXPECT_NEAR(p->compute, 2.0, 1e-9);
}

TEST(ServiceTime, MessageSizesOutsideTheLinkRangeAreRefusedUnlessAsked) {
  ServiceSetup s;
  for (LinkFit& f : s.models.links) f.bytes_max = 100;  // pretend only small messages were measured
  std::string refusal;
  EXPECT_FALSE(predict({"poisson", "64x64", 4, 2, "emu"}, s.models, {}, false, refusal));
  EXPECT_NE(refusal.find("message sizes"), std::string::npos) << refusal;
  EXPECT_TRUE(predict({"poisson", "64x64", 4, 2, "emu"}, s.models, {}, true, refusal));
}

TEST(ServiceTime, MissingModelsAreNamed) {
  ServiceSetup s;
  std::string refusal;
  EXPECT_FALSE(predict({"poisson", "64x64", 16, 2, "emu"}, s.models, {}, true, refusal));
  EXPECT_NE(refusal.find("no run of poisson,64x64 with 16 processes"), std::string::npos);
  EXPECT_FALSE(predict({"poisson", "64x64", 4, 2, "das"}, s.models, {}, true, refusal));
  EXPECT_NE(refusal.find("no compute fit"), std::string::npos);
  s.models.links.erase(
      std::remove_if(s.models.links.begin(), s.models.links.end(),
                     [](const LinkFit& f) { return f.link_class == "cross_cluster"; }),
      s.models.links.end());
  EXPECT_FALSE(predict({"poisson", "64x64", 4, 2, "emu"}, s.models, {}, true, refusal));
  EXPECT_NE(refusal.find("inter-cluster"), std::string::npos) << refusal;
  // A single-cluster run needs no cross-cluster link.
  EXPECT_TRUE(predict({"poisson", "64x64", 2, 1, "emu"}, s.models, {}, false, refusal)) << refusal;
}

TEST(ServiceTime, PredictAllSkipsWhatIsOutOfRange) {
  ServiceSetup s;
  std::vector<Skipped> skipped;
  const auto all = predict_all(s.models, {}, false, skipped);
  EXPECT_EQ(all.size(), 2u);      // P = 2 and P = 4 on emu
  ASSERT_EQ(skipped.size(), 1u);  // P = 8, traffic from "local", is outside 2..4
  EXPECT_NE(skipped[0].what.find("poisson,64x64,8,2,emu"), std::string::npos);
  EXPECT_EQ(predict_all(s.models, {}, true, skipped).size(), 3u);
}

TEST(Targets, ParseAndRefuse) {
  const Target t = parse_target("predict", "poisson,64x64,8,2,local");
  EXPECT_EQ(t.total_size, 8);
  EXPECT_EQ(t.components, 2);
  EXPECT_THROW(parse_target("predict", "poisson,64x64,8,2"), UsageError);
  EXPECT_THROW(parse_target("predict", "poisson,64x64,eight,2,local"), UsageError);
  EXPECT_THROW(parse_target("predict", "poisson,64x64,2,4,local"), UsageError);
}

}  // namespace
}  // namespace mcb::calib
