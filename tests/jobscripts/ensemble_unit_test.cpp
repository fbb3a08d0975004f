// mcb-ensemble's parts that need no batch system: the coordinator's choice of queue by
// predicted time (a + b/P per model day, the restart file's transfer, the pilot's time left)
// and the spec's one-line refusals.
#include "common/compute_fits.hpp"
#include "common/errors.hpp"
#include "jobscripts/ensemble_coordinator.hpp"
#include "jobscripts/ensemble_mapping.hpp"
#include "jobscripts/ensemble_spec.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace {

using namespace mcb::campaign;
namespace fs = std::filesystem;

EnsembleQueue queue(const std::string& name, int processors, double limit, double b) {
  EnsembleQueue q;
  q.name = name;
  q.processors = processors;
  q.time_limit = limit;
  q.b = b;
  return q;
}

// Two queues: small (2 processors, 1 s a day) and large (4 processors, 0.5 s a day), both
// started at time 0, the run at day 6 with its restart file on small's site.
struct Setting {
  EnsembleSpec spec;
  EnsembleState state;
  Setting() {
    spec.horizon = 20;
    spec.checkpoint_every = 4;
    spec.queues = {queue("small", 2, 600, 2), queue("large", 4, 600, 2)};
    state.day = 6;
    state.site = "small";
    for (const char* name : {"small", "large"}) {
      EnsemblePilot p;
      p.queue = name;
      p.tag = std::string(name) + "-1";
      p.job = "1";
      p.started = 0;
      state.pilots[p.tag] = p;
      state.current[name] = p.tag;
    }
  }
};

TEST(EnsembleChoice, TheFasterActiveQueueWinsWhenTheTransferIsCheap) {
  Setting s;
  s.spec.link_bandwidth = 12.5e6;  // 100 Mbit/s
  s.spec.link_latency = 0.005;
  const SegmentChoice c = choose_queue(s.spec, s.state, {"small", "large"}, 1.25e6, 10);
  ASSERT_NE(c.queue, nullptr);
  EXPECT_EQ(c.queue->name, "large");
  EXPECT_EQ(c.days, 4);
  EXPECT_DOUBLE_EQ(c.transfer, 0.105);  // 5 ms + 1.25 MB at 12.5 MB/s
  EXPECT_DOUBLE_EQ(c.predicted, 2.105);
  // Only small active: it is the choice, with no transfer.
  const SegmentChoice alone = choose_queue(s.spec, s.state, {"small"}, 1.25e6, 10);
  ASSERT_NE(alone.queue, nullptr);
  EXPECT_EQ(alone.queue->name, "small");
  EXPECT_DOUBLE_EQ(alone.transfer, 0);
}

TEST(EnsembleChoice, ASlowLinkKeepsTheRunWhereItsRestartFileIs) {
  Setting s;
  s.spec.link_bandwidth = 1e5;  // 1.25 MB takes 12.5 s: more than the 2 s large would save
  const SegmentChoice c = choose_queue(s.spec, s.state, {"small", "large"}, 1.25e6, 10);
  ASSERT_NE(c.queue, nullptr);
  EXPECT_EQ(c.queue->name, "small");
}

TEST(EnsembleChoice, ASegmentIsCutToThePilotsTimeLeftAndAFullPilotIsSkipped) {
  Setting s;
  s.spec.queues[1].time_limit = 11.5;  // large: 1.5 s left at time 10, three model days
  SegmentChoice c = choose_queue(s.spec, s.state, {"small", "large"}, 0, 10);
  ASSERT_NE(c.queue, nullptr);
  EXPECT_EQ(c.queue->name, "large");
  EXPECT_EQ(c.days, 3);
  s.spec.queues[1].time_limit = 10.4;  // not one day left on large
  s.spec.queues[0].time_limit = 10.4;
  c = choose_queue(s.spec, s.state, {"small", "large"}, 0, 10);
  EXPECT_EQ(c.queue, nullptr);
  // The last segment ends at the horizon.
  s.spec.queues[0].time_limit = 600;
  s.state.day = 18;
  c = choose_queue(s.spec, s.state, {"small"}, 0, 10);
  ASSERT_NE(c.queue, nullptr);
  EXPECT_EQ(c.days, 2);
}

// The Setting's run as mcb-ensflow's record gives its shape: 12 members, a 15 x 15 basin of one
// layer, 30 observations, an analysis every 2 days, the gathered layout.
EnsembleShape small_shape() {
  return *shape_of_record({{"config",
                            {{"members", 12},
                             {"observations", 30},
                             {"state_size", 225},
                             {"analysis_every", 2},
                             {"analysis_layout", "gathered"}}}});
}

// The link's analysis traffic is the bytes mcb-ensflow books between clusters: its README
// measured 192,000 (gather) + 2 x 1,905,120 (transpose, update) bytes per analysis at M = 60,
// m = 200, n = 7938 on 2 + 2 processes.
// Setting's run with segment 3 under way on small since time 10: days 7 to 14, 1 s a day as
// predicted, mapped while small alone was active; analyses every 2 days.
EnsembleState running(const Setting& s) {
  EnsembleState state = s.state;
  EnsembleSegment seg;
  seg.n = 3;
  seg.queue = "small";
  seg.tag = "small-1";
  seg.go = 3;
  seg.parts = {{"small", "small-1", 3, 2}};
  seg.from = 6;
  seg.to = 14;
  seg.began = 10;
  seg.per_day = 1;
  seg.active = {"small"};
  state.running = seg;
  state.mapping = {"small"};
  return state;
}

TEST(EnsembleMidSegment, ASecondQueueActiveStopsTheSegmentAtItsNextAnalysis) {
  Setting s;
  s.spec.link_bandwidth = 12.5e6;  // 100 Mbit/s
  s.spec.link_latency = 0.005;
  const EnsembleState state = running(s);
  // 1.5 s in: a day done as predicted, so the next analysis is day 8 and 6 days remain; large
  // does 4 of them (its segment's length) in 2 s plus 0.105 s of transfer against 4 s.
  const auto r = mid_segment_remap(s.spec, state, {"small", "large"}, 2, 1.25e6, 11.5, {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->stop, 8);
  EXPECT_EQ(r->from, std::vector<std::string>{"small"});
  EXPECT_EQ(r->to, std::vector<std::string>{"large"});
  EXPECT_EQ(r->days, 4);
  EXPECT_DOUBLE_EQ(r->stay, 4);
  EXPECT_DOUBLE_EQ(r->move, 2.105);
  // The same run 6.5 s in: its next analysis is its last day, where it remaps anyway.
  EXPECT_FALSE(mid_segment_remap(s.spec, state, {"small", "large"}, 2, 1.25e6, 16.5, {}));
  // Analyses every 10 days: the next one (day 10) still leaves 4 days to gain.
  const auto ten = mid_segment_remap(s.spec, state, {"small", "large"}, 10, 1.25e6, 11.5, {});
  ASSERT_TRUE(ten.has_value());
  EXPECT_EQ(ten->stop, 10);
}

TEST(EnsembleMidSegment, NoRemapWithoutAChangeOrAGainOrTwice) {
  Setting s;
  s.spec.link_bandwidth = 12.5e6;
  EnsembleState state = running(s);
  // The active set the segment was mapped on.
  EXPECT_FALSE(mid_segment_remap(s.spec, state, {"small"}, 2, 1.25e6, 11.5, {}));
  // A slower queue joining changes the set, not the choice.
  s.spec.queues[1].b = 8;  // large: 2 s a day
  EXPECT_FALSE(mid_segment_remap(s.spec, state, {"small", "large"}, 2, 1.25e6, 11.5, {}));
  s.spec.queues[1].b = 2;
  // A slow link: 12.5 s to move the file is more than the 2 s large would save.
  s.spec.link_bandwidth = 1e5;
  EXPECT_FALSE(mid_segment_remap(s.spec, state, {"small", "large"}, 2, 1.25e6, 11.5, {}));
  s.spec.link_bandwidth = 12.5e6;
  // Where it could stop is unknown (no record and no analysis-every yet).
  EXPECT_FALSE(mid_segment_remap(s.spec, state, {"small", "large"}, 0, 1.25e6, 11.5, {}));
  // large's pilot has 0.9 s left now, enough for a day, but 0.4 s at day 8 (time 12, as
  // predicted): too little for a model day there.
  s.spec.queues[1].time_limit = 12.4;
  EXPECT_FALSE(mid_segment_remap(s.spec, state, {"small", "large"}, 2, 1.25e6, 11.5, {}));
  s.spec.queues[1].time_limit = 600;
  // Asked already: its stop file is written.
  state.running->stop_asked = true;
  EXPECT_FALSE(mid_segment_remap(s.spec, state, {"small", "large"}, 2, 1.25e6, 11.5, {}));
}

TEST(EnsembleMidSegment, TheEventLogCarriesTheStopAndTheDayReached) {
  Setting s;
  EnsembleState state = running(s);
  state.apply({{"event", "remap"}, {"n", 3}, {"to_queues", {"large"}}, {"t", 12.0}});
  ASSERT_TRUE(state.running.has_value());
  EXPECT_TRUE(state.running->stop_asked);
  EXPECT_EQ(state.remap_pending, std::vector<std::string>{"large"});
  EXPECT_EQ(state.remaps, 1);
  // Done at day 8, its analysis, though planned to 14.
  state.apply({{"event", "segment-end"},
               {"n", 3},
               {"outcome", "done"},
               {"day", 8},
               {"status", "valid"},
               {"t", 13.0}});
  EXPECT_EQ(state.day, 8);
  EXPECT_EQ(state.site, "small");
  EXPECT_FALSE(state.running.has_value());
  state.apply({{"event", "segment"},
               {"n", 4},
               {"queue", "large"},
               {"tag", "large-1"},
               {"go", 1},
               {"from", 8},
               {"to", 12},
               {"t", 14.0}});
  EXPECT_TRUE(state.remap_pending.empty());
}

TEST(EnsembleSplit, TheLinksAnalysisTrafficIsTheApplicationsInterClusterBytes) {
  EnsembleSpec spec;
  spec.link_bandwidth = 1;  // 1 byte/s: the seconds are the bytes
  const EnsembleShape shape{60, 200, 7938, 10, true};
  EXPECT_DOUBLE_EQ(analysis_link_seconds(spec, shape, {2, 2}) * 10, 192000 + 2 * 1905120.0);
  EXPECT_DOUBLE_EQ(analysis_link_seconds(spec, shape, {4}), 0) << "one site: nothing crosses";
  spec.link_bandwidth = 0;
  spec.link_latency = 0.01;  // three channels of P-1 = 3 steps each, per analysis
  EXPECT_DOUBLE_EQ(analysis_link_seconds(spec, shape, {2, 2}), 9 * 0.01 / 10);
  EXPECT_FALSE(shape_of_record({{"config", {{"members", 12}}}}).has_value());
}

TEST(EnsembleSplit, TwoActiveQueuesJoinWhenTheSetIsPredictedFaster) {
  Setting s;
  s.spec.link_bandwidth = 12.5e6;  // 100 Mbit/s
  s.spec.link_latency = 0.005;
  const std::optional<EnsembleShape> shape = small_shape();
  const SegmentChoice c = choose_mapping(s.spec, s.state, {"small", "large"}, 1e5, 10, shape);
  ASSERT_NE(c.queue, nullptr);
  ASSERT_EQ(c.parts.size(), 2u);
  EXPECT_EQ(c.parts[0]->name, "small") << "the site holding the restart file leads";
  EXPECT_EQ(c.parts[1]->name, "large");
  EXPECT_EQ(c.processors(), 6);
  // 2/6 s of compute a day, plus the link's traffic: 2 x 8 crossing pairs x (2 x 225 x 12/36 +
  // 30 x 12/6) doubles of 8 bytes, and 3 x 5 x 5 ms of latency, per analysis of two days.
  const double traffic = (16 * 210 * 8 / 12.5e6 + 3 * 5 * 0.005) / 2;
  EXPECT_DOUBLE_EQ(c.traffic, traffic);
  EXPECT_DOUBLE_EQ(c.per_day, 2.0 / 6 + traffic);
  // Per segment: the broadcast of the file to large's site, and the gather of large's 4/6.
  EXPECT_DOUBLE_EQ(c.transfer, (0.005 + 1e5 / 12.5e6) + (0.005 + 1e5 * 4 / 6 / 12.5e6));
  EXPECT_EQ(c.days, 4);
  // Not without a shape (no record yet), not when forbidden, and not when 6 does not divide
  // the members.
  EXPECT_EQ(choose_mapping(s.spec, s.state, {"small", "large"}, 1e5, 10, {}).parts.size(), 1u);
  s.spec.split = false;
  EXPECT_EQ(choose_mapping(s.spec, s.state, {"small", "large"}, 1e5, 10, shape).queue->name,
            "large");
  s.spec.split = true;
  EnsembleShape eight = *shape;
  eight.members = 8;
  EXPECT_EQ(choose_mapping(s.spec, s.state, {"small", "large"}, 1e5, 10, eight).parts.size(), 1u);
}

TEST(EnsembleSplit, ASlowLinkOrAShortPilotKeepsTheRunOnOneQueue) {
  Setting s;
  const std::optional<EnsembleShape> shape = small_shape();
  s.spec.link_bandwidth = 1e4;  // 10 kB/s: the analyses' 26,880 bytes cost 1.3 s a day
  SegmentChoice c = choose_mapping(s.spec, s.state, {"small", "large"}, 1e3, 10, shape);
  ASSERT_NE(c.queue, nullptr);
  EXPECT_EQ(c.parts.size(), 1u);
  EXPECT_EQ(c.queue->name, "large") << "its 1 kB restart file crosses in 0.1 s";
  // A fast link, but large's pilot has 0.3 s left: the set is cut to no day, large alone too.
  s.spec.link_bandwidth = 12.5e9;
  s.spec.queues[1].time_limit = 10.3;
  c = choose_mapping(s.spec, s.state, {"small", "large"}, 1e3, 10, shape);
  ASSERT_NE(c.queue, nullptr);
  EXPECT_EQ(c.parts.size(), 1u);
  EXPECT_EQ(c.queue->name, "small");
}

class EnsembleSpecFile : public ::testing::Test {
 protected:
  fs::path dir_ = fs::temp_directory_path() / ("mcb-ensemble-unit-" + std::to_string(::getpid()));
  void SetUp() override {
    fs::create_directories(dir_);
    std::ofstream(dir_ / "rig.env") << "[slurm-a]\nkind = slurm\n";
    std::ofstream(dir_ / "ensflow") << "";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string refusal(const std::string& extra) {
    std::ofstream(dir_ / "spec.ini") << "[ensemble]\nsystems = rig.env\nbinary = ensflow\n"
                                     << "horizon = 10\ncheckpoint-every = 2\n"
                                     << "[queue.a]\nsystem = slurm-a\ntime-limit = 1min\n"
                                     << "a = 0\nb = 1\n"
                                     << extra;
    try {
      read_ensemble_spec((dir_ / "spec.ini").string());
    } catch (const mcb::UsageError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(EnsembleSpecFile, RefusesWithTheLineAndTheValue) {
  EXPECT_EQ(refusal(""), "");
  EXPECT_NE(refusal("[options]\ndays = 4\n").find("spec.ini:12: days: set by mcb-ensemble"),
            std::string::npos);
  const std::string unknown = refusal("[queue.b]\nsystem = slurm-c\n");
  EXPECT_NE(unknown.find("spec.ini:12: system: 'slurm-c' is not"), std::string::npos) << unknown;
  EXPECT_NE(refusal("[queue.b]\nsystem = slurm-a\n").find("[queue.b]: a: missing"),
            std::string::npos);
  const std::string rate = refusal("[link]\nbandwidth = fast\n");
  EXPECT_NE(rate.find("spec.ini:12: bandwidth: "), std::string::npos) << rate;
  EXPECT_NE(refusal("[ensemble2]\nx = 1\n").find("unknown section [ensemble2]"), std::string::npos);
}

TEST_F(EnsembleSpecFile, TheSplitIsAutoByDefaultAndRefusedWhenNeitherAutoNorNever) {
  const auto spec = [&](const std::string& line) {
    std::ofstream(dir_ / "spec.ini") << "[ensemble]\nsystems = rig.env\nbinary = ensflow\n"
                                     << "horizon = 10\ncheckpoint-every = 2\n"
                                     << line << "[queue.a]\nsystem = slurm-a\n"
                                     << "time-limit = 1min\na = 0\nb = 1\n";
    return read_ensemble_spec((dir_ / "spec.ini").string());
  };
  EXPECT_TRUE(spec("").split);
  EXPECT_TRUE(spec("split = auto\n").split);
  EXPECT_FALSE(spec("split = never\n").split);
  try {
    spec("split = sometimes\n");
    ADD_FAILURE() << "split = sometimes was taken";
  } catch (const mcb::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("spec.ini:6: split: 'sometimes' is not auto or never"),
              std::string::npos)
        << e.what();
  }
}

// a + b/P of a model day from mcb-calibrate's compute fit (through common/compute_fits.hpp):
// the fitted run's compute time over its days; a queue without a row keeps its own a and b.
TEST_F(EnsembleSpecFile, TakesAPlusBOverPFromTheComputeFitElseTheSpec) {
  mcb::ComputeFitTable fits;
  mcb::ComputeFitRow row;
  row.app = "ensflow";
  row.problem = "m24-d80-g63";
  row.system = "local";
  row.a = 8;
  row.b = 80;
  row.points = 4;
  row.sizes = 2;
  row.p_min = 1;
  row.p_max = 4;
  fits.rows.push_back(row);
  row.system = "slow";
  row.a = -100;  // predicts no time at 1 processor
  fits.rows.push_back(row);
  std::ofstream(dir_ / "compute_fits.csv") << fits.to_csv();
  std::ofstream(dir_ / "spec.ini")
      << "[ensemble]\nsystems = rig.env\nbinary = ensflow\nhorizon = 10\ncheckpoint-every = 2\n"
      << "compute-fits = compute_fits.csv\nfit-problem = m24-d80-g63\n"
      << "[queue.a]\nsystem = slurm-a\ntime-limit = 1min\nprocessors = 4\n"
      << "[queue.b]\nsystem = slurm-a\ntime-limit = 1min\nfit-system = other\na = 3\nb = 1\n";
  const EnsembleSpec spec = read_ensemble_spec((dir_ / "spec.ini").string());
  ASSERT_EQ(spec.queues.size(), 2u);
  EXPECT_DOUBLE_EQ(spec.queues[0].a, 0.1);  // 8 s over 80 days
  EXPECT_DOUBLE_EQ(spec.queues[0].b, 1.0);
  EXPECT_DOUBLE_EQ(spec.queues[0].seconds_per_day(), 0.1 + 1.0 / 4);
  EXPECT_EQ(spec.queues[0].model, (dir_ / "compute_fits.csv").string() + ":2");
  EXPECT_DOUBLE_EQ(spec.queues[1].seconds_per_day(), 4.0);
  EXPECT_EQ(spec.queues[1].model, "spec");

  const std::string fit = "compute-fits = compute_fits.csv\n";
  const auto with = [&](const std::string& ensemble, const std::string& queue) {
    std::ofstream(dir_ / "spec.ini") << "[ensemble]\nsystems = rig.env\nbinary = ensflow\n"
                                     << "horizon = 10\ncheckpoint-every = 2\n"
                                     << ensemble << "[queue.c]\nsystem = slurm-a\n"
                                     << "time-limit = 1min\n"
                                     << queue;
    try {
      read_ensemble_spec((dir_ / "spec.ini").string());
    } catch (const mcb::UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(with(fit, "").find("compute-fits: needs [ensemble] fit-problem"), std::string::npos);
  EXPECT_NE(with(fit + "fit-problem = m24-g63\n", "")
                .find("fit-problem: 'm24-g63' is not mcb-ensflow's m<M>-d<D>-g<G>"),
            std::string::npos);
  EXPECT_NE(with(fit + "fit-problem = m2-d8-g15\n", "")
                .find("a: missing (the measured time of a model day there is a + b/processors; "
                      "no compute fit of ensflow m2-d8-g15 there)"),
            std::string::npos);
  EXPECT_NE(with(fit + "fit-problem = m24-d80-g63\n", "fit-system = slow\n")
                .find("compute_fits.csv:3: the fit predicts"),
            std::string::npos);
  EXPECT_NE(with("", "fit-system = local\na = 1\nb = 1\n")
                .find("fit-system: given without [ensemble] compute-fits"),
            std::string::npos);
  std::ofstream(dir_ / "compute_fits.csv") << "app,problem,system,a,b\nensflow,m,local,1,2\n";
  EXPECT_NE(
      with(fit + "fit-problem = m24-d80-g63\n", "").find("compute_fits.csv:1: unknown header"),
      std::string::npos);
}

}  // namespace
