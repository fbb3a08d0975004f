#include "apps/ensflow/ensemble.hpp"

#include "apps/ensflow/enkf.hpp"
#include "apps/ensflow/innovations.hpp"
#include "apps/ensflow/phase_clock.hpp"
#include "apps/ensflow/random.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mcb::ensflow {

Ensemble::Ensemble(const ExperimentSettings& settings, const EnsembleLayout& layout, int rank,
                   const ObservationNetwork& network)
    : settings_(settings),
      geometry_{settings.model.grid, settings.model.spacing(), network.sites()},
      layout_(layout),
      rank_(rank),
      network_(network) {
  const AnalysisGeometry& geometry = geometry_;
  if (layout.is_regional()) {
    if (settings.analysis.filter != FilterKind::square_root ||
        !(settings.analysis.localisation_km > 0)) {
      throw std::invalid_argument("the regional layout needs the local analysis (sqrt filter)");
    }
    regional_ = std::make_unique<RegionalAnalysis>(settings.analysis, geometry, layout, rank,
                                                   settings.model.ssh_per_streamfunction());
  } else {
    update_ = settings.update_factory ? settings.update_factory(settings.analysis, geometry)
                                      : make_update_step(settings.analysis, geometry);
  }
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
  std::size_t packed_at = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    const int peer = static_cast<int>(r);
    // Packed: for each destination, its rows of every local member, member after member.
    by_destination_.offset[r] = packed_at;
    by_destination_.count[r] = per * layout.rows(peer);
    packed_at += by_destination_.count[r];
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

void Ensemble::resume(const std::vector<double>& all) {
  const auto n = static_cast<std::size_t>(states_.rows());
  if (all.size() != n * static_cast<std::size_t>(layout_.members()))
    throw std::invalid_argument("restart states of the wrong size");
  const auto first = static_cast<std::size_t>(layout_.first_member(rank_));
  for (int j = 0; j < layout_.members_per_rank(); ++j) {
    const double* from = all.data() + (first + static_cast<std::size_t>(j)) * n;
    std::copy(from, from + n, states_.col(j).data());
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
    const std::size_t rows = layout_.rows(peer);
    double* out = packed_.data() + by_destination_.offset[static_cast<std::size_t>(peer)];
    for (int j = 0; j < local; ++j) {
      double* to = out + static_cast<std::size_t>(j) * rows;
      for (std::size_t b : layout_.owned_blocks(peer)) {
        const std::size_t len = layout_.block_end(b) - layout_.block_begin(b);
        std::memcpy(to, psi_.col(j).data() + layout_.block_begin(b), len * sizeof(double));
        to += len;
      }
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
    const std::size_t rows = layout_.rows(peer);
    const double* in = packed_.data() + by_destination_.offset[static_cast<std::size_t>(peer)];
    for (int j = 0; j < local; ++j) {
      const double* from = in + static_cast<std::size_t>(j) * rows;
      for (std::size_t b : layout_.owned_blocks(peer)) {
        const std::size_t len = layout_.block_end(b) - layout_.block_begin(b);
        std::memcpy(psi_.col(j).data() + layout_.block_begin(b), from, len * sizeof(double));
        from += len;
      }
    }
  }
  for (int j = 0; j < local; ++j) model.apply_operator(psi_.col(j).data(), states_.col(j).data());
}

void Ensemble::prepare_gathered(int day, const Eigen::VectorXd& observations, QgModel& model,
                                harness::InstrumentedComm& comm, PhaseTimes& times,
                                harness::CommTimeline& timeline) {
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
    innovations_.push_back(innovation_statistics(day, analysis, observed_all_, analysed_observed,
                                                 observations, network_.variance(),
                                                 settings_.seed));
  }
  timeline.computation_done();
  transpose(comm);
  timeline.communication_done();
}

void Ensemble::prepare_regional(int day, const Eigen::VectorXd& observations, QgModel& model,
                                harness::InstrumentedComm& comm, PhaseTimes& times,
                                harness::CommTimeline& timeline) {
  {
    PhaseClock clock(times.observe);
    observe_and_pack(model, false);
  }
  timeline.computation_done();
  transpose(comm);
  timeline.communication_done();
  Eigen::MatrixXd own;
  {
    PhaseClock clock(times.observe);
    own = regional_->observe(slice_);
  }
  timeline.computation_done();
  const Eigen::MatrixXd available = regional_->exchange(comm, comm.channel("halo"), own);
  timeline.communication_done();
  {
    PhaseClock clock(times.transform);
    regional_->prepare(available, observations);
    pending_terms_.push_back(
        {day, regional_->terms(own, observations, settings_.analysis_index(day),
                               network_.variance(), settings_.seed)});
  }
}

void Ensemble::analyse(int day, const Eigen::VectorXd& observations, const double* true_psi,
                       QgModel& model, harness::InstrumentedComm& comm, PhaseTimes& times,
                       harness::CommTimeline& timeline, Diagnostics& diagnostics) {
  if (regional_)
    prepare_regional(day, observations, model, comm, times, timeline);
  else
    prepare_gathered(day, observations, model, comm, times, timeline);
  {
    PhaseClock clock(times.diagnostics);
    diagnostics.add("forecast", day, slice_, true_psi);
  }
  {
    PhaseClock clock(times.apply);
    if (regional_) {
      analysed_ = regional_->apply(slice_, settings_.analysis.relaxation);
    } else {
      // Fixed blocks: the same products, with the same rounding, for every process count.
      Eigen::Index at = 0;
      for (std::size_t b : layout_.owned_blocks(rank_)) {
        const auto len = static_cast<Eigen::Index>(layout_.block_end(b) - layout_.block_begin(b));
        // Fresh copies: the same shapes and alignment whatever rows this process holds.
        const Eigen::MatrixXd forecast = slice_.middleRows(at, len);
        Eigen::MatrixXd analysed = update_->apply(layout_.block_begin(b), forecast);
        relax_to_prior_spread(forecast, analysed, settings_.analysis.relaxation);
        analysed_.middleRows(at, len) = analysed;
        at += len;
      }
    }
  }
  {
    PhaseClock clock(times.diagnostics);
    diagnostics.add("analysis", day, analysed_, true_psi);
    if (settings_.analysis_index(day) == 0) {
      first_forecast_ = slice_;
      first_analysed_ = analysed_;
      first_kept_ = true;
    }
  }
  timeline.computation_done();
  transpose_back(comm);
  timeline.communication_done();
  {
    PhaseClock clock(times.restore);
    restore(model);
  }
}

std::vector<InnovationStatistics> Ensemble::innovations(MPI_Comm comm) const {
  if (!regional_) return innovations_;
  // Per own observation and analysis: index, chi-square term, consistency term, rank.
  std::vector<double> mine;
  for (const PendingTerms& p : pending_terms_) {
    for (std::size_t i = 0; i < p.terms.size(); ++i) {
      mine.insert(mine.end(), {static_cast<double>(regional_->own()[i]), p.terms[i].chi_square,
                               p.terms[i].error_consistency, static_cast<double>(p.terms[i].rank)});
    }
  }
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  const int count = static_cast<int>(mine.size());
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<double> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(),
                 MPI_DOUBLE, comm);
  // Each rank sent its analyses in order: the a-th block of a rank's entries is analysis a.
  const std::size_t m = network_.count();
  std::vector<std::vector<ObservationTerms>> by_analysis(pending_terms_.size(),
                                                         std::vector<ObservationTerms>(m));
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const std::size_t entries = static_cast<std::size_t>(counts[r]) / 4;
    const std::size_t per_analysis = pending_terms_.empty() ? 0 : entries / pending_terms_.size();
    for (std::size_t e = 0; e < entries; ++e) {
      const double* at = all.data() + static_cast<std::size_t>(offsets[r]) + 4 * e;
      auto& t = by_analysis[e / per_analysis][static_cast<std::size_t>(at[0])];
      t = {at[1], at[2], static_cast<int>(at[3])};
    }
  }
  std::vector<InnovationStatistics> out;
  for (std::size_t a = 0; a < pending_terms_.size(); ++a)
    out.push_back(combine_terms(pending_terms_[a].day, by_analysis[a], layout_.members()));
  return out;
}

void Ensemble::diagnose(const std::string& kind, int day, const double* true_psi, QgModel& model,
                        harness::InstrumentedComm& comm, Diagnostics& diagnostics) {
  observe_and_pack(model, false);
  transpose(comm);
  diagnostics.add(kind, day, slice_, true_psi);
}

}  // namespace mcb::ensflow

namespace mcb::ensflow {

ReferenceCheck Ensemble::check_first_analysis(const Eigen::VectorXd& observations,
                                              MPI_Comm comm) const {
  int have = first_kept_ ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, comm);
  if (!have) return {};
  const double start = MPI_Wtime();
  const std::size_t n = layout_.state_size();
  const std::vector<std::size_t> wanted = reference_rows(settings_.analysis, geometry_, n);
  const auto members = static_cast<std::size_t>(layout_.members());
  // Per wanted row held here: its index, then the forecast and the analysed values.
  std::vector<double> mine;
  Eigen::Index at = 0;
  for (std::size_t b : layout_.owned_blocks(rank_)) {
    for (std::size_t row = layout_.block_begin(b); row < layout_.block_end(b); ++row, ++at) {
      if (!std::binary_search(wanted.begin(), wanted.end(), row)) continue;
      mine.push_back(static_cast<double>(row));
      for (std::size_t j = 0; j < members; ++j)
        mine.push_back(first_forecast_(at, Eigen::Index(j)));
      for (std::size_t j = 0; j < members; ++j)
        mine.push_back(first_analysed_(at, Eigen::Index(j)));
    }
  }
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  const int count = static_cast<int>(mine.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<double> all(rank_ == 0 ? static_cast<std::size_t>(offsets.back() + counts.back())
                                     : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
              0, comm);
  ReferenceCheck check;
  if (rank_ == 0) {
    ReferenceProblem p;
    p.rows = wanted;
    p.forecast.resize(Eigen::Index(wanted.size()), Eigen::Index(members));
    p.analysed.resize(p.forecast.rows(), p.forecast.cols());
    const std::size_t entry = 1 + 2 * members;
    for (std::size_t e = 0; e + entry <= all.size(); e += entry) {
      const auto row = static_cast<std::size_t>(all[e]);
      const auto i = static_cast<Eigen::Index>(std::lower_bound(wanted.begin(), wanted.end(), row) -
                                               wanted.begin());
      for (std::size_t j = 0; j < members; ++j) {
        p.forecast(i, Eigen::Index(j)) = all[e + 1 + j];
        p.analysed(i, Eigen::Index(j)) = all[e + 1 + members + j];
      }
    }
    p.observations = observations;
    if (settings_.analysis.filter == FilterKind::stochastic)
      p.perturbations = network_.perturbations(settings_.seed, 0, layout_.members());
    p.ssh_per_psi = settings_.model.ssh_per_streamfunction();
    check = compare_with_reference(p, settings_.analysis, geometry_, n);
    check.seconds = MPI_Wtime() - start;
  }
  double fields[7] = {check.checked ? 1.0 : 0.0, static_cast<double>(check.rows),
                      check.max_difference,      check.increment_scale,
                      check.state_scale,         check.tolerance,
                      check.pass ? 1.0 : 0.0};
  MPI_Bcast(fields, 7, MPI_DOUBLE, 0, comm);
  MPI_Bcast(&check.seconds, 1, MPI_DOUBLE, 0, comm);
  check.checked = fields[0] != 0;
  check.rows = static_cast<std::size_t>(fields[1]);
  check.max_difference = fields[2];
  check.increment_scale = fields[3];
  check.state_scale = fields[4];
  check.tolerance = fields[5];
  check.pass = fields[6] != 0;
  return check;
}

}  // namespace mcb::ensflow
