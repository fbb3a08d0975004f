#include "simulator/workload_synthetic.hpp"

#include "simulator/moldable.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mcb::sim {

double mean_net_work(const std::vector<MixChoice>& choices, const std::vector<std::string>& apps,
                     const PriceBook& book) {
  double work = 0;
  for (const MixChoice& c : choices) {
    work += c.probability * c.total * book.price(apps[static_cast<size_t>(c.app)], c.total, 1);
  }
  return work;
}

SyntheticSource::SyntheticSource(SyntheticSpec spec)
    : spec_(std::move(spec)),
      arrivals_(derive_seed(spec_.seed, 1)),
      choices_(derive_seed(spec_.seed, 2)),
      clusters_(derive_seed(spec_.seed, 3)) {
  double sum = 0;
  for (const MixChoice& c : spec_.choices) {
    sum += c.probability;
    cumulative_.push_back(sum);
    const PriceList* prices =
        spec_.book ? spec_.book->find(spec_.apps[static_cast<size_t>(c.app)], c.total) : nullptr;
    prices_.push_back(prices);
    std::uint64_t counts = 0;
    if (prices) {
      for (size_t k = 1; k < prices->size() && k < 64; ++k) {
        if (std::isfinite((*prices)[k])) counts |= std::uint64_t{1} << k;
      }
    }
    counts_.push_back(counts);
  }
  if (!cumulative_.empty()) {
    for (double& c : cumulative_) c /= sum;
    cumulative_.back() = 1.0;
  }
}

bool SyntheticSource::next(Job& job) {
  if (made_ == spec_.jobs) return false;
  ++made_;
  t_ += arrivals_.exponential(spec_.rate);
  const double u = choices_.uniform();
  const size_t i = static_cast<size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), u) -
                                       cumulative_.begin());
  const MixChoice& c = spec_.choices[std::min(i, spec_.choices.size() - 1)];
  const size_t ci = std::min(i, spec_.choices.size() - 1);

  job.id = static_cast<std::int64_t>(made_);
  job.submit = t_;
  job.app = c.app;
  job.home = -1;
  job.line = 0;
  job.price = Pricing{prices_[ci], -1, -1};
  Request& r = job.req;
  r.type = spec_.type;
  r.total = c.total;
  r.clear_bounds();
  if (spec_.type == RequestType::kMoldable) {
    make_moldable(r, c.total, 0, spec_.min_share);
    return true;
  }
  if (spec_.type == RequestType::kFlexible) {
    r.sizes.assign(1, c.total);
    bound_flexible(r, spec_.limits, spec_.flex);
    r.allowed_counts = counts_[ci];
    return true;
  }
  near_equal(c.total, c.components, r.sizes);
  if (spec_.type == RequestType::kFixed) {
    // Distinct clusters drawn uniformly among those that can hold a component.
    eligible_.clear();
    for (int k = 0; k < spec_.machine.clusters(); ++k) {
      if (spec_.machine.sizes[static_cast<size_t>(k)] >= r.sizes.front()) eligible_.push_back(k);
    }
    for (size_t k = 0; k < r.sizes.size(); ++k) {
      const size_t pick = k + static_cast<size_t>(clusters_.below(eligible_.size() - k));
      std::swap(eligible_[k], eligible_[pick]);
      r.clusters.push_back(eligible_[k]);
    }
  }
  return true;
}

}  // namespace mcb::sim
