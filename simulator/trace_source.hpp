#pragma once
/// @file
/// @brief Trace workloads: SWF files (one cluster's jobs, split into components by the
/// co-allocation rule) and CSV job lists (explicit components), streamed. A first pass checks
/// every line before anything runs; the run then reads the file again.

#include "simulator/engine.hpp"
#include "simulator/job_mix.hpp"
#include "simulator/policy.hpp"
#include "simulator/swf.hpp"
#include "simulator/tables.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace mcb::sim {

class JobListReader;

/// @brief What turns trace lines into jobs.
struct TraceSpec {
  std::string path;
  RequestType type = RequestType::kUnordered;  //!< SWF jobs, and list jobs without a type
  Rule rule = Rule::kNo;                       //!< how SWF jobs are split; flexible limits
  double min_share = 0.5;                      //!< moldable: smallest size by rule
  int component_limit = 0;                     //!< largest component of [rco] and [fco]
  FlexBounds flex;                             //!< the user's bounds on flexible requests
  MachineSpec machine;
  std::vector<std::string> apps;    //!< names, index = Job::app ("trace" for SWF)
  const PriceBook* book = nullptr;  //!< for list jobs without a runtime
  Time origin = 0;                  //!< submit time that becomes time 0
  double scale = 1;                 //!< submit offsets are divided by it
  std::uint64_t seed = 1;
};

/// @brief What the checking pass learned.
struct TraceScan {
  bool swf = true;
  SwfHeader header;
  std::uint64_t jobs = 0;
  std::map<std::string, std::uint64_t> skipped;  //!< reason -> lines
  Time first_submit = 0, last_submit = 0;
  double runtime_work = 0;           //!< sum of processors x runtime (runtime-priced)
  std::vector<std::string> apps;     //!< every app name, in order of appearance
  std::set<std::string> table_apps;  //!< apps priced by runtime tables
  /// Table-priced jobs by (app, total size).
  std::map<std::pair<std::string, int>, std::uint64_t> table_jobs;
  /// Table-priced shapes: (app, total, type, components) -> first line.
  std::map<std::tuple<std::string, int, int, int>, long> shapes;
};

/// @brief Streams the jobs of a trace.
class TraceSource final : public JobSource {
 public:
  explicit TraceSource(TraceSpec spec);
  ~TraceSource() override;
  bool next(Job& job) override;

  /// @brief Reads the whole trace once, checking every line (format, order, that each job can
  /// run on the system under the policy). @throws UsageError naming the file and line.
  static TraceScan scan(TraceSpec spec, const Policy& policy, const PlacementRule& placement);

 private:
  /// Fills @p job from the next usable line; false at the end. Lines with unknown processors
  /// or runtime are skipped and counted in @p skipped.
  bool read(Job& job, Rng* rng, std::map<std::string, std::uint64_t>* skipped, long& line,
            double& raw_submit, std::string& app_name);

  TraceSpec spec_;
  bool swf_;
  std::unique_ptr<SwfReader> swf_reader_;
  std::unique_ptr<JobListReader> list_reader_;
  std::map<std::string, int> app_index_;
  Rng splits_;
  std::vector<int> parts_;
  std::vector<int> eligible_;
  std::int64_t count_ = 0;
  bool stated_id_ = false;  //!< the last job's id came from the file (duplicates are refused)
};

/// @brief True when @p path names a CSV job list (ends in .csv), else SWF.
bool is_job_list(const std::string& path);

}  // namespace mcb::sim
