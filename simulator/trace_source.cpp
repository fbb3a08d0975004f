#include "simulator/trace_source.hpp"

#include "common/errors.hpp"
#include "simulator/joblist.hpp"
#include "simulator/moldable.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <span>
#include <unordered_map>

namespace mcb::sim {
namespace {

std::string where(const std::string& path, long line) {
  return "--trace: " + path + ":" + std::to_string(line) + ": ";
}

std::string describe(const Request& r) {
  std::string s;
  for (size_t i = 0; i < r.sizes.size(); ++i) {
    if (i) s += '+';
    s += std::to_string(r.sizes[i]);
  }
  s += " (" + std::string(to_string(r.type));
  if (r.type == RequestType::kFlexible && r.max_components > 0) {
    s += ", at most " + std::to_string(r.max_components) + " components";
  }
  if (r.type == RequestType::kFlexible && r.max_component > 0) {
    s += ", components of at most " + std::to_string(r.max_component);
  }
  return s + ")";
}

// Copies @p from into @p to, whose room is kept from job to job. The one size most jobs have
// is copied as an int: vector::assign and std::copy cost some 75 instructions for it.
template <class Sizes>  // Counts or std::vector<int>
void copy_sizes(std::span<const int> from, Sizes& to) {
  if (to.size() != from.size()) to.resize(from.size());
  if (from.size() == 1) {
    to.front() = from.front();
  } else {
    std::copy(from.begin(), from.end(), to.begin());
  }
}

// Sets the fields a trace line may leave out to their defaults.
void reset(Job& job) {
  job.req.clear_bounds();
  job.price = Pricing{};
}

// Refuses a job id the trace stated before. Traces number their jobs in increasing order,
// where no id can repeat: the ids are hashed only from the first one that is not above every
// earlier one (a table of every id cost a node per job, and a fresh page, several microseconds on
// a virtual machine, per hundred jobs).
class IdCheck {
 public:
  explicit IdCheck(bool swf) : swf_(swf) {}
  /// The line of an earlier job of @p kept with the id of its job @p index (which the trace
  /// states), or 0 when it is the first.
  long earlier(const TraceRecords& kept, std::size_t index) {
    const auto [id, line] = at(kept, index);
    if (seen_.empty()) {
      if (!any_ || id > largest_) {
        largest_ = id;
        any_ = true;
        return 0;
      }
      for (std::size_t k = 0; k < index; ++k) {
        const auto [earlier_id, earlier_line] = at(kept, k);
        if (earlier_id >= 0 || swf_) seen_.emplace(earlier_id, earlier_line);
      }
    }
    const auto [it, fresh] = seen_.emplace(id, line);
    return fresh ? 0 : it->second;
  }

 private:
  std::pair<std::int64_t, long> at(const TraceRecords& kept, std::size_t k) const {
    if (swf_) return {kept.swf[k].job, kept.swf[k].line};
    return {kept.list[k].id, kept.list[k].line};
  }
  bool swf_;
  bool any_ = false;
  std::int64_t largest_ = 0;
  std::unordered_map<std::int64_t, long> seen_;  // id -> line, once the ids are not increasing
};

// Counts a job priced by the runtime tables, whose shapes the study checks against them.
void count_table_priced(TraceScan& scan, const std::string& app, const Request& req, long line) {
  scan.table_apps.insert(app);
  ++scan.table_jobs[{app, req.total}];
  scan.shapes.insert(
      {{app, req.total, static_cast<int>(req.type), static_cast<int>(req.sizes.size())}, line});
}

}  // namespace

// Remembers which sizes of one-component requests without a home can run, so that the checking
// pass asks the policy once per size and type rather than once per job: most trace jobs are one
// component, of a few hundred sizes, and such a request is its type and size alone.
class RunsAlone {
 public:
  explicit RunsAlone(long long machine_total)
      : sizes_(machine_total <= kMostSizes ? static_cast<std::size_t>(machine_total) + 1 : 0) {}
  /// Whether @p req with @p home is one such request already known to run.
  bool known(const Request& req, int home) const {
    return home < 0 && req.sizes.size() == 1 && req.clusters.empty() && known(req.type, req.total);
  }
  /// Whether one component of @p size without a home, of @p type, is known to run.
  bool known(RequestType type, int size) const {
    const int k = kind(type);
    return k >= 0 && static_cast<std::size_t>(size) < runs_[k].size() &&
           runs_[k][static_cast<std::size_t>(size)] != 0;
  }
  /// Notes that @p req with @p home can run.
  void note(const Request& req, int home) {
    if (home >= 0 || req.sizes.size() != 1 || !req.clusters.empty()) return;
    const int k = kind(req.type);
    if (k < 0 || sizes_ == 0) return;
    if (runs_[k].empty()) runs_[k].assign(sizes_, 0);
    runs_[k][static_cast<std::size_t>(req.total)] = 1;
  }

 private:
  static constexpr long long kMostSizes = 1 << 20;  // machines past this ask every time
  // 0 or 1 for a type whose one-component request is its size alone, else -1.
  static int kind(RequestType type) {
    if (type == RequestType::kUnordered) return 0;
    return type == RequestType::kNonFixed ? 1 : -1;
  }
  std::size_t sizes_;
  std::vector<std::uint8_t> runs_[2];  // by kind, then total: 1 where it can run
};

bool is_job_list(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
}

TraceSource::TraceSource(TraceSpec spec)
    : spec_(std::move(spec)),
      swf_(!is_job_list(spec_.path)),
      machine_total_(spec_.machine.total()),
      largest_cluster_(spec_.machine.largest()),
      limits_(rule_limits(spec_.rule, spec_.component_limit)),
      splits_(derive_seed(spec_.seed, 4)) {
  if (spec_.records) {
    // Replayed: the checking pass read the file.
  } else if (swf_) {
    swf_reader_ = std::make_unique<SwfReader>(spec_.path);
  } else {
    list_reader_ = std::make_unique<JobListReader>(spec_.path);
  }
  for (size_t i = 0; i < spec_.apps.size(); ++i) app_index_[spec_.apps[i]] = static_cast<int>(i);
  const auto trace = app_index_.find("trace");
  trace_app_ = trace == app_index_.end() ? 0 : trace->second;
}

TraceSource::~TraceSource() = default;

// Inline: a run calls it for every SWF job.
[[gnu::always_inline]] inline bool TraceSource::next_swf(
    TraceRecords::Swf& out, std::map<std::string, std::uint64_t>* skipped) {
  if (spec_.records) {
    if (replayed_ == spec_.records->swf.size()) return false;
    out = spec_.records->swf[replayed_++];
    return true;
  }
  SwfRecord rec;
  long long procs = 0;
  while (true) {
    if (!swf_reader_->next(rec)) return false;
    procs = rec.procs > 0 ? rec.procs : rec.req_procs;
    const char* reason = procs <= 0    ? "unknown processors"
                         : rec.run < 0 ? "unknown runtime"
                                       : nullptr;
    if (!reason) break;
    if (skipped) ++(*skipped)[reason];
  }
  // Refused here, where the count is whole, as fill_swf() would refuse it; the rest fit an int.
  if (procs > machine_total_) refuse_larger(rec.line, rec.job, procs);
  const bool cluster = rec.partition >= 1 && rec.partition <= std::numeric_limits<int>::max();
  out = {rec.line,
         rec.job,
         rec.submit,
         rec.run,
         rec.req_time,
         static_cast<int>(procs),
         cluster ? static_cast<int>(rec.partition) : -1};
  if (recording_) recording_->swf.push_back(out);
  return true;
}

const TraceRecords::Rare TraceRecords::kPlain{};

void TraceRecords::add(const ListRecord& r, std::size_t first) {
  Listed& l = list.emplace_back();
  l.line = r.line;
  l.id = r.id;
  l.submit = r.submit;
  l.runtime = r.runtime;
  l.requested = r.requested;
  // Lists name few apps, mostly the same one line after line: that one is found without a call.
  const bool same = last_app_ >= 0 && apps[static_cast<std::size_t>(last_app_)] == r.app;
  l.app = same ? last_app_ : app_number(r.app);
  const ListFields plain;
  if (r.sizes == 1 && r.clusters == 0 && r.type == plain.type && r.home == plain.home &&
      r.min_component == plain.min_component && r.max_component == plain.max_component &&
      r.max_components == plain.max_components && r.min_size == plain.min_size) {
    l.one_size = parts.back();  // its one component, at least 1
    parts.pop_back();
    return;
  }
  l.one_size = -1 - static_cast<int>(rare.size());
  rare.push_back({r.type, r.home, r.min_component, r.max_component, r.max_components, r.min_size,
                  static_cast<std::uint32_t>(first), r.sizes, r.clusters});
}

int TraceRecords::app_number(std::string_view name) {
  const auto app = std::find(apps.begin(), apps.end(), name);
  last_app_ = static_cast<int>(app - apps.begin());
  if (app == apps.end()) apps.emplace_back(name);
  return last_app_;
}

const std::string& TraceRecords::app_name(int app) const {
  static const std::string trace = "trace", unnamed = "job";  // SWF jobs', unnamed list jobs'
  if (app < 0) return trace;
  const std::string& named = apps[static_cast<std::size_t>(app)];
  return named.empty() ? unnamed : named;
}

void TraceRecords::reserve_for(const std::string& path, bool swf_file) {
  // Room for the jobs a file of this size holds when its lines are short (SWF's shortest is 36
  // characters, a list's typically over 16): growing by doubling touched and copied twice the
  // memory, and fresh pages cost more than the reading. Only the pages used are ever touched.
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return;
  constexpr std::uintmax_t kMostReserved = std::uintmax_t{1} << 20;
  const auto jobs = static_cast<std::size_t>(std::min(size / (swf_file ? 36 : 16), kMostReserved));
  if (swf_file) {
    swf.reserve(jobs);
  } else {
    list.reserve(jobs);
    parts.reserve(jobs);
  }
}

// Inline: a run calls it for every list job.
[[gnu::always_inline]] inline const TraceRecords* TraceSource::next_listed(std::size_t& at) {
  if (spec_.records) {
    if (replayed_ == spec_.records->list.size()) return nullptr;
    at = replayed_++;
    return spec_.records.get();
  }
  TraceRecords& into = recording_ ? *recording_ : scratch_;
  if (!recording_) {
    scratch_.list.clear();
    scratch_.rare.clear();
    scratch_.parts.clear();
  }
  const std::size_t first = into.parts.size();
  if (!list_reader_->next(listed_, into.parts)) return nullptr;
  into.add(listed_, first);
  at = into.list.size() - 1;
  return &into;
}

// Inline into next() and scan(), its two callers: a run's next() then reads without the call.
[[gnu::always_inline]] inline bool TraceSource::read(Job& job, Rng* rng,
                                                     std::map<std::string, std::uint64_t>* skipped,
                                                     long& line, double& raw_submit, int& app) {
  Request& r = job.req;
  checked_ = false;
  if (swf_) {
    TraceRecords::Swf rec;
    if (!next_swf(rec, skipped)) return false;
    line = rec.line;
    raw_submit = rec.submit;
    app = -1;
    checked_ = runs_alone_ != nullptr && checked_alone(job, rec);
    if (checked_) return true;
    reset(job);
    fill_swf(job, rec, rng);
  } else {
    std::size_t at = 0;
    const TraceRecords* from = next_listed(at);
    if (!from) return false;
    const TraceRecords::Listed& rec = from->list[at];
    line = rec.line;
    raw_submit = rec.submit;
    app = rec.app;
    checked_ = runs_alone_ != nullptr && checked_alone(job, rec);
    if (checked_) return true;
    reset(job);
    fill_listed(job, *from, rec);
  }
  const int clusters = spec_.machine.clusters();
  if (r.type == RequestType::kFixed && r.clusters.empty()) {
    // SWF jobs as fixed requests: distinct clusters drawn among those that hold a component.
    eligible_.clear();
    for (int c = 0; c < clusters; ++c) {
      if (spec_.machine.sizes[static_cast<size_t>(c)] >= r.sizes.front()) eligible_.push_back(c);
    }
    for (size_t k = 0; k < r.sizes.size(); ++k) {
      const size_t pick = k + (rng ? static_cast<size_t>(rng->below(eligible_.size() - k)) : 0);
      std::swap(eligible_[k], eligible_[pick]);
      r.clusters.push_back(eligible_[k]);
    }
  }
  job.submit = (raw_submit - spec_.origin) / spec_.scale;
  return true;
}

bool TraceSource::next(Job& job) {
  long line = 0;
  double raw = 0;
  int app = 0;
  return read(job, &splits_, nullptr, line, raw, app);
}

// Inline: the checking pass calls it for nearly every job.
[[gnu::always_inline]] inline bool TraceSource::known_alone(Job& job, RequestType type,
                                                            long long size, long line,
                                                            double runtime) {
  if (size > machine_total_ || !runs_alone_->known(type, static_cast<int>(size))) return false;
  // What the checking pass reads of a job it need not check; fill_swf() and fill_listed() give
  // the same.
  job.line = line;
  job.req.total = static_cast<int>(size);
  job.price.runtime = runtime;
  return true;
}

bool TraceSource::checked_alone(Job& job, const TraceRecords::Swf& rec) {
  // One component without a home: the split fill_swf() takes without draws when the rule and
  // the largest cluster allow it.
  const long long n = rec.procs;
  if (rec.partition >= 1 && rec.partition <= spec_.machine.clusters()) return false;
  if (n > largest_cluster_ || (limits_.max_component > 0 && n > limits_.max_component)) {
    return false;
  }
  if (!known_alone(job, spec_.type, n, rec.line, rec.run)) return false;
  job.id = rec.job;
  stated_id_ = true;
  return true;
}

bool TraceSource::checked_alone(Job& job, const TraceRecords::Listed& rec) {
  // One component and nothing rare: no type, home or clusters.
  if (rec.one_size <= 0 || rec.runtime < 0) return false;
  if (!known_alone(job, spec_.type, rec.one_size, rec.line, rec.runtime)) return false;
  job.id = rec.id >= 0 ? rec.id : ++count_;
  stated_id_ = rec.id >= 0;
  return true;
}

void TraceSource::refuse_larger(long line, std::int64_t id, long long procs) const {
  throw UsageError(where(spec_.path, line) + "job " + std::to_string(id) + " needs " +
                   std::to_string(procs) + " processors; the system has " +
                   std::to_string(spec_.machine.total()) + " (--clusters " +
                   spec_.machine.describe() + ")");
}

// Inline: read()'s copy in a run's next() then fills each job without a call.
[[gnu::always_inline]] inline void TraceSource::fill_swf(Job& job, const TraceRecords::Swf& rec,
                                                         Rng* rng) {
  Request& r = job.req;
  const int clusters = spec_.machine.clusters();
  const long long procs = rec.procs;
  if (procs > machine_total_) refuse_larger(rec.line, rec.job, procs);
  const int n = static_cast<int>(procs);
  job.id = rec.job;
  stated_id_ = true;
  job.line = rec.line;
  job.app = trace_app_;
  job.home =
      rec.partition >= 1 && rec.partition <= clusters ? static_cast<int>(rec.partition - 1) : -1;
  job.price.runtime = rec.run;
  job.price.requested = rec.req_time > 0 ? rec.req_time : -1;
  r.type = spec_.type;
  r.total = n;
  const RuleLimits& lim = limits_;
  if (r.type == RequestType::kMoldable) {
    make_moldable(r, n, 0, spec_.min_share);
  } else if (r.type == RequestType::kFlexible) {
    r.sizes.assign(1, n);
    bound_flexible(r, lim, spec_.flex);
  } else {
    // Near-equal splits the rule allows and the clusters can hold, one drawn uniformly. One
    // component (k = 1), the only split on one cluster, needs no vector to check.
    int ks[kMaxClusters];
    int count = 0;
    for (int k = 1; k <= clusters && k <= n; ++k) {
      if (lim.max_components > 0 && k > lim.max_components) continue;
      if (lim.max_component > 0 && (n + k - 1) / k > lim.max_component) continue;
      if (k == 1) {
        if (n > largest_cluster_) continue;
      } else {
        near_equal(n, k, parts_);
        if (!fits_distinct(parts_, spec_.machine)) continue;
      }
      ks[count++] = k;
    }
    if (count == 0) {
      throw UsageError(where(spec_.path, rec.line) + "job " + std::to_string(rec.job) + " (" +
                       std::to_string(n) + " processors) has no split --rule " +
                       std::string(to_string(spec_.rule)) + " allows on --clusters " +
                       spec_.machine.describe());
    }
    // A draw even among one split: the runs' draws stay those of every earlier version.
    const int k = rng ? ks[rng->below(static_cast<std::uint64_t>(count))] : ks[0];
    if (k == 1) {
      copy_sizes(std::span<const int>(&n, 1), r.sizes);
    } else {
      near_equal(n, k, r.sizes);
    }
  }
}

// Inline: read()'s copy in a run's next() then fills each job without a call.
[[gnu::always_inline]] inline void TraceSource::fill_listed(Job& job, const TraceRecords& from,
                                                            const TraceRecords::Listed& rec) {
  Request& r = job.req;
  const int clusters = spec_.machine.clusters();
  const TraceRecords::Rare& more = from.rare_of(rec);
  const std::span<const int> sizes = from.sizes(rec, more);
  const std::span<const int> listed_clusters = from.clusters(more);
  const auto w = [&] { return where(spec_.path, rec.line); };  // only for a refusal
  job.id = rec.id >= 0 ? rec.id : ++count_;
  stated_id_ = rec.id >= 0;
  job.line = rec.line;
  if (&from != last_app_from_ || rec.app != last_app_) {  // mostly the same app line after line
    last_app_from_ = &from;
    last_app_ = rec.app;
    const auto it = app_index_.find(from.app_name(rec.app));
    last_app_index_ = it == app_index_.end() ? 0 : it->second;
  }
  job.app = last_app_index_;
  if (more.home >= clusters) {
    throw UsageError(w() + "home " + std::to_string(more.home) + " is not a cluster (0.." +
                     std::to_string(clusters - 1) + ")");
  }
  job.home = more.home;
  r.type = more.type >= 0 ? static_cast<RequestType>(more.type) : spec_.type;
  long long total = rec.one_size;  // a plain job's, without a sum
  if (total <= 0) {
    total = 0;  // components are at most 1e9 each: a long long sum cannot overflow
    for (int s : sizes) total += s;
  }
  if (total > machine_total_) refuse_larger(rec.line, job.id, total);
  r.total = static_cast<int>(total);
  if (r.type == RequestType::kMoldable) {
    make_moldable(r, r.total, more.min_size, spec_.min_share);
  } else if (r.type == RequestType::kFlexible) {
    // The list's bounds, --rule's limits and the --flex-* bounds all hold.
    r.sizes.assign(1, r.total);
    bound_flexible(r, limits_, spec_.flex, {more.max_components, more.max_component},
                   more.min_component);
  } else if (r.type == RequestType::kFixed) {
    if (listed_clusters.size() != sizes.size()) {
      throw UsageError(w() + "a fixed request needs one cluster per component (" +
                       std::to_string(sizes.size()) + " components, " +
                       std::to_string(listed_clusters.size()) + " clusters)");
    }
    for (int c : listed_clusters) {
      if (c >= clusters) {
        throw UsageError(w() + "cluster " + std::to_string(c) + " is not a cluster (0.." +
                         std::to_string(clusters - 1) + ")");
      }
    }
    copy_sizes(sizes, r.sizes);
    copy_sizes(listed_clusters, r.clusters);
  } else {
    copy_sizes(sizes, r.sizes);
    if (r.sizes.size() > 1) std::sort(r.sizes.begin(), r.sizes.end(), std::greater<>());
  }
  if (rec.runtime >= 0) {
    job.price.runtime = rec.runtime;
    job.price.requested = rec.requested > 0 ? rec.requested : -1;
  } else if (!spec_.book) {
    job.price.table = nullptr;
  } else {
    job.price.table = spec_.book->find(from.app_name(rec.app), r.total);
    if (r.type == RequestType::kFlexible && job.price.table) {
      std::uint64_t counts = 0;
      for (size_t k = 1; k < job.price.table->size() && k < 64; ++k) {
        if (std::isfinite((*job.price.table)[k])) counts |= std::uint64_t{1} << k;
      }
      r.allowed_counts = counts;
    }
  }
}

TraceScan TraceSource::scan(TraceSpec spec, const Policy& policy, const PlacementRule& placement) {
  TraceScan scan;
  spec.apps.clear();
  spec.book = nullptr;
  spec.origin = 0;
  spec.scale = 1;
  TraceSource source(spec);
  scan.swf = source.swf_;
  if (spec.records) {
    scan.header = spec.records->header;
    scan.skipped = spec.records->skipped;
  } else {
    source.recording_ = std::make_shared<TraceRecords>();
    source.recording_->reserve_for(spec.path, source.swf_);
    if (source.swf_reader_) scan.header = source.swf_reader_->header();
  }
  Job job;
  long line = 0;
  double raw = 0;
  double previous = -1;
  int app = -1;
  int apps_seen = 0;  // the records number apps in order of appearance, SWF's "trace" -1
  bool first = true;
  IdCheck ids(source.swf_);
  RunsAlone runs_alone(source.machine_total_);
  source.runs_alone_ = &runs_alone;
  // The jobs read so far, in order: the recording, or the records replayed.
  const TraceRecords& kept = source.recording_ ? *source.recording_ : *spec.records;
  while (source.read(job, nullptr, &scan.skipped, line, raw, app)) {
    const auto w = [&] { return where(spec.path, line); };  // only for a refusal
    if (source.stated_id_) {
      const long used = ids.earlier(kept, scan.jobs);
      if (used != 0) {
        throw UsageError(w() + "job id " + std::to_string(job.id) + " is already used on line " +
                         std::to_string(used));
      }
    }
    if (raw < previous) {
      throw UsageError(w() + "submit time " + std::to_string(raw) +
                       " is before the previous job's " + std::to_string(previous) +
                       " (traces must be in submit order)");
    }
    previous = raw;
    if (first) scan.first_submit = raw;
    first = false;
    scan.last_submit = raw;
    ++scan.jobs;
    if (app >= apps_seen || scan.apps.empty()) {  // an app not seen before, under its name
      apps_seen = std::max(apps_seen, app + 1);
      const std::string& name = kept.app_name(app);
      if (std::find(scan.apps.begin(), scan.apps.end(), name) == scan.apps.end())
        scan.apps.push_back(name);
    }
    if (job.price.runtime >= 0) {
      scan.runtime_work += job.req.total * job.price.runtime;
    } else {
      count_table_priced(scan, kept.app_name(app), job.req, line);
    }
    if (source.checked_ || runs_alone.known(job.req, job.home)) continue;
    const std::string why = policy.never_runs(job.req, job.home, spec.machine, placement);
    if (!why.empty()) {
      throw UsageError(
          w() + "job " + std::to_string(job.id) + " with components " + describe(job.req) +
          " can never run under --rule " + std::string(to_string(spec.rule)) + " --policy " +
          std::string(policy.name()) + " on --clusters " + spec.machine.describe() + ": " + why);
    }
    runs_alone.note(job.req, job.home);
  }
  if (scan.jobs == 0) throw UsageError("--trace: " + spec.path + ": no usable jobs");
  if (source.recording_) {
    source.recording_->header = scan.header;
    source.recording_->skipped = scan.skipped;
    scan.records = std::move(source.recording_);
  } else {
    scan.records = spec.records;
  }
  return scan;
}

}  // namespace mcb::sim
