#pragma once
/// @file
/// @brief A study: the options checked and turned into points (policy x placement x rule x
/// queue x arrival rate) and replications, each of which is one simulation.

#include "simulator/job_mix.hpp"
#include "simulator/machine.hpp"
#include "simulator/moldable.hpp"
#include "simulator/options.hpp"
#include "simulator/placement.hpp"
#include "simulator/recorder.hpp"
#include "simulator/service.hpp"
#include "simulator/tables.hpp"
#include "simulator/trace_source.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace mcb::sim {

/// @brief One configuration of a study.
struct Point {
  std::string policy, placement, rule, queue;
  double rate = 0;         //!< arrivals per second
  double utilization = 0;  //!< offered net utilization
  double scale = 1;        //!< traces: arrival-time compression (1: as recorded)
};

/// @brief A checked study, ready to run.
class Study {
 public:
  /// @brief Checks every option and input (tables, mix, the whole trace) and creates nothing.
  /// @throws UsageError naming the option, file or line and the bad value.
  static Study build(const Options& options);

  const Options& options() const { return o_; }
  const std::vector<Point>& points() const { return points_; }
  int replications() const { return o_.replications; }
  size_t item_count() const { return points_.size() * static_cast<size_t>(o_.replications); }
  /// More than one point: sweep.csv and sweep.json instead of jobs.csv and summary.json.
  bool sweep() const { return points_.size() > 1; }
  /// Seed of replication @p r (replication 0 uses --seed itself).
  std::uint64_t seed_of(int replication) const;
  std::vector<std::string> queue_names(const std::string& policy) const;

  /// @brief Where one run writes its per-job files (null: not written).
  struct ItemFiles {
    std::ostream* jobs_csv = nullptr;  //!< jobs.csv
    std::ostream* batsim = nullptr;    //!< Batsim's jobs file
    std::ostream* swf = nullptr;       //!< SWF schedule
  };
  /// @brief Runs item @p item and writes the files of @p files.
  nlohmann::json run_item(size_t item, const ItemFiles& files) const;
  /// The schedule files --schedule asks for (none unless given).
  ScheduleFiles schedule_files() const { return schedule_; }

  /// @brief Runs item @p item (point item / replications, replication item % replications).
  /// Writes per-job lines (no header) to @p jobs_csv if given. Returns the run's result:
  /// {"point", "replication", "seed", "summary"}.
  nlohmann::json run_item(size_t item, std::ostream* jobs_csv) const {
    return run_item(item, ItemFiles{jobs_csv, nullptr, nullptr});
  }

  /// Whether runs stop early past max_in_system only because the user asked (traces).
  bool early_stop_requested() const { return !synthetic_ && o_.max_in_system > 0; }
  bool synthetic() const { return synthetic_; }
  /// Jobs of the trace skipped when read (unknown processors or runtime), by reason.
  const std::map<std::string, std::uint64_t>& skipped() const { return scan_.skipped; }
  /// Jobs of the trace (0 for a synthetic workload).
  std::uint64_t trace_jobs() const { return synthetic_ ? 0 : scan_.jobs; }

  /// The effective configuration, for the outputs.
  nlohmann::json config_json() const;

 private:
  /// The option lists of a study and the loads they give.
  struct Lists {
    std::vector<std::string> policies, placements, rules, queues;
    std::vector<double> rates, utils;
    std::vector<std::pair<double, double>> loads;  //!< (rate, offered net utilization)
    std::vector<double> scales;                    //!< traces: arrival-time compression
  };
  void load_book(const std::vector<std::string>& apps);
  void setup_synthetic(Lists& lists);
  void setup_trace(Lists& lists);
  void scan_trace(const Lists& lists);
  double trace_work();
  void make_points(const Lists& lists);
  ServiceModel service_model() const;

  /// The user's bounds on flexible requests (--flex-min-component, --flex-max-components).
  FlexBounds flex_bounds() const { return {o_.flex_min_component, o_.flex_max_components}; }

  Options o_;
  Statistic statistic_ = Statistic::kAvg;
  std::map<std::string, std::string> problems_;
  bool clusters_from_header_ = false;  //!< SWF trace without --clusters: MaxProcs
  MachineSpec machine_;
  PlacementSettings placement_settings_;  //!< --placement link-aware's platform and matcher
  RequestType request_ = RequestType::kUnordered;
  MoldableModel moldable_;  //!< --request moldable: speedup and smallest-size rule
  int component_limit_ = 1;
  std::vector<double> coalloc_factors_;  //!< --coalloc-factor by number of clusters
  double bsld_threshold_ = 10;
  std::uint64_t warmup_jobs_ = 0;
  std::uint64_t max_in_system_ = 0;
  bool synthetic_ = true;
  ScheduleFiles schedule_;
  std::vector<std::string> apps_;
  std::shared_ptr<PriceBook> book_;
  std::map<std::string, std::vector<MixChoice>> choices_;  //!< by rule
  TraceScan scan_;
  double trace_utilization_ = 0;  //!< offered net utilization of the trace as recorded
  std::vector<Point> points_;
};

}  // namespace mcb::sim
