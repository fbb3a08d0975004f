#include "simulator/study.hpp"

#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"
#include "matching/matcher.hpp"
#include "simulator/discipline.hpp"
#include "simulator/engine.hpp"
#include "simulator/model_pricing.hpp"
#include "simulator/policy.hpp"
#include "simulator/schedule.hpp"
#include "simulator/workload_synthetic.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>

namespace mcb::sim {
namespace {

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
                       const FlexBounds& flex, const MachineSpec& machine, const PriceList* prices,
                       double min_share) {
  Request r;
  r.type = type;
  r.total = c.total;
  if (type == RequestType::kMoldable) {
    make_moldable(r, c.total, 0, min_share);
    return r;
  }
  if (type == RequestType::kFlexible) {
    r.sizes = {c.total};
    bound_flexible(r, lim, flex);
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
  // Flexible: placed only on priced counts; moldable: one cluster, rescaled by the speedup.
  if (r.type == RequestType::kFlexible || r.type == RequestType::kMoldable) return;
  int k = static_cast<int>(r.sizes.size());
  if (r.type == RequestType::kFixed) {
    ClusterMask used = 0;
    for (int c : r.clusters) used |= ClusterMask{1} << c;
    k = popcount(used);
  }
  if (!std::isfinite(book.price(app, r.total, k))) throw missing(k, "a job of this shape");
}

}  // namespace

void Study::load_book(const std::vector<std::string>& apps) {
  if (o_.tables.empty()) {
    throw UsageError(
        "--tables: required to price the workload's applications (e.g. --tables "
        "calibration/das2)");
  }
  const RuntimeTables tables = RuntimeTables::load(o_.tables);
  book_ = std::make_shared<PriceBook>(tables.select(apps, problems_, o_.system, statistic_));
}

void Study::setup_synthetic(Lists& lists) {
  const Options& o = o_;
  const JobMix mix = load_mix(o.workload);
  for (const auto& a : mix.apps) apps_.push_back(a.name);
  load_book(apps_);
  if (!o.job_model.empty()) {
    placement_settings_.job_models =
        std::make_shared<const JobModels>(load_job_models(o.job_model, apps_, *book_));
  }
  for (const auto& rule_name : lists.rules) {
    const Rule rule = parse_rule(rule_name);
    auto choices = mix_choices(mix, rule, request_, machine_, component_limit_);
    const RuleLimits lim = rule_limits(rule, component_limit_);
    for (const MixChoice& c : choices) {
      const std::string& app = apps_[static_cast<size_t>(c.app)];
      Request r = sample_request(c, request_, lim, flex_bounds(), machine_,
                                 book_->find(app, c.total), moldable_.min_share);
      r.app = c.app;  // its model under --job-model
      check_prices(*book_, app, r, "needed by --workload " + o.workload + " --rule " + rule_name);
      for (const auto& pn : lists.policies) {
        for (const auto& pl : lists.placements) {
          const auto why =
              make_policy(pn, machine_.clusters())
                  ->never_runs(r, -1, machine_, *make_placement(pl, placement_settings_));
          if (!why.empty()) {
            throw UsageError("--workload " + o.workload + ": app '" + app + "' jobs of " +
                             join_sizes(r) + " processors (" + std::string(to_string(r.type)) +
                             ") can never run under --policy " + pn + " --placement " + pl +
                             " on --clusters " + machine_.describe() + ": " + why);
          }
        }
      }
    }
    choices_[rule_name] = std::move(choices);
  }
  if (lists.rates.empty() && lists.utils.empty()) {
    throw UsageError("--rate or --utilization: one is required for a synthetic workload");
  }
  const double work = mean_net_work(choices_.begin()->second, apps_, *book_);
  const double capacity = machine_.total();
  for (double r : lists.rates) lists.loads.push_back({r, r * work / capacity});
  for (double u : lists.utils) lists.loads.push_back({u * capacity / work, u});
  warmup_jobs_ = parse_warmup(o.warmup, static_cast<std::uint64_t>(o.jobs));
  max_in_system_ = static_cast<std::uint64_t>(o.max_in_system);
  if (max_in_system_ == 0)
    max_in_system_ = std::max<std::uint64_t>(2000, static_cast<std::uint64_t>(o.jobs) / 20);
}

void Study::scan_trace(const Lists& lists) {
  TraceSpec spec;
  spec.path = o_.trace;
  spec.type = request_;
  spec.min_share = moldable_.min_share;
  spec.component_limit = component_limit_;
  spec.flex = flex_bounds();
  spec.machine = machine_;
  bool first = true;
  for (const auto& rule_name : lists.rules) {
    spec.rule = parse_rule(rule_name);
    for (const auto& pn : lists.policies) {
      for (const auto& pl : lists.placements) {
        TraceScan scan = TraceSource::scan(spec, *make_policy(pn, machine_.clusters()),
                                           *make_placement(pl, placement_settings_));
        if (first) {
          scan_ = std::move(scan);
          spec.records = scan_.records;  // the file is read once
        }
        first = false;
      }
    }
  }
}

// The trace's recorded net work (processor-seconds), runtime-priced and table-priced jobs.
double Study::trace_work() {
  double work = scan_.runtime_work;
  if (scan_.table_apps.empty()) return work;
  load_book(std::vector<std::string>(scan_.table_apps.begin(), scan_.table_apps.end()));
  for (const auto& [shape, line] : scan_.shapes) {
    const auto& [app, total, type, comps] = shape;
    Request r;
    r.type = static_cast<RequestType>(type);
    r.total = total;
    r.sizes.assign(static_cast<size_t>(comps), 1);
    if (r.type == RequestType::kFixed) {
      for (int c = 0; c < comps; ++c) r.clusters.push_back(c);
    }
    check_prices(*book_, app, r, "needed by --trace " + o_.trace + ":" + std::to_string(line));
  }
  for (const auto& [key, count] : scan_.table_jobs) {
    work += static_cast<double>(count) * key.second * book_->price(key.first, key.second, 1);
  }
  return work;
}

// A trace is a finite experiment, not a steady state: no warm-up and no early stop unless the
// user asks for them.
void Study::setup_trace(Lists& lists) {
  const Options& o = o_;
  scan_trace(lists);
  apps_ = scan_.apps;
  const double work = trace_work();
  const double span = scan_.last_submit - scan_.first_submit;
  const double capacity = machine_.total();
  const double jobs = static_cast<double>(scan_.jobs);
  if (span <= 0 && !(lists.rates.empty() && lists.utils.empty())) {
    throw UsageError("--trace: " + o.trace +
                     ": all jobs arrive at one time; cannot scale arrivals");
  }
  trace_utilization_ = span > 0 ? work / (span * capacity) : 0;
  const double base_rate = span > 0 ? jobs / span : 0;
  if (lists.rates.empty() && lists.utils.empty()) {
    lists.loads.push_back({base_rate, trace_utilization_});
    lists.scales.push_back(1);
  }
  for (double r : lists.rates) {
    lists.loads.push_back({r, trace_utilization_ * r / base_rate});
    lists.scales.push_back(r / base_rate);
  }
  for (double u : lists.utils) {
    const double scale = u / trace_utilization_;
    lists.loads.push_back({base_rate * scale, u});
    lists.scales.push_back(scale);
  }
  warmup_jobs_ = o.was_given("warmup") ? parse_warmup(o.warmup, scan_.jobs) : 0;
  max_in_system_ = static_cast<std::uint64_t>(o.max_in_system);
  if (max_in_system_ == 0) max_in_system_ = std::numeric_limits<std::uint64_t>::max();
}

void Study::make_points(const Lists& lists) {
  for (const auto& pn : lists.policies) {
    for (const auto& pl : lists.placements) {
      for (const auto& rn : lists.rules) {
        for (const auto& qn : lists.queues) {
          for (size_t i = 0; i < lists.loads.size(); ++i) {
            points_.push_back(Point{pn, pl, rn, qn, lists.loads[i].first, lists.loads[i].second,
                                    lists.scales.empty() ? 1.0 : lists.scales[i]});
          }
        }
      }
    }
  }
}

ServiceModel Study::service_model() const {
  ServiceModel model(coalloc_factors_, o_.estimate_factor);
  model.set_speedup(moldable_.speedup);
  return model;
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

nlohmann::json Study::run_item(size_t item, const ItemFiles& files) const {
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
  limits.arrival_pass = o_.arrival_pass == "yes";
  limits.home_in_turn = o_.home == "turn";
  Sim sim(machine_,
          make_policy(point.policy, machine_.clusters(), parse_global_visit(o_.lp_global_visit)),
          make_discipline(point.queue, parse_compression(o_.compression), o_.compress_at),
          make_placement(point.placement, placement_settings_), service_model(), limits);

  RecorderConfig rc;
  rc.bsld_threshold = bsld_threshold_;
  rc.batches = o_.batches;
  rc.saturation_backlog = o_.saturation_backlog;
  rc.app_names = apps_;
  rc.queue_names = queue_names(point.policy);
  rc.capacity = machine_.total();
  rc.replication = replication;
  if (!synthetic_) rc.expected_jobs = scan_.jobs;
  Recorder recorder(rc, files.jobs_csv);
  ScheduleConfig sc;
  sc.cluster_sizes = machine_.sizes;
  sc.app_names = apps_;
  sc.queue_names = rc.queue_names;
  sc.workload_name = synthetic_ ? o_.workload : std::filesystem::path(o_.trace).stem().string();
  sc.notes = {"policy " + point.policy + ", placement " + point.placement + ", rule " + point.rule +
                  ", queue " + point.queue + ", clusters " + machine_.describe() + ", seed " +
                  std::to_string(seed),
              "times in seconds from the first arrival; run times as simulated"};
  if (!synthetic_ && scan_.swf) {
    sc.source = &scan_.header;
    sc.origin = scan_.first_submit;
    sc.scale = point.scale;
  }
  ScheduleWriter schedule(std::move(sc), recorder, files.batsim, files.swf);
  Observer& observer = files.batsim || files.swf ? static_cast<Observer&>(schedule) : recorder;

  RunEnd end;
  if (synthetic_) {
    SyntheticSpec spec;
    spec.choices = choices_.at(point.rule);
    spec.apps = apps_;
    spec.book = book_.get();
    spec.type = request_;
    spec.min_share = moldable_.min_share;
    spec.limits = rule_limits(rule, component_limit_);
    spec.flex = flex_bounds();
    spec.machine = machine_;
    spec.rate = point.rate;
    spec.jobs = static_cast<std::uint64_t>(o_.jobs);
    spec.seed = seed;
    SyntheticSource source(std::move(spec));
    end = sim.run(source, observer);
  } else {
    TraceSpec spec;
    spec.path = o_.trace;
    spec.type = request_;
    spec.min_share = moldable_.min_share;
    spec.rule = rule;
    spec.component_limit = component_limit_;
    spec.flex = flex_bounds();
    spec.machine = machine_;
    spec.apps = apps_;
    spec.book = book_.get();
    spec.origin = scan_.first_submit;
    spec.scale = point.scale;
    spec.seed = seed;
    spec.records = scan_.records;
    TraceSource source(std::move(spec));
    end = sim.run(source, observer);
  }
  schedule.finish();
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
  c["site_selection"] = std::string(to_string(placement_settings_.site_selection));
  if (request_ == RequestType::kMoldable) {
    const auto& sp = moldable_.speedup;
    c["moldable"] = {{"min_share", moldable_.min_share},
                     {"speedup", sp.kind == SpeedupModel::Kind::kDowney ? "downey" : "linear"},
                     {"downey_sigma", sp.sigma}};
  }
  if (placement_settings_.platform) {
    c["link_aware"] = {{"platform", o_.platform},
                       {"matcher", placement_settings_.matcher},
                       {"pnbw", placement_settings_.pnbw},
                       {"comm_share", placement_settings_.comm_share},
                       {"match_time_limit", placement_settings_.time_limit},
                       {"pricing", "every placement"},
                       {"solver", "glpk"}};
    if (placement_settings_.job_models) {  // each job's PNBW and share come from the file
      c["link_aware"].erase("pnbw");
      c["link_aware"].erase("comm_share");
      c["link_aware"]["job_model"] = placement_settings_.job_models->file;
    }
  }
  c["rule"] = split_list("rule", o_.rule);
  c["queue"] = split_list("queue", o_.queue);
  c["max_component"] = component_limit_;
  c["backfill_depth"] = o_.backfill_depth;
  c["compression"] = o_.compression;
  c["compress_at"] = compress_at_name(o_.compress_at);
  c["flex_min_component"] = o_.flex_min_component;
  c["flex_max_components"] = o_.flex_max_components;
  c["arrival_pass"] = o_.arrival_pass;
  c["home"] = o_.home;
  if (!machine_.home_rates.empty()) c["site_rates"] = machine_.home_rates;
  c["lp_global_visit"] = o_.lp_global_visit;
  if (clusters_from_header_) c["clusters"]["from"] = "trace MaxProcs header";
  if (book_) {
    nlohmann::json chosen = nlohmann::json::object();
    for (const auto& [app, ps] : book_->chosen()) {
      chosen[app] = {{"problem", ps.first}, {"system", ps.second}};
    }
    c["tables"] = {{"files", book_->source()}, {"statistic", o_.statistic}, {"chosen", chosen}};
  }
  c["estimate_factor"] = o_.estimate_factor;
  // One number when every count has the same factor (the single-number form), else by count.
  const bool flat = std::all_of(coalloc_factors_.begin() + 2, coalloc_factors_.end(),
                                [&](double f) { return f == coalloc_factors_[2]; });
  if (flat) {
    c["coalloc_factor"] = coalloc_factors_[2];
  } else {
    for (size_t k = 2; k < coalloc_factors_.size(); ++k) {
      c["coalloc_factor"][std::to_string(k)] = coalloc_factors_[k];
    }
  }
  c["warmup_jobs"] = warmup_jobs_;
  c["batches"] = o_.batches;
  c["bsld_threshold"] = bsld_threshold_;
  c["saturation_backlog"] = o_.saturation_backlog;
  c["max_in_system"] = max_in_system_;
  c["replications"] = o_.replications;
  return c;
}

}  // namespace mcb::sim
