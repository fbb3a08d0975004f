#include "redundant/study.hpp"

#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/files.hpp"
#include "common/option_types.hpp"
#include "common/output_set.hpp"
#include "common/text.hpp"
#include "redundant/coalloc.hpp"
#include "redundant/ranker.hpp"
#include "simulator/discipline.hpp"
#include "simulator/machine.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <numeric>
#include <ostream>
#include <sstream>

namespace mcb::redundant {
namespace {

using cli::ValueError;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(trim(part));
  return parts;
}

int whole(const std::string& option, const std::string& text, const std::string& shown) {
  const auto v = whole_number(text);
  if (!v || *v < 0 || *v > 1000000) {
    throw ValueError(option, "--" + option + ": '" + shown + "' is not a whole number >= 0");
  }
  return static_cast<int>(*v);
}

std::vector<int> parse_sizes(const std::string& text) {
  std::vector<int> sizes;
  for (const auto& part : split(text, ',')) {
    const int v = whole("sizes", part, text);
    if (v < 1) throw ValueError("sizes", "--sizes: '" + text + "' holds a size below 1");
    sizes.push_back(v);
  }
  if (sizes.empty()) throw ValueError("sizes", "--sizes: '" + text + "' is empty");
  return sizes;
}

void require_fraction(const std::string& option, double v) {
  if (!(v >= 0 && v < 1)) {
    throw ValueError(option, "--" + option + ": '" + csv::exact(v) + "' must be in [0, 1)");
  }
}

/// The synchronization methods of --sync.
std::vector<Sync> parse_syncs(const std::string& text) {
  std::vector<Sync> syncs;
  for (const auto& name : split(text, ',')) {
    cli::require_choice("sync", name, sync_names());
    syncs.push_back(parse_sync(name));
  }
  if (syncs.empty()) throw ValueError("sync", "--sync: '' is empty");
  return syncs;
}

std::vector<std::string> parse_rankers(const std::string& text) {
  std::vector<std::string> rankers;
  for (const auto& r : split(text, ',')) {
    cli::require_choice("rankers", r, ranker_names());
    rankers.push_back(r);
  }
  if (rankers.empty()) throw ValueError("rankers", "--rankers: '' is empty");
  return rankers;
}

std::string join(const std::vector<int>& values) {
  std::string text;
  for (const int v : values) {
    if (!text.empty()) text += ',';
    text += std::to_string(v);
  }
  return text;
}

/// Every site holds some size, some site every size, and two sites every co-allocated part.
void check_sizes(const GridConfig& c, const std::vector<Sync>& syncs) {
  const std::string sizes = join(c.work.sizes);
  const int smallest = *std::min_element(c.sites.begin(), c.sites.end());
  if (*std::min_element(c.work.sizes.begin(), c.work.sizes.end()) > smallest) {
    throw ValueError("sizes", "--sizes: '" + sizes + "' has no size that fits the smallest site");
  }
  if (*std::max_element(c.work.sizes.begin(), c.work.sizes.end()) >
      *std::max_element(c.sites.begin(), c.sites.end())) {
    throw ValueError("sizes", "--sizes: '" + sizes + "' has a size no site can hold");
  }
  const bool coalloc =
      std::any_of(syncs.begin(), syncs.end(), [](Sync y) { return y != Sync::none; });
  std::vector<int> by_size = c.sites;
  std::sort(by_size.begin(), by_size.end(), std::greater<>());
  if (coalloc && (by_size.size() < 2 ||
                  *std::max_element(c.work.sizes.begin(), c.work.sizes.end()) > by_size[1])) {
    throw ValueError("sizes", "--sizes: '" + sizes + "' has a size (a co-allocated part) that " +
                                  "no two sites can hold");
  }
}

}  // namespace

constexpr int kMaxDuplicates = 10000;

std::vector<int> parse_duplicates(const std::string& text) {
  std::vector<int> values;
  const auto colon = text.find(':');
  if (colon != std::string::npos) {
    const int lo = whole("duplicates", text.substr(0, colon), text);
    const int hi = whole("duplicates", text.substr(colon + 1), text);
    if (hi < lo) throw ValueError("duplicates", "--duplicates: '" + text + "' is an empty range");
    // No grid has that many sites; refused before a vector of that size is made.
    if (hi > kMaxDuplicates) {
      throw ValueError("duplicates", "--duplicates: '" + text + "' is above the cap of " +
                                         std::to_string(kMaxDuplicates));
    }
    for (int d = lo; d <= hi; ++d) values.push_back(d);
  } else {
    for (const auto& part : split(text, ',')) values.push_back(whole("duplicates", part, text));
  }
  if (values.empty()) throw ValueError("duplicates", "--duplicates: '" + text + "' is empty");
  return values;
}

const char* name_of(LoadOf of) { return of == LoadOf::grid ? "grid" : "site"; }

void validate(boost::any& v, const std::vector<std::string>& values, LoadOf*, int) {
  cli::validate_choice(v, values, {LoadOf::site, LoadOf::grid}, name_of);
}

std::ostream& operator<<(std::ostream& os, LoadOf of) { return os << name_of(of); }

void validate(boost::any& v, const std::vector<std::string>& values, Queue*, int) {
  boost::any d;
  // The grid models FCFS and conservative backfilling (Est. QT replays them), not EASY.
  cli::validate_choice(d, values, {sim::Discipline::kFcfs, sim::Discipline::kCons},
                       sim::discipline_name);
  v = Queue{boost::any_cast<sim::Discipline>(d)};
}

std::ostream& operator<<(std::ostream& os, Queue q) { return os << sim::discipline_name(q.kind); }

namespace {

// A notifier throwing the ValueError of @p check when a value fails it.
template <typename T>
std::function<void(const T&)> checked(const std::string& option,
                                      void (*check)(const std::string&, T)) {
  return [option, check](const T& v) { check(option, v); };
}

void require_whole_non_negative(const std::string& option, long long v) {
  cli::require_non_negative(option, static_cast<double>(v));
}

// A time in seconds: finite, > 0 and at most the suite's cap on durations.
void positive_seconds(const std::string& option, double v) {
  cli::require_positive_finite(option, v);
  cli::require_at_most(option, v, cli::kMaxSeconds);
}

void require_at_least_one(const std::string& option, double v) {
  if (!(v >= 1 && std::isfinite(v)))
    throw ValueError(option, "--" + option + ": '" + csv::exact(v) + "' must be >= 1");
}

void require_share(const std::string& option, double v) {
  if (!(v > 0 && v <= 1)) {
    throw ValueError(option, "--" + option + ": '" + csv::exact(v) + "' must be in (0, 1]");
  }
}

void add_grid_options(cli::po::options_description& d, StudyOptions& o) {
  namespace po = cli::po;
  GridConfig& c = o.base;
  // One option per line, as --help prints them.
  // clang-format off
  d.add_options()
      ("clusters", po::value(&o.clusters)->default_value(o.clusters)
                       ->notifier([&c](const std::string& t) {
                         c.sites = sim::parse_clusters(t).sizes;
                       }),
       "sites: 8x64 or 64,64,32,...")
      ("queue", po::value(&o.queue)->default_value(o.queue),
       "fcfs or cons (conservative backfilling)")
      ("local-load", po::value(&c.local_load)->default_value(c.local_load)
                         ->notifier(checked<double>("local-load", require_fraction)),
       "each site's local load")
      ("global-load", po::value(&c.global_load)->default_value(c.global_load)
                          ->notifier(checked<double>("global-load", cli::require_non_negative)),
       "global jobs' load")
      ("global-load-of", po::value(&o.global_load_of)->default_value(o.global_load_of),
       "site (one average site) or grid")
      ("cancel-cost", po::value(&c.cancel_cost)->default_value(c.cancel_cost)
                          ->notifier(checked<double>("cancel-cost", cli::require_non_negative)),
       "s per redundant allocation")
      ("workload-period",
       po::value(&c.workload_period)->default_value(c.workload_period)
           ->notifier(checked<double>("workload-period", positive_seconds)),
       "Workload ranker's period (s)")
      ("runtime-mean", po::value(&c.work.runtime_mean)->default_value(c.work.runtime_mean)
                           ->notifier(checked<double>("runtime-mean", positive_seconds)),
       "mean runtime (s)")
      ("sizes", po::value<std::string>()->default_value(join(c.work.sizes))
                    ->notifier([&c](const std::string& t) { c.work.sizes = parse_sizes(t); }),
       "job sizes, drawn uniformly")
      ("estimate-max", po::value(&c.work.estimate_max)->default_value(c.work.estimate_max)
                           ->notifier(checked<double>("estimate-max", require_at_least_one)),
       "requested = runtime x U[1, this]")
      ("coalloc-lower", po::value(&c.coalloc_lower)->default_value(c.coalloc_lower)
                            ->notifier(checked<double>("coalloc-lower", require_share)),
       "co-allocated job's lower bound on processors / its upper bound, in (0, 1]");
  // clang-format on
}

void add_run_options(cli::po::options_description& d, StudyOptions& o) {
  namespace po = cli::po;
  GridConfig& c = o.base;
  // Counts are read signed, so that '-1' is refused rather than wrapped.
  // clang-format off
  d.add_options()
      ("rankers", po::value<std::string>()->default_value("random,qlen,workload,est-qt,ideal-min")
                      ->notifier([&o](const std::string& t) { o.rankers = parse_rankers(t); }),
       "random,qlen,workload,est-qt,ideal-min")
      ("duplicates", po::value<std::string>()->default_value("0:7")
                         ->notifier([&o](const std::string& t) {
                           o.duplicates = parse_duplicates(t);
                         }),
       "copies beyond the first: 0:7 or 0,1,2")
      ("replications", po::value(&o.replications)->default_value(o.replications)
                           ->notifier([](int n) { cli::require_positive("replications", n); }),
       "seeds per point")
      ("seed", po::value<long long>()->default_value(static_cast<long long>(c.seed))
                   ->notifier([&c](long long v) {
                     require_whole_non_negative("seed", v);
                     c.seed = static_cast<std::uint64_t>(v);
                   }),
       "seed of replication 0 (r uses seed + r)")
      ("jobs", po::value<long long>()->default_value(static_cast<long long>(c.global_jobs))
                   ->notifier([&c](long long v) {
                     cli::require_positive("jobs", v);
                     c.global_jobs = static_cast<std::uint64_t>(v);
                   }),
       "global jobs per run")
      ("warmup", po::value<long long>()->default_value(static_cast<long long>(c.warmup_jobs))
                     ->notifier([&c](long long v) {
                       require_whole_non_negative("warmup", v);
                       c.warmup_jobs = static_cast<std::uint64_t>(v);
                     }),
       "first global jobs not measured")
      ("sync", po::value<std::string>()->default_value("none")
                   ->notifier([&o](const std::string& t) { o.syncs = parse_syncs(t); }),
       "co-allocate global jobs over two sites: none, or a list of stop-and-wait, hibernation, "
       "resubmission")
      ("site-trace", po::value(&o.site_traces)->composing()->value_name("FILE"),
       "replay: a site's local jobs as they ran (SWF, e.g. mcb-load's <system>.swf); repeat "
       "for each site")
      ("requests", po::value(&o.requests)->value_name("FILE"),
       "replay: the co-allocated requests (SWF: submit, runtime, both parts' processors)")
      ("output", po::value(&o.output)->required()->value_name("DIR"), "output folder");
  // clang-format on
}

// Options that shape the synthetic workload mean nothing with a recorded one.
void check_replay(const cli::po::variables_map& vm, StudyOptions& o) {
  if (o.site_traces.empty() != o.requests.empty()) {
    throw ValueError(o.requests.empty() ? "site-trace" : "requests",
                     "--site-trace and --requests replay a workload together; give both");
  }
  if (o.site_traces.empty()) return;
  for (const char* name : {"clusters", "local-load", "global-load", "global-load-of", "jobs",
                           "runtime-mean", "sizes", "estimate-max"}) {
    if (vm.count(name) && !vm[name].defaulted()) {
      throw ValueError(name, std::string("--") + name +
                                 ": not used with --site-trace (the recorded workload sets it)");
    }
  }
  if (vm["sync"].defaulted()) o.syncs = {Sync::stop_and_wait};  // requests are co-allocated
  for (const Sync y : o.syncs) {
    if (y == Sync::none) {
      throw ValueError("sync", "--sync: a replay co-allocates its requests; 'none' is not one");
    }
  }
  o.replay = read_replay(o.site_traces, o.requests);
  GridConfig& c = o.base;
  c.sites = o.replay.sites;
  c.global_jobs = o.replay.globals;
  c.local_load = 0;
  c.global_load = 0;
  if (vm["warmup"].defaulted()) c.warmup_jobs = 0;  // a recorded workload is measured whole
  o.clusters = join(c.sites);
}

}  // namespace

bool parse_study(int argc, const char* const* argv, StudyOptions& o) {
  cli::po::options_description d("Options");
  add_grid_options(d, o);
  add_run_options(d, o);
  const auto parsed = cli::parse(argc, argv, d, "mcb-redundant [options] --output DIR");
  if (parsed.help_printed) return false;
  GridConfig& c = o.base;
  c.backfilling = o.queue.kind == sim::Discipline::kCons;
  c.global_load_of_grid = o.global_load_of == LoadOf::grid;
  check_replay(parsed.vm, o);
  // Values that contradict each other, checked once each is right on its own.
  if (c.warmup_jobs >= c.global_jobs) {
    throw ValueError("warmup", "--warmup: '" + std::to_string(c.warmup_jobs) + "' must be below " +
                                   (o.site_traces.empty() ? "--jobs" : "the requests"));
  }
  if (o.site_traces.empty()) check_sizes(c, o.syncs);
  // d copies beyond the first go to d other sites.
  const int most = *std::max_element(o.duplicates.begin(), o.duplicates.end());
  if (most > static_cast<int>(c.sites.size()) - 1) {
    throw ValueError("duplicates", "--duplicates: " + std::to_string(most) +
                                       " copies beyond the first need " + std::to_string(most + 1) +
                                       " sites; --clusters has " + std::to_string(c.sites.size()));
  }
  check_creatable_folder("output", o.output);
  return true;
}

namespace {

const std::vector<std::string> kColumns = {"queue",
                                           "clusters",
                                           "local_load",
                                           "global_load",
                                           "ranker",
                                           "duplicates",
                                           "replication",
                                           "seed",
                                           "global_measured",
                                           "global_wait_mean",
                                           "local_measured",
                                           "local_wait_min",
                                           "local_wait_avg",
                                           "local_wait_max",
                                           "local_waits",
                                           "jobs_simulated",
                                           "redundant_allocations",
                                           "sync",
                                           "coalloc_lower",
                                           "part_mean",
                                           "coalloc_hold_mean",
                                           "releases",
                                           "preemptions",
                                           "all_wait_mean",
                                           "wall_seconds",
                                           "verdict"};

std::string queue_name(const GridConfig& c) {
  return sim::discipline_name(c.backfilling ? sim::Discipline::kCons : sim::Discipline::kFcfs);
}

std::vector<std::string> row(const StudyOptions& o, const GridConfig& c, int rep,
                             const GridResult& r) {
  const auto& w = r.local_wait_mean;
  std::string waits;
  for (size_t s = 0; s < w.size(); ++s) {
    if (s > 0) waits += ';';
    waits += csv::exact(w[s]);
  }
  const std::uint64_t local =
      std::accumulate(r.local_measured.begin(), r.local_measured.end(), std::uint64_t{0});
  return {queue_name(c),
          o.clusters,
          csv::exact(c.local_load),
          csv::exact(c.global_load),
          c.ranker,
          std::to_string(c.duplicates),
          std::to_string(rep),
          std::to_string(c.seed),
          std::to_string(r.global_measured),
          csv::exact(r.global_wait_mean),
          std::to_string(local),
          csv::exact(*std::min_element(w.begin(), w.end())),
          csv::exact(std::accumulate(w.begin(), w.end(), 0.0) / static_cast<double>(w.size())),
          csv::exact(*std::max_element(w.begin(), w.end())),
          waits,
          std::to_string(r.jobs_simulated),
          std::to_string(r.redundant_allocations),
          to_string(c.sync),
          csv::exact(c.coalloc_lower),
          csv::exact(r.part_mean),
          csv::exact(r.coalloc_hold_mean),
          std::to_string(r.releases),
          std::to_string(r.preemptions),
          csv::exact(r.all_wait_mean),
          csv::number(r.wall_seconds),
          r.verdict};
}

nlohmann::json sync_list(const StudyOptions& o) {
  nlohmann::json names = nlohmann::json::array();
  for (const Sync y : o.syncs) names.push_back(to_string(y));
  return names;
}

nlohmann::json replay_json(const StudyOptions& o) {
  if (o.site_traces.empty()) return nullptr;
  const Replay& r = o.replay;
  return {{"site_traces", o.site_traces}, {"requests", o.requests}, {"local_jobs", r.locals},
          {"requests_count", r.globals},  {"skipped", r.skipped},   {"origin_unix", r.origin_unix}};
}

nlohmann::json config_json(const StudyOptions& o) {
  const GridConfig& c = o.base;
  return {{"clusters", o.clusters},
          {"sites", c.sites},
          {"queue", queue_name(c)},
          {"local_load", c.local_load},
          {"global_load", c.global_load},
          {"global_load_of", name_of(o.global_load_of)},
          {"rankers", o.rankers},
          {"duplicates", o.duplicates},
          {"replications", o.replications},
          {"global_jobs", c.global_jobs},
          {"warmup_jobs", c.warmup_jobs},
          {"cancel_cost", c.cancel_cost},
          {"workload_period", c.workload_period},
          {"sizes", c.work.sizes},
          {"runtime_mean", c.work.runtime_mean},
          {"estimate_max", c.work.estimate_max},
          {"syncs", sync_list(o)},
          {"coalloc_lower", c.coalloc_lower},
          {"replay", replay_json(o)}};
}

}  // namespace

int run_study(const StudyOptions& o, const nlohmann::json& env) {
  csv::Writer table(kColumns);
  int invalid = 0;
  double wall = 0, wall_dup = 0;
  std::uint64_t jobs = 0, jobs_dup = 0;
  nlohmann::json seeds = nlohmann::json::array();
  for (int rep = 0; rep < o.replications; ++rep) {
    seeds.push_back(o.base.seed + static_cast<std::uint64_t>(rep));
  }
  for (const Sync sync : o.syncs) {
    for (const auto& ranker : o.rankers) {
      for (const int d : o.duplicates) {
        for (int rep = 0; rep < o.replications; ++rep) {
          GridConfig c = o.base;
          c.sync = sync;
          c.ranker = ranker;
          c.duplicates = d;
          c.seed = o.base.seed + static_cast<std::uint64_t>(rep);
          const GridResult r = o.site_traces.empty() ? run_grid(c) : run_listed(c, o.replay.jobs);
          std::cout << queue_name(c) << ' ' << to_string(sync) << ' ' << ranker << " d=" << d
                    << " rep=" << rep << ": global wait " << csv::number(r.global_wait_mean)
                    << " s over " << r.global_measured << " jobs, "
                    << (r.valid ? "VALID" : "INVALID (" + r.verdict + ")") << std::endl;
          wall += r.wall_seconds;
          jobs += r.jobs_simulated;
          if (d > 0) {
            wall_dup += r.wall_seconds;
            jobs_dup += r.jobs_simulated;
          }
          if (!r.valid) {
            ++invalid;
            continue;
          }
          table.row(row(o, c, rep, r));
        }
      }
    }
  }
  const nlohmann::json doc = {
      {"schema", "mcb-redundant/1"},
      {"config", config_json(o)},
      {"seeds", seeds},
      {"runs", o.syncs.size() * o.rankers.size() * o.duplicates.size() *
                   static_cast<size_t>(o.replications)},
      {"invalid_runs", invalid},
      {"speed",
       {{"jobs_simulated", jobs},
        {"wall_seconds", wall},
        {"jobs_per_second", wall > 0 ? static_cast<double>(jobs) / wall : 0.0},
        {"with_duplicates_jobs_per_second",
         wall_dup > 0 ? static_cast<double>(jobs_dup) / wall_dup : 0.0}}},
      {"env", env}};
  OutputSet outputs(o.output, {"redundant.csv", "redundant.json"});
  outputs.write("redundant.csv", table.text());
  outputs.write("redundant.json", doc.dump(2) + "\n");
  outputs.commit();
  std::cout << (invalid ? "INVALID: " + std::to_string(invalid) + " run(s)" : std::string("VALID"))
            << "; " << jobs << " jobs simulated in " << csv::number(wall) << " s\n";
  return invalid;
}

}  // namespace mcb::redundant
