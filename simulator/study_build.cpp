// Study::build: every option of a run checked and turned into the study's settings before
// anything runs, so bad input ends with one line naming the option (exit 2).
#include "simulator/study.hpp"

#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"
#include "matching/matcher.hpp"
#include "matching/platform_file.hpp"
#include "simulator/discipline.hpp"
#include "simulator/moldable.hpp"
#include "simulator/policy.hpp"
#include "simulator/schedule.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
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

// Scalar options that need no input file.
void check_numbers(const Options& o) {
  if (o.workload.empty() == o.trace.empty()) {
    throw UsageError(o.workload.empty() ? "--workload or --trace: one is required"
                                        : "--workload and --trace: give one, not both");
  }
  check_output(o.output);
  if (o.jobs <= 0) throw UsageError("--jobs: '" + std::to_string(o.jobs) + "' must be positive");
  if (!o.trace.empty() && o.was_given("jobs")) {
    throw UsageError("--jobs: '" + std::to_string(o.jobs) +
                     "' applies to --workload only (a trace has its own jobs)");
  }
  if (o.seed < 0) throw UsageError("--seed: '" + std::to_string(o.seed) + "' must be >= 0");
  if (o.replications <= 0 || o.replications > 100000) {
    throw UsageError("--replications: '" + std::to_string(o.replications) + "' must be 1..100000");
  }
  if (o.batches < 2)
    throw UsageError("--batches: '" + std::to_string(o.batches) + "' must be >= 2");
  if (!(o.estimate_factor >= 1) || !std::isfinite(o.estimate_factor)) {
    throw UsageError("--estimate-factor: '" + csv::exact(o.estimate_factor) +
                     "' must be >= 1 (requested times cover the service time)");
  }
  if (!(o.saturation_backlog >= 0)) {
    throw UsageError("--saturation-backlog: '" + csv::exact(o.saturation_backlog) +
                     "' must be >= 0");
  }
  const auto non_negative = [](const char* name, long long v) {
    if (v < 0)
      throw UsageError("--" + std::string(name) + ": '" + std::to_string(v) + "' must be >= 0");
  };
  non_negative("max-in-system", o.max_in_system);
  non_negative("max-component", o.max_component);
  non_negative("backfill-depth", o.backfill_depth);
  non_negative("flex-max-components", o.flex_max_components);
  if (o.flex_min_component < 1) {
    throw UsageError("--flex-min-component: '" + std::to_string(o.flex_min_component) +
                     "' must be >= 1");
  }
  try {
    parse_compression(o.compression);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--compression: " + std::string(e.what()));
  }
  if (o.arrival_pass != "no" && o.arrival_pass != "yes") {
    throw UsageError("--arrival-pass: '" + o.arrival_pass + "' is not yes or no");
  }
  if (o.home != "random" && o.home != "turn") {
    throw UsageError("--home: '" + o.home + "' is not random or turn");
  }
  if (o.home == "turn" && !o.site_rates.empty()) {
    throw UsageError("--site-rates: '" + o.site_rates +
                     "' draws homes by rate, and --home turn gives them in turn: give one");
  }
  try {
    parse_global_visit(o.lp_global_visit);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--lp-global-visit: " + std::string(e.what()));
  }
}

// Without --clusters an SWF trace runs on the one cluster its MaxProcs header describes.
MachineSpec machine_of(const Options& o) {
  if (o.was_given("clusters") || o.trace.empty() || is_job_list(o.trace)) {
    return parse_clusters(o.clusters);
  }
  const SwfReader reader(o.trace);
  const long long procs = reader.header().max_procs;
  if (procs <= 0) return parse_clusters(o.clusters);
  return parse_clusters(std::to_string(procs));
}

std::map<std::string, std::string> parse_problems(const std::vector<std::string>& given) {
  std::map<std::string, std::string> problems;
  for (const auto& p : given) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size()) {
      throw UsageError("--problem: '" + p + "' is not APP=NAME");
    }
    problems[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return problems;
}

// With --platform, nodes a placement may take must have a price: a rule that does not read the
// platform (WF, FCM, FF, BF) could give a task a node of Gamma = 0, which never finishes; and a
// backfilling plan counts processors, so link-aware's nodes must all be eligible there.
void check_platform_nodes(const Options& o, const matching::Platform& platform, bool blind_rules,
                          bool backfilling) {
  const matching::Job job{1, o.pnbw, 1.0 - o.comm_share, o.comm_share};
  for (const auto& c : platform.clusters) {
    for (std::size_t k = 0; k < c.nodes.size(); ++k) {
      const bool zero = !(matching::effective_power(c.nodes[k]) > 0);
      if ((blind_rules && zero) || (backfilling && !matching::node_eligible(c.nodes[k], job))) {
        throw UsageError("--platform: " + o.platform + ": node " + std::to_string(k) +
                         " of cluster " + c.name +
                         (zero ? " has power x availability 0, which no placement may get"
                               : " cannot take a task of --pnbw " + std::to_string(o.pnbw) +
                                     ", which a backfilling plan cannot see") +
                         " (matching/README.md)");
      }
    }
  }
}

// The settings of --platform and --placement link-aware, checked against the run. With
// --platform the model prices every placement; the file must describe --clusters and its
// power and availability replace --speeds. Backfilling plans with processors, not link
// bandwidth, so it is refused with a non-saturated matcher (matching/README.md).
PlacementSettings link_aware_settings(const Options& o, const MachineSpec& machine,
                                      const std::vector<std::string>& p,
                                      const std::vector<std::string>& queues) {
  // A bad --matcher is refused even where no matcher runs: the user meant something by it.
  try {
    matching::parse_matcher(o.matcher);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--matcher: " + std::string(e.what()));
  }
  const bool link_aware = std::find(p.begin(), p.end(), "link-aware") != p.end();
  if (!o.job_model.empty() && o.platform.empty()) {
    throw UsageError("--job-model: needs --platform, on which seed 002's model prices the jobs");
  }
  if (!link_aware && o.platform.empty()) return {};
  if (o.platform.empty()) throw UsageError("--platform: required by --placement link-aware");
  if (!o.speeds.empty()) {
    throw UsageError(
        "--speeds: not with --platform (the platform file's power and availability set the "
        "speeds)");
  }
  for (const auto& q : queues) {
    if (link_aware && q != "fcfs" && o.matcher != "optimal") {
      throw UsageError("--queue: '" + q + "' not with --placement link-aware --matcher " +
                       o.matcher +
                       " (a backfilling plan reserves processors, not link bandwidth; fcfs, "
                       "or --matcher optimal)");
    }
  }
  if (!(o.pnbw >= 0) || !std::isfinite(o.pnbw)) {
    throw UsageError("--pnbw: '" + std::to_string(o.pnbw) + "' must be >= 0");
  }
  if (!(o.comm_share >= 0 && o.comm_share < 1)) {
    throw UsageError("--comm-share: '" + std::to_string(o.comm_share) + "' must be in [0, 1)");
  }
  if (!o.job_model.empty()) {
    if (!o.trace.empty()) {
      throw UsageError("--job-model: with --workload (a mix priced by --tables), not --trace");
    }
    for (const char* flag : {"pnbw", "comm-share"}) {
      if (o.was_given(flag)) {
        throw UsageError(std::string("--") + flag +
                         ": not with --job-model, which sets it per job");
      }
    }
  }
  if (!(o.match_time_limit > 0) || !std::isfinite(o.match_time_limit)) {
    throw UsageError("--match-time-limit: '" + std::to_string(o.match_time_limit) +
                     "' must be positive");
  }
  PlacementSettings s;
  auto platform =
      std::make_shared<matching::Platform>(matching::read_platform(o.platform, "--platform: "));
  std::vector<int> sizes;
  for (const auto& c : platform->clusters) sizes.push_back(static_cast<int>(c.nodes.size()));
  if (sizes != machine.sizes) {
    MachineSpec file;
    file.sizes = sizes;
    file.speeds.assign(sizes.size(), 1.0);
    throw UsageError("--platform: " + o.platform + " describes clusters " + file.describe() +
                     ", not --clusters " + machine.describe());
  }
  const bool blind =
      std::any_of(p.begin(), p.end(), [](const auto& n) { return n != "link-aware"; });
  check_platform_nodes(o, *platform, blind,
                       link_aware && std::any_of(queues.begin(), queues.end(),
                                                 [](const auto& q) { return q != "fcfs"; }));
  s.platform = std::move(platform);
  s.matcher = o.matcher;
  s.pnbw = o.pnbw;
  s.comm_share = o.comm_share;
  s.time_limit = o.match_time_limit;
  return s;
}

// The moldable settings of the options, checked: shares and sigma in range, and no moldable
// requests with --placement link-aware or --platform (seed 002's model prices every start).
MoldableModel moldable_settings(const Options& o, RequestType request,
                                const std::vector<std::string>& placements) {
  MoldableModel m;
  m.min_share = o.moldable_min;
  m.speedup.kind = parse_speedup(o.speedup);
  m.speedup.sigma = o.downey_sigma;
  check_moldable(m);
  if (request == RequestType::kMoldable &&
      std::find(placements.begin(), placements.end(), "link-aware") != placements.end()) {
    throw UsageError("--request: 'moldable' not with --placement link-aware");
  }
  // Seed 002's model prices every start with --platform and has no notion of a shrunk job.
  if (request == RequestType::kMoldable && !o.platform.empty()) {
    throw UsageError("--request: 'moldable' not with --platform (its model prices every start)");
  }
  return m;
}

}  // namespace

Study Study::build(const Options& o) {
  check_numbers(o);
  Study s;
  s.o_ = o;
  s.synthetic_ = !o.workload.empty();
  try {
    s.bsld_threshold_ = parse_duration(o.bsld_threshold);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--bsld-threshold: " + std::string(e.what()));
  }
  s.machine_ = machine_of(o);
  s.clusters_from_header_ = !s.synthetic_ && !o.was_given("clusters") &&
                            s.machine_.describe() != parse_clusters(o.clusters).describe();
  if (!o.speeds.empty()) s.machine_.speeds = parse_speeds(o.speeds, s.machine_.clusters());
  if (!o.site_rates.empty()) {
    s.machine_.home_rates = parse_site_rates(o.site_rates, s.machine_.clusters());
  }
  s.coalloc_factors_ = parse_coalloc_factors(o.coalloc_factor, s.machine_.clusters());
  try {
    s.request_ = parse_request_type(o.request);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--request: " + std::string(e.what()));
  }
  s.component_limit_ =
      o.max_component > 0 ? o.max_component : std::max(1, s.machine_.smallest() / 2);

  Lists lists;
  lists.policies = split_list("policy", o.policy);
  lists.placements = split_list("placement", o.placement);
  lists.rules = split_list("rule", o.rule);
  lists.queues = split_list("queue", o.queue);
  check_names("policy", lists.policies,
              [&](const std::string& n) { make_policy(n, s.machine_.clusters()); });
  s.placement_settings_ = link_aware_settings(o, s.machine_, lists.placements, lists.queues);
  s.moldable_ = moldable_settings(o, s.request_, lists.placements);
  s.placement_settings_.site_selection = parse_site_selection(o.site_select);
  check_names("placement", lists.placements,
              [&](const std::string& n) { make_placement(n, s.placement_settings_); });
  check_names("rule", lists.rules, [](const std::string& n) { parse_rule(n); });
  check_names("queue", lists.queues, [](const std::string& n) { make_discipline(n); });
  if (!o.rate.empty() && !o.utilization.empty()) {
    throw UsageError("--rate and --utilization: give one, not both");
  }
  if (!o.rate.empty()) lists.rates = parse_values("rate", o.rate);
  if (!o.utilization.empty()) lists.utils = parse_values("utilization", o.utilization);
  try {
    s.statistic_ = parse_statistic(o.statistic);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--statistic: " + std::string(e.what()));
  }
  s.problems_ = parse_problems(o.problems);
  if (s.synthetic_) {
    s.setup_synthetic(lists);
  } else {
    s.setup_trace(lists);
  }
  s.make_points(lists);
  if (!o.schedule.empty()) {
    s.schedule_ = parse_schedule(o.schedule);
    if (s.sweep()) {
      throw UsageError("--schedule: '" + o.schedule + "' is written for a single run, and " +
                       std::to_string(s.points_.size()) + " points were given");
    }
  }
  return s;
}

}  // namespace mcb::sim
