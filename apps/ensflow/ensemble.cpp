#include "apps/ensflow/ensemble.hpp"

#include "apps/ensflow/enkf.hpp"
#include "apps/ensflow/innovations.hpp"
#include "apps/ensflow/phase_clock.hpp"
#include "apps/ensflow/random.hpp"

#include <mpi.h>

#include <cstring>

namespace mcb::ensflow {

Ensemble::Ensemble(const ExperimentSettings& settings, const EnsembleLayout& layout, int rank,
                   const ObservationNetwork& network)
    : settings_(settings), layout_(layout), rank_(rank), network_(network) {
  const AnalysisGeometry geometry{settings.model.grid, settings.model.spacing(), network.sites()};
  update_ = settings.update_factory ? settings.update_factory(settings.analysis, geometry)
                                    : make_update_step(settings.analysis, geometry);
  const auto n = static_cast<Eigen::Index>(layout.state_size());
  const int local = layout.members_per_rank();
  const auto m = static_cast<Eigen::Index>(network.count());
  states_.resize(n, local);
  psi_.resize(n, local);
  observed_.resize(m, local);
  observed_all_.resize(m, layout.members());
  packed_.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(local));
  const auto rows = static_cast<Eigen::Index>(layout.rows(rank));
  slice_.resize(rows, layout.members());
  analysed_.resize(rows, layout.members());

  const auto ranks = static_cast<std::size_t>(layout.ranks());
  const auto per = static_cast<std::size_t>(local);
  by_destination_.offset.resize(ranks);
  by_destination_.count.resize(ranks);
  by_source_.offset.resize(ranks);
  by_source_.count.resize(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const int peer = static_cast<int>(r);
    // Packed: for each destination, its rows of every local member, member after member.
    by_destination_.offset[r] = per * layout.row_begin(peer);
    by_destination_.count[r] = per * layout.rows(peer);
    // Slice (column-major rows x M): the source's members are consecutive columns.
    by_source_.offset[r] = per * r * layout.rows(rank);
    by_source_.count[r] = per * layout.rows(rank);
  }
}

void Ensemble::start(const std::vector<double>& background, QgModel& model,
                     PerturbationField& field) {
  const int first = layout_.first_member(rank_);
  for (int j = 0; j < layout_.members_per_rank(); ++j) {
    KeyedStream stream(settings_.seed, StreamPurpose::member_perturbation,
                       static_cast<std::uint64_t>(first + j));
    double* q = states_.col(j).data();
    field.draw(stream, model, q);
    for (std::size_t c = 0; c < background.size(); ++c) q[c] += background[c];
  }
}

void Ensemble::forecast_day(QgModel& model) {
  for (int j = 0; j < layout_.members_per_rank(); ++j) model.advance_day(states_.col(j).data());
}

void Ensemble::observe_and_pack(QgModel& model, bool observe) {
  const int local = layout_.members_per_rank();
  for (int j = 0; j < local; ++j) {
    model.invert(states_.col(j).data(), psi_.col(j).data());
    if (observe) network_.observe(psi_.col(j).data(), observed_.col(j).data());
  }
  for (int peer = 0; peer < layout_.ranks(); ++peer) {
    const std::size_t begin = layout_.row_begin(peer);
    const std::size_t rows = layout_.rows(peer);
    double* out = packed_.data() + by_destination_.offset[static_cast<std::size_t>(peer)];
    for (int j = 0; j < local; ++j) {
      std::memcpy(out + static_cast<std::size_t>(j) * rows, psi_.col(j).data() + begin,
                  rows * sizeof(double));
    }
  }
}

void Ensemble::transpose(harness::InstrumentedComm& comm) {
  pairwise_alltoallv(comm, comm.channel("transpose"), packed_.data(), by_destination_,
                     slice_.data(), by_source_);
}

void Ensemble::transpose_back(harness::InstrumentedComm& comm) {
  pairwise_alltoallv(comm, comm.channel("update"), analysed_.data(), by_source_, packed_.data(),
                     by_destination_);
}

void Ensemble::restore(QgModel& model) {
  const int local = layout_.members_per_rank();
  for (int peer = 0; peer < layout_.ranks(); ++peer) {
    const std::size_t begin = layout_.row_begin(peer);
    const std::size_t rows = layout_.rows(peer);
    const double* in = packed_.data() + by_destination_.offset[static_cast<std::size_t>(peer)];
    for (int j = 0; j < local; ++j) {
      std::memcpy(psi_.col(j).data() + begin, in + static_cast<std::size_t>(j) * rows,
                  rows * sizeof(double));
    }
  }
  for (int j = 0; j < local; ++j) model.apply_operator(psi_.col(j).data(), states_.col(j).data());
}

void Ensemble::analyse(int day, const Eigen::VectorXd& observations, const double* true_psi,
                       QgModel& model, harness::InstrumentedComm& comm, PhaseTimes& times,
                       harness::CommTimeline& timeline, Diagnostics& diagnostics,
                       std::vector<InnovationStatistics>& innovations) {
  {
    PhaseClock clock(times.observe);
    observe_and_pack(model, true);
  }
  timeline.computation_done();
  pairwise_allgather(comm, comm.channel("gather"), observed_.data(),
                     static_cast<std::size_t>(observed_.size()), observed_all_.data());
  timeline.communication_done();

  {
    PhaseClock clock(times.transform);
    const int analysis = settings_.analysis_index(day);
    const Eigen::MatrixXd perturbations =
        settings_.analysis.filter == FilterKind::stochastic
            ? network_.perturbations(settings_.seed, analysis, layout_.members())
            : Eigen::MatrixXd();
    const Eigen::MatrixXd analysed_observed =
        update_->prepare(observed_all_, observations, perturbations);
    innovations.push_back(innovation_statistics(day, analysis, observed_all_, analysed_observed,
                                                observations, network_.variance(), settings_.seed));
  }
  timeline.computation_done();
  transpose(comm);
  timeline.communication_done();

  {
    PhaseClock clock(times.diagnostics);
    diagnostics.add("forecast", day, slice_, true_psi);
  }
  {
    PhaseClock clock(times.apply);
    // Fixed blocks: the same products, with the same rounding, for every process count.
    const std::size_t row0 = layout_.row_begin(rank_);
    for (std::size_t b = layout_.first_block(rank_); b < layout_.first_block(rank_ + 1); ++b) {
      const auto begin = static_cast<Eigen::Index>(layout_.block_begin(b) - row0);
      const auto len = static_cast<Eigen::Index>(layout_.block_end(b) - layout_.block_begin(b));
      // Fresh copies: the same shapes and alignment whatever rows this process holds.
      const Eigen::MatrixXd forecast = slice_.middleRows(begin, len);
      Eigen::MatrixXd analysed = update_->apply(layout_.block_begin(b), forecast);
      relax_to_prior_spread(forecast, analysed, settings_.analysis.relaxation);
      analysed_.middleRows(begin, len) = analysed;
    }
  }
  {
    PhaseClock clock(times.diagnostics);
    diagnostics.add("analysis", day, analysed_, true_psi);
  }
  timeline.computation_done();
  transpose_back(comm);
  timeline.communication_done();
  {
    PhaseClock clock(times.restore);
    restore(model);
  }
}

void Ensemble::diagnose(const std::string& kind, int day, const double* true_psi, QgModel& model,
                        harness::InstrumentedComm& comm, Diagnostics& diagnostics) {
  observe_and_pack(model, false);
  transpose(comm);
  diagnostics.add(kind, day, slice_, true_psi);
}

}  // namespace mcb::ensflow
