#pragma once
/// @file
/// @brief Seed 002's model as the price of every placement when `mcb-sim --platform` is given:
/// a job started on some processors of each cluster runs on the best idle nodes there, takes
/// its eq. 4 bandwidth on every inter-cluster link it crosses until it departs, and runs for
/// its single-cluster time x T / (T^p + T^c) (eq. 1), whichever rule placed it. So WF, FCM and
/// link-aware are compared under one pricing.

#include "matching/model.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcb::sim {

class PriceBook;

/// @brief Seed 002's model of each job of a run, fitted by `mcb-calibrate --job-model`
/// (`mcb-sim --job-model FILE`): per application index, by total size, PNBW (MB/s) and
/// T^p, T^c scaled to T^p + T^c = 1.
struct JobModels {
  std::string file;
  std::vector<std::map<int, matching::Job>> by_app;
  /// The model of a job of application @p app on @p tasks processors, or nullptr.
  const matching::Job* find(int app, int tasks) const;
  /// The largest PNBW of any job (the nodes' order of eligibility is taken with it).
  double largest_pnbw() const;
};

/// @brief Reads @p file (common/job_models.hpp) and takes, for each application of @p apps, the
/// rows of the problem @p book prices it with, one for every total size the book holds.
/// @throws UsageError "--job-model: <file>..." for an unreadable table or a missing row.
JobModels load_job_models(const std::string& file, const std::vector<std::string>& apps,
                          const PriceBook& book);

class ModelPricing {
 public:
  /// @param unsaturated whether every placement keeps the links unsaturated (link-aware with
  /// the non-saturated or first-feasible matcher): it bounds SC by 1 in @ref bound.
  /// @param models each job's T^c share and PNBW (--job-model), or null: @p pnbw and
  /// @p comm_share for every job.
  ModelPricing(std::shared_ptr<const matching::Platform> platform, double pnbw, double comm_share,
               bool unsaturated, std::shared_ptr<const JobModels> models = nullptr);

  /// The nodes a placement may use on each cluster and the links as the running jobs load them.
  struct View {
    matching::Platform platform;
    std::vector<std::vector<int>> nodes;  //!< view node k of cluster c is platform node nodes[c][k]
  };
  /// @brief At most @p avail[c] nodes of each cluster, best first: the idle ones (eligible
  /// before ineligible, then by effective power), then, for a plan ahead that counts
  /// processors not idle yet, the busy ones in the same order.
  View view(std::span<const int> avail) const;

  /// @brief Job @p job of application @p app starts with @p alloc processors per cluster (all
  /// idle): it takes the first alloc[c] nodes of the view and its bandwidth on the links it
  /// crosses. Returns the factor on its single-cluster time, T / (T^p + T^c).
  double start(std::uint32_t job, int app, std::span<const int> alloc);
  /// @brief The job frees its nodes and its links' bandwidth.
  void depart(std::uint32_t job);

  /// @brief The largest factor any placement can get on this platform: SP at most the slowest
  /// node's 1/Gamma, and SC at most 1 (unsaturated) or the link's (consumed + nodes x PNBW) /
  /// max, since the jobs crossing link i hold at most its cluster's nodes and each needs at
  /// most n_i x PNBW there (eq. 4). A backfilling plan made at arrival with this factor is
  /// never overrun by the price the job gets when it starts.
  /// With --job-model, the largest over every job's model.
  double bound() const;
  /// @brief The same for one job of application @p app on @p tasks processors.
  double bound(int app, int tasks) const;

  /// Changes whenever a job starts or departs (the link loads and idle nodes change).
  std::uint64_t version() const { return version_; }
  /// The job model with T^p + T^c = 1 (tasks set per match) of a job of application @p app on
  /// @p tasks processors: its own with --job-model, else the one of --pnbw and --comm-share.
  /// @throws std::logic_error when --job-model has none for it (load_job_models checks them).
  const matching::Job& job(int app, int tasks) const;

 private:
  struct Held {
    std::vector<std::pair<int, int>> nodes;  // (cluster, node)
    std::vector<double> demand;              // per link
  };

  double bound_of(const matching::Job& job) const;

  std::shared_ptr<const matching::Platform> platform_;
  matching::Job job_;
  std::shared_ptr<const JobModels> models_;
  bool unsaturated_;
  std::vector<std::vector<int>> order_;  // each cluster's nodes, best first
  std::vector<std::vector<char>> busy_;
  std::vector<double> load_;  // bandwidth of running jobs on each link
  std::unordered_map<std::uint32_t, Held> held_;
  std::uint64_t version_ = 0;
};

}  // namespace mcb::sim
