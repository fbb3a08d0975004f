#pragma once
/// @file
/// @brief Trace workloads: SWF files (one cluster's jobs, split into components by the
/// co-allocation rule) and CSV job lists (explicit components). The checking pass reads the file
/// once, checks every line before anything runs and keeps the usable jobs as read; the runs
/// replay those instead of reading the file again.

#include "simulator/engine.hpp"
#include "simulator/job_mix.hpp"
#include "simulator/joblist.hpp"
#include "simulator/policy.hpp"
#include "simulator/swf.hpp"
#include "simulator/tables.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace mcb::sim {

/// @brief The usable jobs of a trace as read, before a rule splits them: the checking pass keeps
/// them, and every run of the study replays them.
struct TraceRecords {
  /// @brief An SWF job: the fields a run uses (48 bytes: the checking pass keeps one per job).
  struct Swf {
    long line = 0;
    std::int64_t job = -1;
    double submit = 0, run = 0, req_time = -1;
    /// Allocated processors, else the requested ones: an int, as a job of more than the
    /// machine's processors is refused as it is read.
    int procs = 0;
    int partition = -1;  //!< the file's where 1 or more and an int, else -1 (no cluster)
  };
  /// @brief A list job as read: the columns nearly every list gives. The fields most lists leave
  /// out (ListFields' type, home and bounds), more than one component and clusters are kept
  /// apart, for the jobs that give them (Rare): this record is 48 bytes where one with every
  /// field was 80, and the checking pass keeps one per job.
  struct Listed {
    long line = 0;
    std::int64_t id = -1;
    double submit = 0, runtime = -1, requested = -1;
    int app = 0;  //!< index into apps ("" where the list names none)
    /// The size of its one component when it has nothing rare (> 0), else -1 - its index in
    /// rare.
    int one_size = 0;
  };
  /// @brief What a list job gives beyond Listed, as ListFields has it.
  struct Rare {
    int type = -1, home = -1;
    int min_component = 1, max_component = 0, max_components = 0, min_size = 0;
    std::uint32_t parts = 0;                //!< first of its components, then clusters, in parts
    std::uint32_t sizes = 0, clusters = 0;  //!< how many of each
  };
  std::vector<Swf> swf;
  std::vector<Listed> list;
  std::vector<Rare> rare;         //!< of the list jobs that give more than Listed holds
  std::vector<int> parts;         //!< the rare list jobs' components and clusters
  std::vector<std::string> apps;  //!< the list jobs' app names
  /// Keeps @p record, whose parts were appended to parts from @p first, as a Listed (its app
  /// name added to apps when new) and, when it gives more, a Rare (else its one part is taken
  /// back from parts).
  void add(const ListRecord& record, std::size_t first);
  /// What @p job gives beyond Listed: the defaults (one component, no clusters) when nothing.
  const Rare& rare_of(const Listed& job) const {
    return job.one_size > 0 ? kPlain : rare[static_cast<std::size_t>(-1 - job.one_size)];
  }
  /// The components of @p job, of its Rare @p more (rare_of()).
  std::span<const int> sizes(const Listed& job, const Rare& more) const {
    if (job.one_size > 0) return {&job.one_size, 1};
    return {parts.data() + more.parts, more.sizes};
  }
  /// The clusters of @p job, of its Rare @p more (rare_of()).
  std::span<const int> clusters(const Rare& more) const {
    return {parts.data() + more.parts + more.sizes, more.clusters};
  }
  /// The name a job of app number @p app runs under: "trace" for SWF jobs (-1), "job" for list
  /// jobs that name none.
  const std::string& app_name(int app) const;
  /// Reserves room for the jobs a file like @p path may hold.
  void reserve_for(const std::string& path, bool swf_file);
  SwfHeader header;
  std::map<std::string, std::uint64_t> skipped;  //!< reason -> lines

 private:
  /// The index of @p name in apps, added when new.
  int app_number(std::string_view name);
  int last_app_ = -1;  //!< the last job's, checked first
  /// A job of one component (in Listed: none here) without clusters, type, home or bounds.
  static const Rare kPlain;
};

class RunsAlone;

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
  /// The jobs a checking pass read (TraceScan::records), replayed instead of reading the file;
  /// null: the file is read.
  std::shared_ptr<const TraceRecords> records;
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
  std::shared_ptr<const TraceRecords> records;  //!< every usable job, for the runs
};

/// @brief Streams the jobs of a trace.
class TraceSource final : public JobSource {
 public:
  explicit TraceSource(TraceSpec spec);
  ~TraceSource() override;
  bool next(Job& job) override;

  /// @brief Reads the whole trace once (or replays @p spec's records), checking every line
  /// (format, order, that each job can run on the system under the policy); keeps the jobs read
  /// in TraceScan::records. @throws UsageError naming the file and line.
  static TraceScan scan(TraceSpec spec, const Policy& policy, const PlacementRule& placement);

 private:
  /// Fills @p job from the next usable line; false at the end. Lines with unknown processors
  /// or runtime are skipped and counted in @p skipped. @p app: the job's app number in its
  /// records (TraceRecords::app_name), -1 for SWF.
  bool read(Job& job, Rng* rng, std::map<std::string, std::uint64_t>* skipped, long& line,
            double& raw_submit, int& app);
  /// For the checking pass: when job @p rec (of @p from) is one component of a size and type
  /// runs_alone_ knows to run, without a home, clusters or a table price, sets the fields the
  /// pass reads (id, line, total, runtime) and returns true; the rest of @p job is stale.
  bool checked_alone(Job& job, const TraceRecords::Swf& rec);
  bool checked_alone(Job& job, const TraceRecords::Listed& rec);
  /// checked_alone()'s common part: whether runs_alone_ knows one component of @p size and
  /// @p type to run; if so, sets @p job's line, total and runtime.
  bool known_alone(Job& job, RequestType type, long long size, long line, double runtime);
  /// The refusal of job @p id on @p line, of @p procs processors, more than the machine has.
  [[noreturn]] void refuse_larger(long line, std::int64_t id, long long procs) const;
  /// Fills @p job from an SWF record, split by the rule (a split drawn with @p rng, else the
  /// first).
  void fill_swf(Job& job, const TraceRecords::Swf& rec, Rng* rng);
  /// Fills @p job from a list record of @p from.
  void fill_listed(Job& job, const TraceRecords& from, const TraceRecords::Listed& rec);
  /// The next SWF job of the records or the file (kept when recording); false at the end.
  bool next_swf(TraceRecords::Swf& out, std::map<std::string, std::uint64_t>* skipped);
  /// The records holding the next list job (the study's, the recording or a scratch copy), its
  /// index in @p at; null at the end.
  const TraceRecords* next_listed(std::size_t& at);

  TraceSpec spec_;
  bool swf_;
  long long machine_total_;  //!< the machine's processors, against which each job is checked
  int largest_cluster_;      //!< the machine's largest cluster
  RuleLimits limits_;        //!< the rule's limits on components
  std::unique_ptr<SwfReader> swf_reader_;
  std::unique_ptr<JobListReader> list_reader_;
  std::shared_ptr<TraceRecords> recording_;  //!< the checking pass keeps each job read here
  std::size_t replayed_ = 0;                 //!< records of spec_.records given out
  ListRecord listed_;                        //!< the last list job read from the file, reused
  TraceRecords scratch_;                     //!< holds it when not recording
  std::map<std::string, int> app_index_;
  // The last list job's app: its records (whose names are only ever appended), its number
  // there, and its index in spec_.apps.
  const TraceRecords* last_app_from_ = nullptr;
  int last_app_ = -1;
  int last_app_index_ = 0;
  int trace_app_ = 0;  //!< the index in spec_.apps of "trace", every SWF job's app
  Rng splits_;
  std::vector<int> parts_;
  std::vector<int> eligible_;
  std::int64_t count_ = 0;
  bool stated_id_ = false;  //!< the last job's id came from the file (duplicates are refused)
  /// The checking pass's requests known to run (null in a run), and whether the last job read
  /// was one of them, checked without building its Job (checked_alone()).
  const RunsAlone* runs_alone_ = nullptr;
  bool checked_ = false;
};

/// @brief True when @p path names a CSV job list (ends in .csv), else SWF.
bool is_job_list(const std::string& path);

}  // namespace mcb::sim
