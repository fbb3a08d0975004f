#include "simulator/options.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/option_types.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace mcb::sim {

namespace po = boost::program_options;

namespace {

po::options_description workload_options(Options& o) {
  po::options_description d("Workload (one of --workload, --trace)");
  d.add_options()(
      "workload", po::value(&o.workload)->value_name("MIX"),
      "synthetic: built-in mix poisson, ensflow or mixed (the DAS-2 paper's), or a mix INI file")(
      "trace", po::value(&o.trace)->value_name("FILE"),
      "trace: an SWF file, or a CSV job list (.csv) with explicit components")(
      "jobs", po::value(&o.jobs)->default_value(o.jobs)->value_name("N"),
      "synthetic: number of jobs")("rate", po::value(&o.rate)->value_name("R[,R..]|A:B:STEP"),
                                   "arrivals per second (traces: arrival times are scaled to it)")(
      "utilization", po::value(&o.utilization)->value_name("U[,U..]|A:B:STEP"),
      "target net utilization; sets the arrival rate (traces: scales arrival times)")(
      "request", po::value(&o.request)->default_value(o.request)->value_name("TYPE"),
      "request type of generated and SWF jobs: unordered, nonfixed, fixed, flexible, moldable")(
      "flex-min-component",
      po::value(&o.flex_min_component)->default_value(o.flex_min_component)->value_name("N"),
      "flexible: the user's lower bound on the component size (a smaller job stays whole)")(
      "flex-max-components",
      po::value(&o.flex_max_components)->default_value(o.flex_max_components)->value_name("N"),
      "flexible: the user's upper bound on the number of components (0: none)");
  return d;
}

po::options_description system_options(Options& o) {
  po::options_description d("System and scheduling (lists make a sweep)");
  d.add_options()("clusters",
                  po::value(&o.clusters)->default_value(o.clusters)->value_name("CxS|S,S,.."),
                  "cluster sizes: 4x32 or 32,32,32,32 (SWF trace: one cluster of its MaxProcs)")(
      "speeds", po::value(&o.speeds)->value_name("S[,S..]"),
      "processor speed per cluster (default 1: the tables' speed)")(
      "policy", po::value(&o.policy)->default_value(o.policy)->value_name("P[,P..]"),
      "gs, ls, lp (DAS-2 paper), ic (independent clusters), grid (load-sharing grid)")(
      "placement", po::value(&o.placement)->default_value(o.placement)->value_name("R[,R..]"),
      "wf (Worst Fit), fcm (Flexible Cluster Minimization), ff (First Fit), bf (Best Fit)")(
      "rule", po::value(&o.rule)->default_value(o.rule)->value_name("R[,R..]"),
      "co-allocation rule: no, co, rco, fco")(
      "queue", po::value(&o.queue)->default_value(o.queue)->value_name("D[,D..]"),
      "queue discipline: fcfs, easy (EASY backfilling), cons (conservative backfilling)")(
      "max-component", po::value(&o.max_component)->default_value(o.max_component)->value_name("N"),
      "largest component of [rco] and [fco] (0: half the smallest cluster)")(
      "backfill-depth",
      po::value(&o.backfill_depth)->default_value(o.backfill_depth)->value_name("N"),
      "EASY: jobs behind a blocked head that may be tried (0: all)")(
      "compression", po::value(&o.compression)->default_value(o.compression)->value_name("ORDER"),
      "cons: order in which waiting jobs are re-inserted after an early end: arrival "
      "(Mu'alem and Feitelson) or reservation")(
      "compress-at", po::value(&o.compress_at)->default_value(o.compress_at)->value_name("WHEN"),
      "cons: which job ends compress the plan: early-end (only one before its requested time; "
      "Mu'alem and Feitelson) or every-end (also one at it, filling gaps an earlier pass left)")(
      "arrival-pass",
      po::value(&o.arrival_pass)->default_value(o.arrival_pass)->value_name("yes|no"),
      "whether an arrival triggers a scheduling pass (no: only departures do, and arrivals at an "
      "idle system)")(
      "home", po::value(&o.home)->default_value(o.home)->value_name("random|turn"),
      "home cluster (LS/LP local queue) of a job without one: random, proportional to size, or "
      "in turn")(
      "site-rates", po::value(&o.site_rates)->value_name("R0,R1,..."),
      "relative arrival rate of jobs by home cluster, one per cluster (001 VI: unequal local "
      "loads); default: in proportion to cluster size")(
      "lp-global-visit",
      po::value(&o.lp_global_visit)->default_value(o.lp_global_visit)->value_name("WHEN"),
      "LP: when the global queue, enabled as a local queue gets empty during a round, is "
      "visited: next-round, this-round (at its end) or at-once");
  return d;
}

po::options_description link_aware_options(Options& o) {
  po::options_description d("Seed 002's model (--platform) and link-aware placement");
  d.add_options()("platform", po::value(&o.platform)->value_name("FILE"),
                  "platform file: nodes' power and availability, links' bandwidth "
                  "(matching/README.md); its clusters and nodes are --clusters; the model "
                  "then prices every placement")(
      "matcher", po::value(&o.matcher)->default_value(o.matcher)->value_name("M"),
      "optimal, non-saturated or first-feasible")(
      "pnbw", po::value(&o.pnbw)->default_value(o.pnbw)->value_name("BW"),
      "per-node bandwidth of every job, in the platform's bandwidth unit")(
      "comm-share", po::value(&o.comm_share)->default_value(o.comm_share)->value_name("F"),
      "communication share of a job's dedicated time, T^c / (T^p + T^c)")(
      "job-model", po::value(&o.job_model)->value_name("FILE"),
      "seed 002's model fitted per job (mcb-calibrate --job-model: job_models.csv, or its "
      "folder): each job's PNBW (MB/s; the platform's bandwidths in MB/s too) and T^c share "
      "instead of --pnbw and --comm-share")(
      "match-time-limit",
      po::value(&o.match_time_limit)->default_value(o.match_time_limit)->value_name("S"),
      "seconds the solver may take per match (reaching it ends the run)");
  return d;
}

po::options_description moldable_options(Options& o) {
  po::options_description d("Moldable requests and site selection (seed 001 section V)");
  d.add_options()("moldable-min",
                  po::value(&o.moldable_min)->default_value(o.moldable_min)->value_name("F"),
                  "smallest size a moldable job accepts: ceil(F x requested), 0 < F <= 1 "
                  "(a job list's min_size overrides)")(
      "speedup", po::value(&o.speedup)->default_value(o.speedup)->value_name("MODEL"),
      "time of a moldable job on fewer processors: linear or downey (A = requested size)")(
      "downey-sigma",
      po::value(&o.downey_sigma)->default_value(o.downey_sigma)->value_name("SIGMA"),
      "Downey's variance of parallelism (>= 0)")(
      "site-select", po::value(&o.site_select)->default_value(o.site_select)->value_name("BY"),
      "one site for a one-component or moldable job: idle (the placement rule's, by idle "
      "processors) or power (the most free computing power, idle x speed)");
  return d;
}

po::options_description service_options(Options& o) {
  po::options_description d("Service times");
  d.add_options()("tables", po::value(&o.tables)->composing()->value_name("DIR|FILE"),
                  "runtime tables: a directory with runtimes.csv, or a CSV file (repeatable)")(
      "statistic", po::value(&o.statistic)->default_value(o.statistic)->value_name("S"),
      "table column used: avg, min, max, median")(
      "problem", po::value(&o.problems)->composing()->value_name("APP=NAME"),
      "problem of APP when the tables hold several (repeatable)")(
      "system", po::value(&o.system)->value_name("NAME"),
      "system of the tables when they hold several")(
      "estimate-factor",
      po::value(&o.estimate_factor)->default_value(o.estimate_factor)->value_name("F"),
      "requested time = F x service time where the workload gives none (backfilling)")(
      "coalloc-factor",
      po::value(&o.coalloc_factor)->default_value(o.coalloc_factor)->value_name("F"),
      "jobs priced by their trace runtime run F x it when spread over clusters; "
      "2:F2,3:F3,... gives each number of clusters its own factor");
  return d;
}

po::options_description statistics_options(Options& o) {
  po::options_description d("Statistics and output");
  d.add_options()("seed", po::value(&o.seed)->default_value(o.seed)->value_name("S"),
                  "base random seed")(
      "replications", po::value(&o.replications)->default_value(o.replications)->value_name("R"),
      "independent runs per point (seeds derived from --seed); intervals across them")(
      "warmup", po::value(&o.warmup)->default_value(o.warmup)->value_name("N|P%"),
      "first jobs (in arrival order) left out of the statistics (traces: 0 unless given)")(
      "batches", po::value(&o.batches)->default_value(o.batches)->value_name("B"),
      "batch means: batches for the confidence intervals of one run")(
      "bsld-threshold",
      po::value(&o.bsld_threshold)->default_value(o.bsld_threshold)->value_name("T"),
      "bounded slowdown: floor on the service time (e.g. 10s)")(
      "saturation-backlog",
      po::value(&o.saturation_backlog)->default_value(o.saturation_backlog)->value_name("F"),
      "a run is saturated if the waiting jobs grow over the measured window by more than max(50, F "
      "x measured jobs)")(
      "max-in-system", po::value(&o.max_in_system)->default_value(o.max_in_system)->value_name("N"),
      "stop a run as saturated when more jobs than this are in the system (0: max(2000, 5% of the "
      "jobs); traces: never unless given)")(
      "output", po::value(&o.output)->value_name("DIR"),
      "directory for jobs.csv and summary.json, or sweep.csv and sweep.json")(
      "no-jobs-csv", po::bool_switch(&o.no_jobs_csv), "do not write jobs.csv")(
      "schedule", po::value(&o.schedule)->value_name("LIST"),
      "also write the schedule of a single run: batsim (batsim_jobs.csv, Batsim's jobs file "
      "with processor ids), swf (schedule.swf, Standard Workload Format)");
  return d;
}

}  // namespace

void validate(boost::any& v, const std::vector<std::string>& values, CompressAt*, int) {
  cli::validate_choice(v, values, {CompressAt::kEarlyEnd, CompressAt::kEveryEnd}, compress_at_name);
}

std::ostream& operator<<(std::ostream& os, CompressAt at) { return os << compress_at_name(at); }

bool parse_options(int argc, const char* const* argv, Options& o) {
  po::options_description all;
  all.add(workload_options(o))
      .add(system_options(o))
      .add(link_aware_options(o))
      .add(moldable_options(o))
      .add(service_options(o))
      .add(statistics_options(o));
  const auto parsed = mcb::cli::parse(
      argc, argv, all, "mcb-sim (--workload MIX | --trace FILE) --output DIR [options]");
  o.given.clear();
  for (const auto& [name, value] : parsed.vm) {
    if (!value.defaulted()) o.given.insert(name);
  }
  return !parsed.help_printed;
}

std::vector<std::string> split_list(const std::string& option, const std::string& text) {
  if (text.empty()) throw UsageError("--" + option + ": empty");
  std::vector<std::string> out;
  // Every comma separates two items, so "gs," has an empty last one.
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty()) throw UsageError("--" + option + ": '" + text + "' has an empty item");
    out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

ScheduleFiles parse_schedule(const std::string& text) {
  ScheduleFiles files;
  for (const std::string& item : split_list("schedule", text)) {
    if (item == "batsim") {
      files.batsim = true;
    } else if (item == "swf") {
      files.swf = true;
    } else {
      throw UsageError("--schedule: '" + item + "' is not batsim or swf");
    }
  }
  return files;
}

namespace {

// Digits after the decimal point of a plain decimal ("0.15" -> 2, "3" -> 0), -1 for other
// forms (exponents).
int decimals(const std::string& text) {
  if (text.find_first_of("eE") != std::string::npos) return -1;
  const auto dot = text.find('.');
  return dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1);
}

}  // namespace

std::vector<double> parse_values(const std::string& option, const std::string& text) {
  const auto number = [&](const std::string& s) {
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v) || v <= 0) {
      throw UsageError("--" + option + ": '" + s + "' is not a number > 0");
    }
    return v;
  };
  std::vector<double> out;
  if (text.find(':') != std::string::npos) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, ':')) parts.push_back(part);
    if (parts.size() != 3)
      throw UsageError("--" + option + ": '" + text + "' is not FIRST:LAST:STEP");
    const double a = number(parts[0]), b = number(parts[1]), step = number(parts[2]);
    if (b < a) throw UsageError("--" + option + ": '" + text + "' ends before it starts");
    const auto n = static_cast<long long>(std::floor((b - a) / step + 1e-9));
    if (n > 100000) throw UsageError("--" + option + ": '" + text + "' has too many values");
    // By index, in units of the finest decimal given: 0.3:0.9:0.15 gives 0.45 (45/100), not
    // 0.3 + 0.15 = 0.44999999999999996; values that are not plain decimals fall back to a + i x
    // step.
    const int digits = std::max({decimals(parts[0]), decimals(parts[1]), decimals(parts[2])});
    const double unit = std::pow(10.0, digits);
    const bool exact = digits >= 0 && digits <= 9 && b * unit < 1e15;
    for (long long i = 0; i <= n; ++i) {
      out.push_back(
          exact ? static_cast<double>(std::llround(a * unit) + i * std::llround(step * unit)) / unit
                : a + static_cast<double>(i) * step);
    }
    return out;
  }
  for (const auto& item : split_list(option, text)) out.push_back(number(item));
  return out;
}

}  // namespace mcb::sim

namespace mcb::sim {

namespace {

// A finite number >= 0 (> 0 when @p positive) from a list item, or exit 2 naming the option.
double listed_number(const std::string& option, const std::string& s, bool positive) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v) || v < 0 ||
      (positive && v == 0)) {
    throw UsageError("--" + option + ": '" + s + "' is not a number " +
                     (positive ? "> 0" : ">= 0"));
  }
  return v;
}

}  // namespace

std::vector<double> parse_coalloc_factors(const std::string& text, int clusters) {
  const auto slots = static_cast<size_t>(std::max(clusters, 2)) + 1;  // index 2 always there
  if (text.find(':') == std::string::npos) {
    const std::vector<std::string> one = split_list("coalloc-factor", text);
    if (one.size() != 1) {
      throw UsageError("--coalloc-factor: '" + text + "' is neither F nor K:F,...");
    }
    std::vector<double> by_count(slots, listed_number("coalloc-factor", one.front(), true));
    by_count[0] = by_count[1] = 1.0;
    return by_count;
  }
  std::vector<double> by_count(slots, 0.0);
  for (const std::string& part : split_list("coalloc-factor", text)) {
    const auto colon = part.find(':');
    const auto k = colon == std::string::npos ? std::nullopt : whole_number(part.substr(0, colon));
    if (!k || *k < 2 || *k > clusters) {
      throw UsageError("--coalloc-factor: '" + part +
                       "' is not K:F with K a number of clusters from 2 to " +
                       std::to_string(clusters));
    }
    double& slot = by_count[static_cast<size_t>(*k)];
    if (slot > 0) {
      throw UsageError("--coalloc-factor: '" + text + "' gives " + std::to_string(*k) +
                       " clusters twice");
    }
    slot = listed_number("coalloc-factor", part.substr(colon + 1), true);
  }
  for (int k = 2; k <= clusters; ++k) {
    if (by_count[static_cast<size_t>(k)] == 0) {
      throw UsageError("--coalloc-factor: '" + text + "' gives no factor for " + std::to_string(k) +
                       " clusters");
    }
  }
  by_count[0] = by_count[1] = 1.0;
  return by_count;
}

std::vector<double> parse_site_rates(const std::string& text, int clusters) {
  std::vector<double> rates;
  for (const std::string& part : split_list("site-rates", text)) {
    rates.push_back(listed_number("site-rates", part, false));
  }
  if (rates.size() != static_cast<size_t>(clusters)) {
    throw UsageError("--site-rates: '" + text + "' gives " + std::to_string(rates.size()) +
                     " rates for " + std::to_string(clusters) + " clusters");
  }
  if (std::none_of(rates.begin(), rates.end(), [](double r) { return r > 0; })) {
    throw UsageError("--site-rates: '" + text + "' has no rate > 0");
  }
  return rates;
}

}  // namespace mcb::sim
