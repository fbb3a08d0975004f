#include "simulator/study.hpp"

#include "common/errors.hpp"
#include "common/units.hpp"
#include "simulator/discipline.hpp"
#include "simulator/engine.hpp"
#include "simulator/policy.hpp"
#include "simulator/workload_synthetic.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>

namespace mcb::sim {
namespace {

template <class Make>
void check_names(const std::string& option, const std::vector<std::string>& names, Make make) {
  for (const auto& n : names) {
    try {
      make(n);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--" + option + ": " + e.what());
    }
  }
}

std::uint64_t parse_warmup(const std::string& text, std::uint64_t jobs) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v) || v < 0 ||
      (percent && v >= 100) || (!percent && v != std::floor(v))) {
    throw UsageError("--warmup: '" + text + "' is not a job count or a percentage below 100%");
  }
  const auto n = percent
                     ? static_cast<std::uint64_t>(std::floor(v / 100.0 * static_cast<double>(jobs)))
                     : static_cast<std::uint64_t>(v);
  if (n >= jobs) {
    throw UsageError("--warmup: '" + text + "' leaves no job to measure (" + std::to_string(jobs) +
                     " jobs)");
  }
  return n;
}

void check_output(const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) throw UsageError("--output: required (a directory for the results)");
  std::error_code ec;
  fs::path p(dir);
  if (fs::exists(p, ec) && !fs::is_directory(p, ec)) {
    throw UsageError("--output: '" + dir + "' exists and is not a directory");
  }
  fs::path probe = fs::absolute(p, ec);
  while (!probe.empty() && !fs::exists(probe, ec)) probe = probe.parent_path();
  if (probe.empty() || !fs::is_directory(probe, ec) || ::access(probe.c_str(), W_OK) != 0) {
    throw UsageError("--output: cannot create or write '" + dir + "'");
  }
}

std::string join_sizes(const Request& r) {
  std::string s;
  for (size_t i = 0; i < r.sizes.size(); ++i) {
    if (i) s += '+';
    s += std::to_string(r.sizes[i]);
  }
  return s;
}

// The request a synthetic choice makes (fixed requests: the first clusters that hold it).
Request sample_request(const MixChoice& c, RequestType type, const RuleLimits& lim,
                       const MachineSpec& machine, const PriceList* prices) {
  Request r;
  r.type = type;
  r.total = c.total;
  if (type == RequestType::kFlexible) {
    r.sizes = {c.total};
    r.max_component = lim.max_component;
    r.max_components = lim.max_components;
    std::uint64_t counts = 0;
    if (prices) {
      for (size_t k = 1; k < prices->size() && k < 64; ++k) {
        if (std::isfinite((*prices)[k])) counts |= std::uint64_t{1} << k;
      }
    }
    r.allowed_counts = counts;
    return r;
  }
  near_equal(c.total, c.components, r.sizes);
  if (type == RequestType::kFixed) {
    for (int k = 0; k < machine.clusters() && r.clusters.size() < r.sizes.size(); ++k) {
      if (machine.sizes[static_cast<size_t>(k)] >= r.sizes.front()) r.clusters.push_back(k);
    }
  }
  return r;
}

// The table must price the request's single-cluster time and every count it can run on.
void check_prices(const PriceBook& book, const std::string& app, const Request& r,
                  const std::string& needed_by) {
  const auto missing = [&](int k, const std::string& why) {
    return UsageError("--tables: " + book.source() + " has no row for app '" + app +
                      "' total_size " + std::to_string(r.total) + " components " +
                      std::to_string(k) + " (" + why + ", " + needed_by + ")");
  };
  if (!std::isfinite(book.price(app, r.total, 1))) {
    throw missing(1, "the single-cluster time net utilization needs");
  }
  if (r.type == RequestType::kFlexible) return;  // placed only on priced counts
  int k = static_cast<int>(r.sizes.size());
  if (r.type == RequestType::kFixed) {
    ClusterMask used = 0;
    for (int c : r.clusters) used |= ClusterMask{1} << c;
    k = popcount(used);
  }
  if (!std::isfinite(book.price(app, r.total, k))) throw missing(k, "a job of this shape");
}

}  // namespace

Study Study::build(const Options& o) {
  Study s;
  s.o_ = o;
  if (o.workload.empty() == o.trace.empty()) {
    throw UsageError(o.workload.empty() ? "--workload or --trace: one is required"
                                        : "--workload and --trace: give one, not both");
  }
  check_output(o.output);
  s.synthetic_ = !o.workload.empty();
  if (o.jobs <= 0) throw UsageError("--jobs: '" + std::to_string(o.jobs) + "' must be positive");
  if (o.seed < 0) throw UsageError("--seed: '" + std::to_string(o.seed) + "' must be >= 0");
  if (o.replications <= 0 || o.replications > 100000) {
    throw UsageError("--replications: '" + std::to_string(o.replications) + "' must be 1..100000");
  }
  if (o.batches < 2)
    throw UsageError("--batches: '" + std::to_string(o.batches) + "' must be >= 2");
  if (!(o.estimate_factor >= 1) || !std::isfinite(o.estimate_factor)) {
    throw UsageError("--estimate-factor: '" + std::to_string(o.estimate_factor) +
                     "' must be >= 1 (requested times cover the service time)");
  }
  if (!(o.coalloc_factor > 0) || !std::isfinite(o.coalloc_factor)) {
    throw UsageError("--coalloc-factor: '" + std::to_string(o.coalloc_factor) + "' must be > 0");
  }
  if (!(o.saturation_backlog >= 0)) {
    throw UsageError("--saturation-backlog: '" + std::to_string(o.saturation_backlog) +
                     "' must be >= 0");
  }
  if (o.max_in_system < 0) {
    throw UsageError("--max-in-system: '" + std::to_string(o.max_in_system) + "' must be >= 0");
  }
  if (o.max_component < 0) {
    throw UsageError("--max-component: '" + std::to_string(o.max_component) + "' must be >= 0");
  }
  if (o.backfill_depth < 0) {
    throw UsageError("--backfill-depth: '" + std::to_string(o.backfill_depth) + "' must be >= 0");
  }
  try {
    s.bsld_threshold_ = parse_duration(o.bsld_threshold);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--bsld-threshold: " + std::string(e.what()));
  }
  s.machine_ = parse_clusters(o.clusters);
  if (!o.speeds.empty()) s.machine_.speeds = parse_speeds(o.speeds, s.machine_.clusters());
  try {
    s.request_ = parse_request_type(o.request);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--request: " + std::string(e.what()));
  }
  s.component_limit_ =
      o.max_component > 0 ? o.max_component : std::max(1, s.machine_.smallest() / 2);

  const auto policies = split_list("policy", o.policy);
  const auto placements = split_list("placement", o.placement);
  const auto rules = split_list("rule", o.rule);
  const auto queues = split_list("queue", o.queue);
  check_names("policy", policies,
              [&](const std::string& n) { make_policy(n, s.machine_.clusters()); });
  check_names("placement", placements, [](const std::string& n) { make_placement(n); });
  check_names("rule", rules, [](const std::string& n) { parse_rule(n); });
  check_names("queue", queues, [](const std::string& n) { make_discipline(n); });
  if (!o.rate.empty() && !o.utilization.empty()) {
    throw UsageError("--rate and --utilization: give one, not both");
  }
  const std::vector<double> rates =
      o.rate.empty() ? std::vector<double>{} : parse_values("rate", o.rate);
  const std::vector<double> utils =
      o.utilization.empty() ? std::vector<double>{} : parse_values("utilization", o.utilization);

  std::map<std::string, std::string> problems;
  for (const auto& p : o.problems) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size()) {
      throw UsageError("--problem: '" + p + "' is not APP=NAME");
    }
    problems[p.substr(0, eq)] = p.substr(eq + 1);
  }
  Statistic statistic = Statistic::kAvg;
  try {
    statistic = parse_statistic(o.statistic);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--statistic: " + std::string(e.what()));
  }
  const auto load_book = [&](const std::vector<std::string>& apps) {
    if (o.tables.empty()) {
      throw UsageError(
          "--tables: required to price the workload's applications (e.g. --tables "
          "calibration/das2)");
    }
    const RuntimeTables tables = RuntimeTables::load(o.tables);
    s.book_ = std::make_shared<PriceBook>(tables.select(apps, problems, o.system, statistic));
  };

  std::vector<std::pair<double, double>> loads;  // (rate, utilization)
  std::vector<double> scales;
  if (s.synthetic_) {
    const JobMix mix = load_mix(o.workload);
    for (const auto& a : mix.apps) s.apps_.push_back(a.name);
    load_book(s.apps_);
    for (const auto& rule_name : rules) {
      const Rule rule = parse_rule(rule_name);
      auto choices = mix_choices(mix, rule, s.request_, s.machine_, s.component_limit_);
      const RuleLimits lim = rule_limits(rule, s.component_limit_);
      for (const MixChoice& c : choices) {
        const std::string& app = s.apps_[static_cast<size_t>(c.app)];
        const Request r =
            sample_request(c, s.request_, lim, s.machine_, s.book_->find(app, c.total));
        check_prices(*s.book_, app, r,
                     "needed by --workload " + o.workload + " --rule " + rule_name);
        for (const auto& pn : policies) {
          for (const auto& pl : placements) {
            const auto why = make_policy(pn, s.machine_.clusters())
                                 ->never_runs(r, -1, s.machine_, *make_placement(pl));
            if (!why.empty()) {
              throw UsageError("--workload " + o.workload + ": app '" + app + "' jobs of " +
                               join_sizes(r) + " processors (" + std::string(to_string(r.type)) +
                               ") can never run under --policy " + pn + " --placement " + pl +
                               " on --clusters " + s.machine_.describe() + ": " + why);
            }
          }
        }
      }
      s.choices_[rule_name] = std::move(choices);
    }
    if (rates.empty() && utils.empty()) {
      throw UsageError("--rate or --utilization: one is required for a synthetic workload");
    }
    const double work = mean_net_work(s.choices_.begin()->second, s.apps_, *s.book_);
    const double capacity = s.machine_.total();
    for (double r : rates) loads.push_back({r, r * work / capacity});
    for (double u : utils) loads.push_back({u * capacity / work, u});
    s.warmup_jobs_ = parse_warmup(o.warmup, static_cast<std::uint64_t>(o.jobs));
    s.max_in_system_ = static_cast<std::uint64_t>(o.max_in_system);
    if (s.max_in_system_ == 0)
      s.max_in_system_ = std::max<std::uint64_t>(2000, static_cast<std::uint64_t>(o.jobs) / 20);
  } else {
    TraceSpec spec;
    spec.path = o.trace;
    spec.type = s.request_;
    spec.component_limit = s.component_limit_;
    spec.machine = s.machine_;
    bool first = true;
    for (const auto& rule_name : rules) {
      spec.rule = parse_rule(rule_name);
      for (const auto& pn : policies) {
        for (const auto& pl : placements) {
          TraceScan scan =
              TraceSource::scan(spec, *make_policy(pn, s.machine_.clusters()), *make_placement(pl));
          if (first) s.scan_ = std::move(scan);
          first = false;
        }
      }
    }
    s.apps_ = s.scan_.apps;
    double work = s.scan_.runtime_work;
    if (!s.scan_.table_apps.empty()) {
      load_book(std::vector<std::string>(s.scan_.table_apps.begin(), s.scan_.table_apps.end()));
      for (const auto& [shape, line] : s.scan_.shapes) {
        const auto& [app, total, type, comps] = shape;
        Request r;
        r.type = static_cast<RequestType>(type);
        r.total = total;
        r.sizes.assign(static_cast<size_t>(comps), 1);
        if (r.type == RequestType::kFixed) {
          for (int c = 0; c < comps; ++c) r.clusters.push_back(c);
        }
        check_prices(*s.book_, app, r, "needed by --trace " + o.trace + ":" + std::to_string(line));
      }
      for (const auto& [key, count] : s.scan_.table_jobs) {
        work += static_cast<double>(count) * key.second * s.book_->price(key.first, key.second, 1);
      }
    }
    const double span = s.scan_.last_submit - s.scan_.first_submit;
    const double capacity = s.machine_.total();
    const double jobs = static_cast<double>(s.scan_.jobs);
    if (span <= 0 && !(rates.empty() && utils.empty())) {
      throw UsageError("--trace: " + o.trace +
                       ": all jobs arrive at one time; cannot scale arrivals");
    }
    s.trace_utilization_ = span > 0 ? work / (span * capacity) : 0;
    const double base_rate = span > 0 ? jobs / span : 0;
    if (rates.empty() && utils.empty()) {
      loads.push_back({base_rate, s.trace_utilization_});
      scales.push_back(1);
    }
    for (double r : rates) {
      loads.push_back({r, s.trace_utilization_ * r / base_rate});
      scales.push_back(r / base_rate);
    }
    for (double u : utils) {
      const double scale = u / s.trace_utilization_;
      loads.push_back({base_rate * scale, u});
      scales.push_back(scale);
    }
    s.warmup_jobs_ = parse_warmup(o.warmup, s.scan_.jobs);
    s.max_in_system_ = static_cast<std::uint64_t>(o.max_in_system);
    if (s.max_in_system_ == 0) s.max_in_system_ = std::max<std::uint64_t>(2000, s.scan_.jobs / 20);
  }

  for (const auto& pn : policies) {
    for (const auto& pl : placements) {
      for (const auto& rn : rules) {
        for (const auto& qn : queues) {
          for (size_t i = 0; i < loads.size(); ++i) {
            Point p{
                pn, pl, rn, qn, loads[i].first, loads[i].second, scales.empty() ? 1.0 : scales[i]};
            s.points_.push_back(p);
          }
        }
      }
    }
  }
  return s;
}

std::uint64_t Study::seed_of(int replication) const {
  const auto base = static_cast<std::uint64_t>(o_.seed);
  return replication == 0 ? base
                          : derive_seed(base, 1000 + static_cast<std::uint64_t>(replication));
}

std::vector<std::string> Study::queue_names(const std::string& policy) const {
  const auto p = make_policy(policy, machine_.clusters());
  std::vector<std::string> names;
  for (int q = 0; q < p->queue_count(); ++q) names.push_back(p->queue_name(q));
  return names;
}

nlohmann::json Study::run_item(size_t item, std::ostream* jobs_csv) const {
  const size_t reps = static_cast<size_t>(o_.replications);
  const Point& point = points_[item / reps];
  const int replication = static_cast<int>(item % reps);
  const std::uint64_t seed = seed_of(replication);
  const Rule rule = parse_rule(point.rule);

  RunLimits limits;
  limits.warmup_jobs = warmup_jobs_;
  limits.max_in_system = max_in_system_;
  limits.backfill_depth = static_cast<std::uint64_t>(o_.backfill_depth);
  limits.routing_seed = derive_seed(seed, 5);
  Sim sim(machine_, make_policy(point.policy, machine_.clusters()), make_discipline(point.queue),
          make_placement(point.placement), ServiceModel(o_.coalloc_factor, o_.estimate_factor),
          limits);

  RecorderConfig rc;
  rc.bsld_threshold = bsld_threshold_;
  rc.batches = o_.batches;
  rc.saturation_backlog = o_.saturation_backlog;
  rc.app_names = apps_;
  rc.queue_names = queue_names(point.policy);
  rc.capacity = machine_.total();
  rc.replication = replication;
  Recorder recorder(rc, jobs_csv);

  RunEnd end;
  if (synthetic_) {
    SyntheticSpec spec;
    spec.choices = choices_.at(point.rule);
    spec.apps = apps_;
    spec.book = book_.get();
    spec.type = request_;
    spec.limits = rule_limits(rule, component_limit_);
    spec.machine = machine_;
    spec.rate = point.rate;
    spec.jobs = static_cast<std::uint64_t>(o_.jobs);
    spec.seed = seed;
    SyntheticSource source(std::move(spec));
    end = sim.run(source, recorder);
  } else {
    TraceSpec spec;
    spec.path = o_.trace;
    spec.type = request_;
    spec.rule = rule;
    spec.component_limit = component_limit_;
    spec.machine = machine_;
    spec.apps = apps_;
    spec.book = book_.get();
    spec.origin = scan_.first_submit;
    spec.scale = point.scale;
    spec.seed = seed;
    TraceSource source(std::move(spec));
    end = sim.run(source, recorder);
  }
  const RunSummary summary = recorder.finish(end);
  return {{"point", item / reps},
          {"replication", replication},
          {"seed", seed},
          {"summary", summary.to_json(rc.queue_names, bsld_threshold_)}};
}

nlohmann::json Study::config_json() const {
  nlohmann::json c;
  if (synthetic_) {
    c["workload"] = {{"kind", "synthetic"},
                     {"mix", o_.workload},
                     {"apps", apps_},
                     {"jobs", o_.jobs},
                     {"arrivals", "poisson"}};
  } else {
    nlohmann::json skipped = nlohmann::json::object();
    for (const auto& [why, n] : scan_.skipped) skipped[why] = n;
    nlohmann::json header = nlohmann::json::object();
    for (const auto& [k, v] : scan_.header.fields) header[k] = v;
    c["workload"] = {{"kind", scan_.swf ? "swf" : "job-list"},
                     {"trace", o_.trace},
                     {"jobs", scan_.jobs},
                     {"skipped", skipped},
                     {"apps", apps_},
                     {"first_submit", scan_.first_submit},
                     {"last_submit", scan_.last_submit},
                     {"recorded_net_utilization", trace_utilization_},
                     {"header", header}};
  }
  c["request"] = std::string(to_string(request_));
  c["clusters"] = {{"sizes", machine_.sizes}, {"speeds", machine_.speeds}};
  c["policy"] = split_list("policy", o_.policy);
  c["placement"] = split_list("placement", o_.placement);
  c["rule"] = split_list("rule", o_.rule);
  c["queue"] = split_list("queue", o_.queue);
  c["max_component"] = component_limit_;
  c["backfill_depth"] = o_.backfill_depth;
  if (book_) {
    nlohmann::json chosen = nlohmann::json::object();
    for (const auto& [app, ps] : book_->chosen()) {
      chosen[app] = {{"problem", ps.first}, {"system", ps.second}};
    }
    c["tables"] = {{"files", book_->source()}, {"statistic", o_.statistic}, {"chosen", chosen}};
  }
  c["estimate_factor"] = o_.estimate_factor;
  c["coalloc_factor"] = o_.coalloc_factor;
  c["warmup_jobs"] = warmup_jobs_;
  c["batches"] = o_.batches;
  c["bsld_threshold"] = bsld_threshold_;
  c["saturation_backlog"] = o_.saturation_backlog;
  c["max_in_system"] = max_in_system_;
  c["replications"] = o_.replications;
  return c;
}

}  // namespace mcb::sim
