// The distributed Ensflow at whatever process count the test runs with (1, 2, 3, 4): the
// point-to-point collectives deliver and book every byte, every process count computes the
// ensemble of one process bit for bit, and all traffic is the analysis's own (none while the
// members evolve), split into intra- and inter-cluster as the cluster map says.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "apps/ensflow/exchange.hpp"
#include "apps/ensflow/experiment.hpp"
#include "apps/ensflow/layout.hpp"
#include "apps/ensflow/regional.hpp"
#include "tests/support/mpi_world.hpp"

namespace mcb::ensflow {
namespace {

using harness::ClusterMap;
using harness::InstrumentedComm;
using harness::PeerClass;
using mcb::testing::world_rank;
using mcb::testing::world_size;

// Two clusters of consecutive ranks when the size allows, else one.
ClusterMap test_map(int size) {
  return size % 2 == 0 ? ClusterMap::blocks(size, 2) : ClusterMap::single(size);
}

// 12 members divide among 1, 2, 3 and 4 processes.
ExperimentSettings small_settings(FilterKind filter, int grid = 15) {
  ExperimentSettings s;
  s.model.grid = grid;
  s.model.viscosity = resolving_viscosity(s.model);
  s.model.steps_per_day = stable_steps_per_day(s.model);
  s.members = 12;
  s.days = 4;
  s.analysis_every = 2;
  s.observations = 30;
  s.initial_length_km = 300;
  s.spinup_days = 5;
  s.analysis.filter = filter;
  s.analysis.observation_variance = 4e-4;
  s.seed = 3;
  s.truth_seed = 4;
  return s;
}

TEST(Exchange, AllgatherDeliversEveryBlockAndBooksItPerPeerClass) {
  const int p = world_size(), r = world_rank();
  InstrumentedComm comm(MPI_COMM_WORLD, test_map(p), {"gather"});
  const std::size_t count = 5;
  std::vector<double> mine(count), all(count * static_cast<std::size_t>(p), -1);
  for (std::size_t i = 0; i < count; ++i) mine[i] = r * 100.0 + static_cast<double>(i);
  pairwise_allgather(comm, 0, mine.data(), count, all.data());
  for (int s = 0; s < p; ++s) {
    for (std::size_t i = 0; i < count; ++i) {
      ASSERT_EQ(all[static_cast<std::size_t>(s) * count + i], s * 100.0 + static_cast<double>(i));
    }
  }
  const auto& st = comm.stats(0);
  int inter_peers = 0;
  for (int s = 0; s < p; ++s) inter_peers += comm.peer_class(s) == PeerClass::inter ? 1 : 0;
  const int intra_peers = p - 1 - inter_peers;
  EXPECT_EQ(st.sent[0].bytes, intra_peers * count * sizeof(double));
  EXPECT_EQ(st.sent[1].bytes, inter_peers * count * sizeof(double));
  EXPECT_EQ(st.received[1].messages, static_cast<std::uint64_t>(inter_peers));
  EXPECT_EQ(st.received[0].messages, static_cast<std::uint64_t>(intra_peers));
}

TEST(Exchange, AlltoallvDeliversUnevenSegmentsAndSendsNothingForEmptyOnes) {
  const int p = world_size(), r = world_rank();
  InstrumentedComm comm(MPI_COMM_WORLD, test_map(p), {"transpose"});
  // Rank a sends (a + b) % 3 values to rank b, some of them zero-length.
  auto count = [](int a, int b) { return static_cast<std::size_t>((a + b) % 3); };
  Segments send, recv;
  std::size_t send_total = 0, recv_total = 0;
  for (int d = 0; d < p; ++d) {
    send.offset.push_back(send_total);
    send.count.push_back(count(r, d));
    send_total += count(r, d);
    recv.offset.push_back(recv_total);
    recv.count.push_back(count(d, r));
    recv_total += count(d, r);
  }
  std::vector<double> out(send_total), in(recv_total, -1);
  for (int d = 0; d < p; ++d) {
    for (std::size_t i = 0; i < count(r, d); ++i)
      out[send.offset[static_cast<std::size_t>(d)] + i] =
          r * 1000.0 + d * 10.0 + static_cast<double>(i);
  }
  pairwise_alltoallv(comm, 0, out.data(), send, in.data(), recv);
  std::uint64_t messages = 0;
  for (int s = 0; s < p; ++s) {
    for (std::size_t i = 0; i < count(s, r); ++i) {
      ASSERT_EQ(in[recv.offset[static_cast<std::size_t>(s)] + i],
                s * 1000.0 + r * 10.0 + static_cast<double>(i));
    }
    if (s != r && count(r, s) > 0) ++messages;
  }
  const auto& st = comm.stats(0);
  EXPECT_EQ(st.sent[0].messages + st.sent[1].messages, messages);
}

// Final members of every process, in member order, on rank 0 of `comm`.
Eigen::MatrixXd gather_members(MPI_Comm comm, const Eigen::MatrixXd& local, int members) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Eigen::MatrixXd all;
  if (rank == 0) all.resize(local.rows(), members);
  MPI_Gather(local.data(), static_cast<int>(local.size()), MPI_DOUBLE,
             rank == 0 ? all.data() : nullptr, static_cast<int>(local.size()), MPI_DOUBLE, 0, comm);
  return all;
}

// `check_filter`: also require the analyses to remove forecast error (on a 7x7 grid the
// analyses work at the observation-error level, where they need not).
void expect_same_as_one_process(
    FilterKind filter, int grid, bool check_filter = true,
    double localisation_km = ExperimentSettings{}.analysis.localisation_km) {
  const int p = world_size();
  ExperimentSettings s = small_settings(filter, grid);
  s.analysis.localisation_km = localisation_km;
  s.analysis.relaxation = 0.3;  // row-wise, so it must be as reproducible as the rest
  InstrumentedComm comm(MPI_COMM_WORLD, test_map(p), channel_names());
  const ExperimentOutcome distributed = run_experiment(s, comm);
  // Every rank learns the first analysis's agreement with the reference.
  EXPECT_TRUE(distributed.reference.checked);
  EXPECT_TRUE(distributed.reference.pass) << distributed.reference.to_json().dump();
  const Eigen::MatrixXd members =
      gather_members(MPI_COMM_WORLD, distributed.final_states, s.members);
  if (world_rank() != 0) return;

  InstrumentedComm alone(MPI_COMM_SELF, ClusterMap::single(1), channel_names());
  const ExperimentOutcome reference = run_experiment(s, alone);
  ASSERT_EQ(members.rows(), reference.final_states.rows());
  ASSERT_EQ(members.cols(), reference.final_states.cols());
  EXPECT_EQ(0, std::memcmp(members.data(), reference.final_states.data(),
                           static_cast<std::size_t>(members.size()) * sizeof(double)))
      << "the ensemble on " << p << " processes differs from one process's";
  ASSERT_EQ(distributed.points.size(), reference.points.size());
  for (std::size_t k = 0; k < reference.points.size(); ++k) {
    EXPECT_EQ(distributed.points[k].kind, reference.points[k].kind);
    EXPECT_EQ(distributed.points[k].day, reference.points[k].day);
    EXPECT_EQ(distributed.points[k].rmse, reference.points[k].rmse) << reference.points[k].kind;
    EXPECT_EQ(distributed.points[k].spread, reference.points[k].spread) << reference.points[k].kind;
  }
  if (!check_filter) return;
  // And the run is a working filter, not merely a reproducible one: over the two analyses the
  // analysis removes forecast error. Not at each analysis: the second works below the 0.02 m
  // observation error (forecast RMSE 0.015 m), where a correct 12-member filter ends worse
  // than its forecast for 37 of 100 seeds of this configuration (38 with the former std::
  // draws), while the pooled MSE ratio stayed at most 0.60 (0.69; median 0.10) (README).
  const auto forecasts = points_of(reference.points, "forecast");
  const auto analyses = points_of(reference.points, "analysis");
  ASSERT_EQ(analyses.size(), 2u);
  double analysis_mse = 0, forecast_mse = 0;
  for (std::size_t k = 0; k < analyses.size(); ++k) {
    analysis_mse += analyses[k].rmse * analyses[k].rmse;
    forecast_mse += forecasts[k].rmse * forecasts[k].rmse;
  }
  EXPECT_LT(analysis_mse, forecast_mse);
}

TEST(Experiment, StochasticFilterOnEveryProcessCountGivesTheEnsembleOfOneProcessBitForBit) {
  expect_same_as_one_process(FilterKind::stochastic, 15);
}

TEST(Experiment, SquareRootFilterOnEveryProcessCountGivesTheEnsembleOfOneProcessBitForBit) {
  expect_same_as_one_process(FilterKind::square_root, 15);
}

TEST(Experiment, GlobalStochasticFilterOnEveryProcessCountGivesTheEnsembleOfOneProcess) {
  expect_same_as_one_process(FilterKind::stochastic, 15, true, 0);
}

TEST(Experiment, GlobalSquareRootFilterOnEveryProcessCountGivesTheEnsembleOfOneProcess) {
  expect_same_as_one_process(FilterKind::square_root, 15, true, 0);
}

TEST(Experiment, InnovationStatisticsAreTheSameOnEveryProcess) {
  const ExperimentSettings s = small_settings(FilterKind::square_root);
  InstrumentedComm comm(MPI_COMM_WORLD, test_map(world_size()), channel_names());
  const ExperimentOutcome out = run_experiment(s, comm);
  ASSERT_EQ(out.innovations.size(), 2u);
  std::vector<double> mine;
  for (const auto& i : out.innovations) {
    mine.push_back(i.chi_square);
    mine.push_back(i.error_consistency);
    int total = 0;
    for (int c : i.rank_counts) total += c;
    EXPECT_EQ(total, static_cast<int>(s.observations));
    EXPECT_EQ(i.rank_counts.size(), static_cast<std::size_t>(s.members) + 1);
  }
  std::vector<double> root = mine;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  EXPECT_EQ(0, std::memcmp(root.data(), mine.data(), mine.size() * sizeof(double)));
}

TEST(Experiment, ProcessesWithoutStateRowsStillTakePartInTheAnalysis) {
  // A 7x7 grid is one block of rows: in the transposed layout only the last process holds
  // rows, the others send their members' rows and receive the update.
  expect_same_as_one_process(FilterKind::stochastic, 7, false);
}

TEST(Experiment, AnalysisTrafficIsExactlyTheGatherAndTheTwoTransposes) {
  const int p = world_size(), r = world_rank();
  const ExperimentSettings s = small_settings(FilterKind::stochastic);
  const ClusterMap map = test_map(p);
  InstrumentedComm comm(MPI_COMM_WORLD, map, channel_names());
  run_experiment(s, comm);
  const EnsembleLayout layout(s.members, p,
                              static_cast<std::size_t>(s.model.layers()) * s.model.points());
  const std::uint64_t per = static_cast<std::uint64_t>(layout.members_per_rank());
  const std::uint64_t analyses = static_cast<std::uint64_t>(s.analyses());
  const std::uint64_t word = sizeof(double);
  // Expected bytes per class: [intra, inter].
  std::uint64_t gather[2] = {0, 0}, transpose[2] = {0, 0}, update[2] = {0, 0};
  for (int peer = 0; peer < p; ++peer) {
    if (peer == r) continue;
    const int cls = map.same_cluster(r, peer) ? 0 : 1;
    gather[cls] += analyses * s.observations * per * word;
    transpose[cls] += analyses * per * layout.rows(peer) * word;  // my rows of peer's share
    update[cls] += analyses * per * layout.rows(r) * word;        // peer's members, my rows
  }
  const auto& g = comm.stats(comm.channel("gather"));
  const auto& t = comm.stats(comm.channel("transpose"));
  const auto& u = comm.stats(comm.channel("update"));
  for (int cls = 0; cls < 2; ++cls) {
    EXPECT_EQ(g.sent[cls].bytes, gather[cls]) << "class " << cls;
    EXPECT_EQ(g.received[cls].bytes, gather[cls]) << "class " << cls;
    EXPECT_EQ(t.sent[cls].bytes, transpose[cls]) << "class " << cls;
    EXPECT_EQ(u.sent[cls].bytes, update[cls]) << "class " << cls;
  }
  if (map.clusters() > 1) {
    EXPECT_GT(g.sent[1].bytes + t.sent[1].bytes + u.sent[1].bytes, 0u);
  }
}

// The local analysis on a 31x31 grid (31 km spacing) at 75 km: the support (150 km) spans five
// grid rows, so with up to four bands of seven or more rows each band needs observations from
// its neighbours only.
ExperimentSettings regional_settings(AnalysisLayout layout) {
  ExperimentSettings s = small_settings(FilterKind::square_root, 31);
  s.analysis.localisation_km = 75;
  s.analysis.relaxation = 0.3;
  s.observations = 60;
  s.layout = layout;
  return s;
}

TEST(Experiment, RegionalLocalAnalysisGivesTheGatheredAnalysisOnEveryProcessCount) {
  const int p = world_size();
  InstrumentedComm regional_comm(MPI_COMM_WORLD, test_map(p), channel_names());
  const ExperimentOutcome regional =
      run_experiment(regional_settings(AnalysisLayout::regional), regional_comm);
  InstrumentedComm gathered_comm(MPI_COMM_WORLD, test_map(p), channel_names());
  const ExperimentOutcome gathered =
      run_experiment(regional_settings(AnalysisLayout::gathered), gathered_comm);
  // Both layouts compute the reference's analysis at the nodes.
  EXPECT_TRUE(regional.reference.checked && regional.reference.pass)
      << regional.reference.to_json().dump();
  EXPECT_TRUE(gathered.reference.checked && gathered.reference.pass)
      << gathered.reference.to_json().dump();
  // The same transforms from the same observations in the same order: the same bits.
  EXPECT_EQ(0, std::memcmp(regional.final_states.data(), gathered.final_states.data(),
                           static_cast<std::size_t>(gathered.final_states.size()) * sizeof(double)))
      << "the regional analysis on " << p << " processes differs from the gathered one";
  // Error and spread sum over other blocks (grid rows, not 64-row blocks): round-off only.
  ASSERT_EQ(regional.points.size(), gathered.points.size());
  for (std::size_t k = 0; k < gathered.points.size(); ++k) {
    EXPECT_NEAR(regional.points[k].rmse, gathered.points[k].rmse, 1e-12 * gathered.points[k].rmse);
    EXPECT_NEAR(regional.points[k].spread, gathered.points[k].spread,
                1e-12 * gathered.points[k].spread);
  }
  ASSERT_EQ(regional.innovations.size(), gathered.innovations.size());
  for (std::size_t a = 0; a < gathered.innovations.size(); ++a) {
    EXPECT_EQ(regional.innovations[a].chi_square, gathered.innovations[a].chi_square);
    EXPECT_EQ(regional.innovations[a].error_consistency, gathered.innovations[a].error_consistency);
    EXPECT_EQ(regional.innovations[a].rank_counts, gathered.innovations[a].rank_counts);
  }
  // And it is a working filter.
  const auto forecasts = points_of(regional.points, "forecast");
  const auto analyses = points_of(regional.points, "analysis");
  ASSERT_EQ(analyses.size(), 2u);
  for (std::size_t k = 0; k < analyses.size(); ++k) EXPECT_LT(analyses[k].rmse, forecasts[k].rmse);
}

TEST(Experiment, RegionalLayoutIsTheDefaultOfTheLocalAnalysisOnly) {
  ExperimentSettings s = regional_settings(AnalysisLayout::automatic);
  EXPECT_TRUE(uses_regional_layout(s, 4));
  EXPECT_FALSE(uses_regional_layout(s, 32));  // more processes than grid rows
  s.analysis.filter = FilterKind::stochastic;
  EXPECT_FALSE(uses_regional_layout(s, 4));
  s.analysis.filter = FilterKind::square_root;
  s.analysis.localisation_km = 0;
  EXPECT_FALSE(uses_regional_layout(s, 4));
}

TEST(Experiment, RegionalTrafficIsTheTransposesAndANeighbourHaloWithoutAGather) {
  const int p = world_size(), r = world_rank();
  const ExperimentSettings s = regional_settings(AnalysisLayout::regional);
  const ClusterMap map = test_map(p);
  InstrumentedComm comm(MPI_COMM_WORLD, map, channel_names());
  run_experiment(s, comm);
  const EnsembleLayout layout = analysis_layout(s, p);
  ASSERT_TRUE(layout.is_regional());
  // The plan the run used, rebuilt from the same geometry.
  const QgModel model(s.model);
  const ObservationNetwork network(s.model, s.observations, s.analysis.observation_variance,
                                   s.truth_seed);
  const RegionalAnalysis plan(s.analysis, {s.model.grid, s.model.spacing(), network.sites()},
                              layout, r, s.model.ssh_per_streamfunction());
  const std::vector<std::size_t> sends = plan.halo_sends();
  const std::uint64_t per = static_cast<std::uint64_t>(layout.members_per_rank());
  const std::uint64_t analyses = static_cast<std::uint64_t>(s.analyses());
  const std::uint64_t word = sizeof(double);
  const std::uint64_t members = static_cast<std::uint64_t>(s.members);
  std::uint64_t halo[2] = {0, 0}, transpose[2] = {0, 0}, update[2] = {0, 0};
  for (int peer = 0; peer < p; ++peer) {
    if (peer == r) continue;
    const int cls = map.same_cluster(r, peer) ? 0 : 1;
    halo[cls] += analyses * sends[static_cast<std::size_t>(peer)] * members * word;
    transpose[cls] += analyses * per * layout.rows(peer) * word;
    update[cls] += analyses * per * layout.rows(r) * word;
    // Neighbours only: bands two apart are beyond the support.
    if (std::abs(peer - r) > 1) EXPECT_EQ(sends[static_cast<std::size_t>(peer)], 0u) << peer;
  }
  const auto& g = comm.stats(comm.channel("gather"));
  const auto& h = comm.stats(comm.channel("halo"));
  const auto& t = comm.stats(comm.channel("transpose"));
  const auto& u = comm.stats(comm.channel("update"));
  std::uint64_t halo_bytes = 0;
  for (int cls = 0; cls < 2; ++cls) {
    EXPECT_EQ(g.sent[cls].messages, 0u);
    EXPECT_EQ(h.sent[cls].bytes, halo[cls]) << "class " << cls;
    EXPECT_EQ(t.sent[cls].bytes, transpose[cls]) << "class " << cls;
    EXPECT_EQ(u.sent[cls].bytes, update[cls]) << "class " << cls;
    halo_bytes += h.sent[cls].bytes;
  }
  // Fewer bytes than the gather would send (all observations of my members to every peer).
  if (p > 1) {
    EXPECT_GT(halo_bytes, 0u);
    EXPECT_LT(halo_bytes, analyses * s.observations * per * word * std::uint64_t(p - 1));
  }
}

TEST(Experiment, MembersEvolvingWithoutAnalysisExchangeNothing) {
  const int p = world_size();
  ExperimentSettings s = small_settings(FilterKind::stochastic);
  s.analysis_every = s.days + 1;  // no analysis at all
  s.free_run = false;
  InstrumentedComm comm(MPI_COMM_WORLD, test_map(p), channel_names());
  const ExperimentOutcome out = run_experiment(s, comm);
  for (int ch = 0; ch < static_cast<int>(channel_names().size()); ++ch) {
    const auto& st = comm.stats(ch);
    for (int cls = 0; cls < 2; ++cls) {
      EXPECT_EQ(st.sent[cls].messages, 0u);
      EXPECT_EQ(st.received[cls].bytes, 0u);
    }
  }
  EXPECT_EQ(out.timeline.phases(), 0u);
  EXPECT_GT(out.times.forecast, 0.0);
}

}  // namespace
}  // namespace mcb::ensflow
