#include "simulator/service.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace mcb::sim {

std::uint64_t feasible_counts(const Request& req, int clusters) {
  const auto upto = [](int k) {
    return k >= 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (k + 1)) - 1;
  };
  const int comps = static_cast<int>(req.sizes.size());
  switch (req.type) {
    case RequestType::kUnordered:
      return std::uint64_t{1} << std::min(comps, 63);
    case RequestType::kFixed: {
      ClusterMask used = 0;
      for (int c : req.clusters) used |= ClusterMask{1} << c;
      return std::uint64_t{1} << popcount(used);
    }
    case RequestType::kNonFixed:
      return upto(std::min(comps, clusters)) & ~std::uint64_t{1};
    case RequestType::kFlexible: {
      int most = std::min(clusters, req.total);
      if (req.max_components > 0) most = std::min(most, req.max_components);
      if (req.min_component > 1) most = std::min(most, req.total / req.min_component);
      return req.allowed_counts & upto(most) & ~std::uint64_t{1};
    }
    case RequestType::kMoldable:
      return std::uint64_t{1} << 1;
  }
  return 0;
}

double ServiceModel::base(const Job& job, int k) const {
  if (job.price.table) {
    const PriceList& list = *job.price.table;
    for (size_t i = static_cast<size_t>(k); i < list.size(); ++i) {
      if (std::isfinite(list[i])) return list[i];
    }
    throw std::logic_error("no price for job " + std::to_string(job.id) + " on " +
                           std::to_string(k) + " clusters");
  }
  return job.price.runtime * coalloc_factor(k);
}

double ServiceModel::requested_base(const Job& job, int k) const {
  if (job.price.table) return estimate_ * base(job, k);
  const double single = job.price.requested > 0 ? std::max(job.price.requested, job.price.runtime)
                                                : estimate_ * job.price.runtime;
  return single * coalloc_factor(k);
}

double ServiceModel::plan(const Job& job, const Machine& machine) const {
  const std::uint64_t counts = feasible_counts(job.req, machine.clusters());
  double longest = 0;
  for (std::uint64_t left = counts & ~std::uint64_t{1}; left != 0; left &= left - 1) {
    longest = std::max(longest, requested_base(job, std::countr_zero(left)));
  }
  // A moldable job is longest at its smallest size.
  if (job.req.type == RequestType::kMoldable) {
    longest *= speedup_.stretch(job.req.total, smallest_size(job.req));
  }
  return longest / machine.slowest(job.allowed);
}

double ServiceModel::stretch(const Job& job, std::span<const int> alloc) const {
  if (job.req.type != RequestType::kMoldable) return 1.0;
  int procs = 0;
  for (int p : alloc) procs += p;
  return speedup_.stretch(job.req.total, procs);
}

}  // namespace mcb::sim
