#pragma once
/// @file
/// @brief Options of mcb-sim: one struct with the defaults, parsed through mcb::cli::parse.

#include "simulator/discipline.hpp"

#include <boost/any.hpp>

#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

namespace mcb::sim {

/// @brief Every option of mcb-sim, with its default. Lists ("gs,ls") and ranges
/// ("0.1:0.9:0.1") make a sweep.
struct Options {
  // Workload.
  std::string workload;               //!< built-in mix (poisson, ensflow, mixed) or mix INI file
  std::string trace;                  //!< SWF file, or CSV job list (.csv)
  long long jobs = 50000;             //!< synthetic: number of jobs
  std::string rate;                   //!< arrivals per second (list or range)
  std::string utilization;            //!< target net utilization (list or range)
  std::string request = "unordered";  //!< request type of generated and SWF jobs
  int flex_min_component = 1;         //!< flexible: the user's smallest component
  int flex_max_components = 0;        //!< flexible: the user's most components (0: none)
  // System and scheduling.
  std::string clusters = "4x32";
  std::string speeds;            //!< one per cluster, or one for all (default 1)
  std::string policy = "gs";     //!< gs|ls|lp|ic|grid (list)
  std::string placement = "wf";  //!< wf|fcm|ff|bf (list)
  std::string rule = "no";       //!< no|co|rco|fco (list)
  std::string queue = "fcfs";    //!< fcfs|easy|cons (list)
  int max_component = 0;         //!< [rco]/[fco] component limit (0: half the smallest cluster)
  long long backfill_depth = 0;  //!< jobs behind a head EASY may try (0: all)
  std::string compression = "arrival";  //!< cons: re-insertion order, arrival|reservation
  CompressAt compress_at = CompressAt::kEarlyEnd;  //!< cons: which ends compress the plan
  std::string arrival_pass = "yes";                //!< an arrival triggers a scheduling pass
  std::string home = "random";  //!< home cluster of jobs without one: random|turn
  std::string site_rates;       //!< relative arrival rate per home cluster (empty: by cluster size)
  std::string lp_global_visit = "next-round";  //!< LP: global queue enabled mid-round
  // Link-aware placement (seed 002, matching/).
  std::string platform;             //!< platform file: nodes' power, links' bandwidth
  std::string matcher = "optimal";  //!< optimal|non-saturated|first-feasible
  double pnbw = 0.25;               //!< per-node bandwidth of every job, platform units
  double comm_share = 0.5;          //!< T^c / (T^p + T^c) of every job
  std::string job_model;            //!< mcb-calibrate --job-model table: each job's model
  double match_time_limit = 60.0;   //!< seconds per match
  // Moldable requests and site selection (seed 001 section V).
  double moldable_min = 0.5;         //!< smallest size = ceil(F x requested)
  std::string speedup = "linear";    //!< linear|downey
  double downey_sigma = 1.0;         //!< Downey's variance of parallelism
  std::string site_select = "idle";  //!< idle|power
  // Service times.
  std::vector<std::string> tables;  //!< directories (runtimes.csv) or CSV files
  std::string statistic = "avg";
  std::vector<std::string> problems;  //!< app=problem
  std::string system;
  double estimate_factor = 1.0;         //!< requested time = factor x service time (tables)
  std::string coalloc_factor = "1.25";  //!< trace runtimes x factor when spread: F or K:F,...
  // Statistics.
  std::int64_t seed = 1;  //!< signed so that '-1' is refused, not wrapped to 2^64-1
  int replications = 1;
  std::string warmup = "10%";  //!< traces: 0 unless given
  int batches = 20;
  std::string bsld_threshold = "10s";
  double saturation_backlog = 0.01;
  long long max_in_system = 0;  //!< 0: max(2000, 5% of the jobs); traces: no limit unless given
  // Output.
  std::string output;
  bool no_jobs_csv = false;
  std::string schedule;  //!< schedule files of a single run: batsim, swf (list)
  /// Long names of the options the user gave (command line or --config), as opposed to those
  /// left at their defaults: a default may depend on other options (traces), and a given value
  /// is never silently replaced.
  std::set<std::string> given;
  bool was_given(const std::string& name) const { return given.count(name) > 0; }
};

// --compress-at typed at parse time (cli::validate_choice), spelled by compress_at_name.
void validate(boost::any& v, const std::vector<std::string>& values, CompressAt*, int);
std::ostream& operator<<(std::ostream& os, CompressAt at);

/// @brief Parses the command line (and --config FILE). Returns false when --help was printed.
/// @throws UsageError on unknown options and malformed values.
bool parse_options(int argc, const char* const* argv, Options& options);

/// @brief The schedule files --schedule asks for.
struct ScheduleFiles {
  bool batsim = false;  //!< batsim_jobs.csv
  bool swf = false;     //!< schedule.swf
};

/// @brief Parses --schedule ("batsim,swf", one or both). @throws UsageError naming --schedule.
ScheduleFiles parse_schedule(const std::string& text);

/// @brief Splits "a,b,c" into its items. @throws UsageError naming @p option on empty items.
std::vector<std::string> split_list(const std::string& option, const std::string& text);

/// @brief Parses "0.5", "0.3,0.5" or "0.1:0.9:0.1" (inclusive) into positive numbers.
/// @throws UsageError naming @p option.
std::vector<double> parse_values(const std::string& option, const std::string& text);

/// @brief Parses --coalloc-factor: "F" (every k >= 2 clusters) or "2:F2,3:F3,..." (each k from
/// 2 to @p clusters once). Returns the factor by number of clusters, index k (1 for k = 0, 1).
/// @throws UsageError naming --coalloc-factor.
std::vector<double> parse_coalloc_factors(const std::string& text, int clusters);

/// @brief Parses --site-rates "R0,R1,...": one relative arrival rate >= 0 per cluster, at least
/// one > 0. @throws UsageError naming --site-rates.
std::vector<double> parse_site_rates(const std::string& text, int clusters);

}  // namespace mcb::sim
