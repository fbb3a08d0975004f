#include "apps/ensflow/regional.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace mcb::ensflow {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {

// The observations on grid rows [first, end): sites lie on the upper layer's rows.
std::vector<std::size_t> observations_on(const std::vector<std::size_t>& sites, std::size_t grid,
                                         std::size_t first, std::size_t end) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < sites.size(); ++k) {
    const std::size_t row = (sites[k] % (grid * grid)) / grid;
    if (row >= first && row < end) out.push_back(k);
  }
  return out;
}

// Positions in `where` (ascending) of the entries of `a` (ascending) that are also in `b`.
std::vector<std::size_t> positions_of_common(const std::vector<std::size_t>& a,
                                             const std::vector<std::size_t>& b,
                                             const std::vector<std::size_t>& where) {
  std::vector<std::size_t> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  std::vector<std::size_t> out;
  for (std::size_t k : common) {
    out.push_back(
        static_cast<std::size_t>(std::lower_bound(where.begin(), where.end(), k) - where.begin()));
  }
  return out;
}

// Segments of `lists` (per peer), `width` doubles per entry, back to back in peer order.
Segments segments_of(const std::vector<std::vector<std::size_t>>& lists, std::size_t width) {
  Segments s;
  std::size_t at = 0;
  for (const auto& list : lists) {
    s.offset.push_back(at);
    s.count.push_back(list.size() * width);
    at += list.size() * width;
  }
  return s;
}

std::size_t total(const Segments& s) {
  return s.offset.empty() ? 0 : s.offset.back() + s.count.back();
}

}  // namespace

RegionalAnalysis::RegionalAnalysis(const AnalysisSettings& settings,
                                   const AnalysisGeometry& geometry, const EnsembleLayout& layout,
                                   int rank, double ssh_per_psi)
    : layout_(layout),
      rank_(rank),
      grid_(geometry.grid),
      ssh_per_psi_(ssh_per_psi),
      sites_(geometry.sites),
      letkf_(settings, geometry) {
  if (!layout.is_regional())
    throw std::invalid_argument("the regional analysis needs the regional layout");
  const auto g = static_cast<std::size_t>(grid_);
  const auto peers = static_cast<std::size_t>(layout.ranks());
  const auto me = static_cast<std::size_t>(rank);
  // Every process's own and needed observations: the plan is the same on every process.
  std::vector<std::vector<std::size_t>> own(peers), needed(peers);
  for (int r = 0; r < layout.ranks(); ++r) {
    const auto ru = static_cast<std::size_t>(r);
    own[ru] = observations_on(sites_, g, layout.first_grid_row(r), layout.end_grid_row(r));
    const auto nodes = letkf_.nodes_for_grid_rows(layout.first_grid_row(r), layout.end_grid_row(r));
    needed[ru] = letkf_.observations_for(nodes);
    if (r == rank) nodes_ = nodes;
  }
  own_ = own[me];
  std::set_union(own_.begin(), own_.end(), needed[me].begin(), needed[me].end(),
                 std::back_inserter(available_));
  send_.resize(peers);
  receive_.resize(peers);
  for (std::size_t r = 0; r < peers; ++r) {
    if (r == me) continue;
    send_[r] = positions_of_common(own_, needed[r], own_);
    receive_[r] = positions_of_common(own[r], needed[me], available_);
  }
  const auto members = static_cast<std::size_t>(layout.members());
  send_segments_ = segments_of(send_, members);
  receive_segments_ = segments_of(receive_, members);
}

std::vector<std::size_t> RegionalAnalysis::halo_sends() const {
  std::vector<std::size_t> out;
  for (const auto& list : send_) out.push_back(list.size());
  return out;
}

std::size_t RegionalAnalysis::slice_row(std::size_t state_row) const {
  const auto g = static_cast<std::size_t>(grid_);
  const std::size_t layer = state_row / (g * g);
  const std::size_t j = (state_row % (g * g)) / g;
  const std::size_t first = layout_.first_grid_row(rank_);
  const std::size_t band = layout_.end_grid_row(rank_) - first;
  return (layer * band + (j - first)) * g + state_row % g;
}

MatrixXd RegionalAnalysis::observe(const MatrixXd& slice) const {
  MatrixXd out(Index(own_.size()), slice.cols());
  for (std::size_t i = 0; i < own_.size(); ++i) {
    const auto row = Index(slice_row(sites_[own_[i]]));
    for (Index j = 0; j < slice.cols(); ++j) out(Index(i), j) = ssh_per_psi_ * slice(row, j);
  }
  return out;
}

MatrixXd RegionalAnalysis::exchange(harness::InstrumentedComm& comm, int channel,
                                    const MatrixXd& own_observed) const {
  const Index members = own_observed.cols();
  std::vector<double> out(total(send_segments_));
  for (std::size_t r = 0; r < send_.size(); ++r) {
    double* at = out.data() + send_segments_.offset[r];
    for (std::size_t pos : send_[r]) {
      for (Index j = 0; j < members; ++j) *at++ = own_observed(Index(pos), j);
    }
  }
  std::vector<double> in(total(receive_segments_));
  pairwise_alltoallv(comm, channel, out.data(), send_segments_, in.data(), receive_segments_);

  MatrixXd available(Index(available_.size()), members);
  for (std::size_t i = 0; i < own_.size(); ++i) {
    const auto pos = std::lower_bound(available_.begin(), available_.end(), own_[i]);
    available.row(pos - available_.begin()) = own_observed.row(Index(i));
  }
  for (std::size_t r = 0; r < receive_.size(); ++r) {
    const double* at = in.data() + receive_segments_.offset[r];
    for (std::size_t pos : receive_[r]) {
      for (Index j = 0; j < members; ++j) available(Index(pos), j) = *at++;
    }
  }
  return available;
}

void RegionalAnalysis::prepare(const MatrixXd& available_observed, const Eigen::VectorXd& y) {
  letkf_.compute(nodes_, available_, available_observed, y);
}

MatrixXd RegionalAnalysis::apply(const MatrixXd& slice, double relaxation) const {
  MatrixXd out(slice.rows(), slice.cols());
  Index at = 0;
  for (std::size_t b : layout_.owned_blocks(rank_)) {
    const auto len = Index(layout_.block_end(b) - layout_.block_begin(b));
    // Fresh copies: the same shapes whatever band this process holds.
    const MatrixXd forecast = slice.middleRows(at, len);
    MatrixXd analysed(len, slice.cols());
    for (Index r = 0; r < len; ++r)
      analysed.row(r) =
          letkf_.analyse_row(layout_.block_begin(b) + std::size_t(r), forecast.row(r));
    relax_to_prior_spread(forecast, analysed, relaxation);
    out.middleRows(at, len) = analysed;
    at += len;
  }
  return out;
}

std::vector<ObservationTerms> RegionalAnalysis::terms(const MatrixXd& own_observed,
                                                      const Eigen::VectorXd& y, int analysis,
                                                      double variance, std::int64_t seed) const {
  const MatrixXd noise =
      rank_noise(analysis, Index(sites_.size()), own_observed.cols(), variance, seed);
  std::vector<ObservationTerms> out;
  for (std::size_t i = 0; i < own_.size(); ++i) {
    const Eigen::RowVectorXd forecast = own_observed.row(Index(i));
    const Eigen::RowVectorXd analysed = letkf_.analyse_row(sites_[own_[i]], forecast);
    out.push_back(observation_terms(forecast, analysed, y[Index(own_[i])], variance,
                                    noise.row(Index(own_[i]))));
  }
  return out;
}

}  // namespace mcb::ensflow
