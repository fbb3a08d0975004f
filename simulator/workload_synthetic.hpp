#pragma once
/// @file
/// @brief Synthetic workloads: a job mix with Poisson arrivals (exponential interarrival
/// times), priced by runtime tables; reproducible bit for bit from the seed.

#include "common/rng.hpp"
#include "simulator/engine.hpp"
#include "simulator/job_mix.hpp"
#include "simulator/tables.hpp"

#include <cstdint>
#include <vector>

namespace mcb::sim {

/// @brief Everything a synthetic workload needs.
struct SyntheticSpec {
  std::vector<MixChoice> choices;
  std::vector<std::string> apps;  //!< names, indexed by MixChoice::app
  const PriceBook* book = nullptr;
  RequestType type = RequestType::kUnordered;
  RuleLimits limits;       //!< flexible requests: the rule's limits
  FlexBounds flex;         //!< flexible requests: the user's bounds
  double min_share = 0.5;  //!< moldable requests: smallest size by rule
  MachineSpec machine;
  double rate = 1;         //!< arrivals per second
  std::uint64_t jobs = 0;  //!< number of jobs
  std::uint64_t seed = 1;
};

/// @brief Mean net work (processors x single-cluster service time) per job of the mix.
double mean_net_work(const std::vector<MixChoice>& choices, const std::vector<std::string>& apps,
                     const PriceBook& book);

/// @brief Generates the jobs of a SyntheticSpec.
class SyntheticSource final : public JobSource {
 public:
  explicit SyntheticSource(SyntheticSpec spec);
  bool next(Job& job) override;

 private:
  SyntheticSpec spec_;
  std::vector<double> cumulative_;
  std::vector<const PriceList*> prices_;
  std::vector<std::uint64_t> counts_;  //!< flexible: numbers of clusters the table prices
  Rng arrivals_, choices_, clusters_;
  std::uint64_t made_ = 0;
  Time t_ = 0;
  std::vector<int> eligible_;
};

}  // namespace mcb::sim
