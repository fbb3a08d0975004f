#include "simulator/report.hpp"

#include "common/csv.hpp"
#include "simulator/metrics.hpp"
#include "simulator/recorder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace mcb::sim {

const std::vector<std::string> kSweepCsvColumns = {"point",
                                                   "policy",
                                                   "placement",
                                                   "rule",
                                                   "queue",
                                                   "rate",
                                                   "offered_utilization",
                                                   "replications",
                                                   "response_mean",
                                                   "response_ci95_half_width",
                                                   "response_median",
                                                   "response_p95",
                                                   "wait_mean",
                                                   "wait_ci95_half_width",
                                                   "wait_median",
                                                   "wait_p95",
                                                   "bounded_slowdown_mean",
                                                   "gross_utilization",
                                                   "net_utilization",
                                                   "throughput",
                                                   "max_queue_length",
                                                   "measured_completed",
                                                   "saturated",
                                                   "saturation_point"};

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double num(const nlohmann::json& j) { return j.is_number() ? j.get<double>() : kNaN; }

nlohmann::json out(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

// Mean of a field over runs (NaN if any is missing).
double mean_of(const std::vector<nlohmann::json>& runs, const nlohmann::json::json_pointer& p) {
  double sum = 0;
  for (const auto& r : runs) sum += num(r.value(p, nlohmann::json()));
  return sum / static_cast<double>(runs.size());
}

nlohmann::json times(const std::vector<nlohmann::json>& runs, const std::string& key) {
  using P = nlohmann::json::json_pointer;
  nlohmann::json t;
  if (runs.size() == 1) {
    t = runs.front()[key];
    return t;
  }
  std::vector<double> means;
  for (const auto& r : runs) means.push_back(num(r[key]["mean"]));
  const Interval ci = interval_of(means);
  t["mean"] = out(ci.mean);
  t["median"] = out(mean_of(runs, P("/" + key + "/median")));
  t["p95"] = out(mean_of(runs, P("/" + key + "/p95")));
  t["ci95"] = std::isfinite(ci.half_width)
                  ? nlohmann::json::array({ci.mean - ci.half_width, ci.mean + ci.half_width})
                  : nlohmann::json(nullptr);
  t["ci95_half_width"] = out(ci.half_width);
  t["ci_method"] = "replications";
  t["ci_replications"] = ci.samples;
  return t;
}

}  // namespace

nlohmann::json aggregate(const std::vector<nlohmann::json>& runs) {
  using P = nlohmann::json::json_pointer;
  if (runs.size() == 1) return runs.front();
  nlohmann::json a;
  a["response"] = times(runs, "response");
  a["wait"] = times(runs, "wait");
  a["bounded_slowdown"] = {{"mean", out(mean_of(runs, P("/bounded_slowdown/mean")))},
                           {"median", out(mean_of(runs, P("/bounded_slowdown/median")))},
                           {"p95", out(mean_of(runs, P("/bounded_slowdown/p95")))},
                           {"threshold", runs.front()["bounded_slowdown"]["threshold"]}};
  a["utilization"] = {{"gross", out(mean_of(runs, P("/utilization/gross")))},
                      {"net", out(mean_of(runs, P("/utilization/net")))},
                      {"over", "arrival window"},
                      {"makespan_gross", out(mean_of(runs, P("/utilization/makespan_gross")))},
                      {"makespan_net", out(mean_of(runs, P("/utilization/makespan_net")))}};
  a["makespan"] = out(mean_of(runs, P("/makespan")));
  a["throughput"] = out(mean_of(runs, P("/throughput")));
  nlohmann::json queues = nlohmann::json::object();
  bool saturated = false, stopped = false, exact = true;
  std::uint64_t completed = 0, measured = 0, arrived = 0, in_system = 0;
  for (const auto& r : runs) {
    for (const auto& [name, n] : r["max_queue_length"].items()) {
      queues[name] = std::max(queues.value(name, std::uint64_t{0}), n.get<std::uint64_t>());
    }
    saturated = saturated || r["saturated"].get<bool>();
    stopped = stopped || r["stopped_early"].get<bool>();
    exact = exact && r["quantiles_exact"].get<bool>();
    completed += r["jobs"]["measured_completed"].get<std::uint64_t>();
    measured += r["jobs"]["measured"].get<std::uint64_t>();
    arrived += r["jobs"]["arrived"].get<std::uint64_t>();
    in_system = std::max(in_system, r["jobs"]["max_in_system"].get<std::uint64_t>());
  }
  a["max_queue_length"] = queues;
  a["saturated"] = saturated;
  a["stopped_early"] = stopped;
  a["quantiles_exact"] = exact;
  a["jobs"] = {{"arrived", arrived},
               {"measured", measured},
               {"measured_completed", completed},
               {"max_in_system", in_system}};
  a["note"] = "means over replications; median and p95 are means of the replications' values";
  return a;
}

namespace {

std::vector<nlohmann::json> summaries_of(const Study& study,
                                         const std::vector<nlohmann::json>& results, size_t point) {
  std::vector<nlohmann::json> runs;
  const auto reps = static_cast<size_t>(study.replications());
  for (size_t r = 0; r < reps; ++r) runs.push_back(results[point * reps + r]["summary"]);
  return runs;
}

nlohmann::json seeds_json(const Study& study) {
  nlohmann::json seeds = nlohmann::json::array();
  for (int r = 0; r < study.replications(); ++r) seeds.push_back(study.seed_of(r));
  nlohmann::json out = nlohmann::json::object();  // key by key, as RunSummary::to_json
  out["base"] = study.options().seed;
  out["replications"] = std::move(seeds);
  out["streams"] =
      "arrivals, job mix, fixed clusters, trace splits and home clusters are separate streams "
      "derived from each replication's seed";
  return out;
}

nlohmann::json point_json(const Point& p) {
  nlohmann::json out = nlohmann::json::object();
  out["policy"] = p.policy;
  out["placement"] = p.placement;
  out["rule"] = p.rule;
  out["queue"] = p.queue;
  out["rate"] = p.rate;
  out["offered_utilization"] = p.utilization;
  out["time_scale"] = p.scale;
  return out;
}

// Jobs of the workload that are not in the statistics, and why (replication 0).
nlohmann::json left_out_json(const Study& study, const std::vector<nlohmann::json>& runs) {
  const nlohmann::json& jobs = runs.front()["jobs"];
  const auto arrived = jobs["arrived"].get<std::uint64_t>();
  const auto measured = jobs["measured"].get<std::uint64_t>();
  const auto completed = jobs["measured_completed"].get<std::uint64_t>();
  const auto warmup = jobs["warmup"].get<std::uint64_t>();
  std::uint64_t skipped = 0;
  for (const auto& [why, n] : study.skipped()) skipped += n;
  const std::uint64_t workload =
      study.synthetic() ? static_cast<std::uint64_t>(study.options().jobs) : study.trace_jobs();
  const std::uint64_t never = workload > arrived ? workload - arrived : 0;
  const std::uint64_t unfinished = measured > completed ? measured - completed : 0;
  nlohmann::json out = nlohmann::json::object();
  out["total"] = warmup + unfinished + never + skipped;
  out["warmup"] = warmup;
  out["unfinished_at_stop"] = unfinished;
  out["never_arrived"] = never;
  out["skipped_lines"] = skipped;
  out["stopped_early"] = runs.front()["stopped_early"];
  out["why"] =
      "warmup: --warmup; unfinished_at_stop and never_arrived: the run stopped at "
      "--max-in-system; skipped_lines: trace lines with unknown processors or runtime "
      "(config.workload.skipped)";
  return out;
}

}  // namespace

nlohmann::json summary_document(const Study& study, const std::vector<nlohmann::json>& results,
                                const nlohmann::json& env) {
  auto runs = summaries_of(study, results, 0);
  nlohmann::json doc;
  doc["schema"] = "mcb-sim-summary/1";
  doc["config"] = study.config_json();
  doc["point"] = point_json(study.points().front());
  doc["seeds"] = seeds_json(study);
  doc["left_out"] = left_out_json(study, runs);
  if (runs.size() > 1) {
    doc["result"] = aggregate(runs);
    doc["replications"] = std::move(runs);
  } else {
    doc["result"] = std::move(runs.front());  // aggregate() of one run, without its copy
  }
  doc["env"] = env;
  return doc;
}

namespace {

struct Row {
  size_t point;
  nlohmann::json agg;
  std::string mark;
};

// Rows grouped by curve (policy, placement, rule, queue) and ordered by rate; marks the last
// stable and the first saturated rate of each curve.
std::vector<std::vector<Row>> curves(const Study& study,
                                     const std::vector<nlohmann::json>& results) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::vector<Row>> groups;
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> order;
  for (size_t i = 0; i < study.points().size(); ++i) {
    const Point& p = study.points()[i];
    const auto key = std::make_tuple(p.policy, p.placement, p.rule, p.queue);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back({i, aggregate(summaries_of(study, results, i)), ""});
  }
  std::vector<std::vector<Row>> out;
  for (const auto& key : order) {
    auto rows = groups[key];
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      return study.points()[a.point].rate < study.points()[b.point].rate;
    });
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].agg["saturated"].get<bool>()) continue;
      rows[i].mark = "first_saturated";
      if (i > 0) rows[i - 1].mark = "last_stable";
      break;
    }
    out.push_back(std::move(rows));
  }
  return out;
}

std::string cell(const nlohmann::json& j) {
  if (j.is_number()) return format_number(j.get<double>());
  return "";
}

}  // namespace

std::string sweep_csv(const Study& study, const std::vector<nlohmann::json>& results) {
  csv::Writer table(kSweepCsvColumns);
  for (const auto& rows : curves(study, results)) {
    for (const Row& row : rows) {
      const Point& p = study.points()[row.point];
      const nlohmann::json& a = row.agg;
      const auto q = [&](const char* key, const char* field) {
        return cell(a[key].value(field, nlohmann::json()));
      };
      table.row({std::to_string(row.point),
                 p.policy,
                 p.placement,
                 p.rule,
                 p.queue,
                 format_number(p.rate),
                 format_number(p.utilization),
                 std::to_string(study.replications()),
                 q("response", "mean"),
                 q("response", "ci95_half_width"),
                 q("response", "median"),
                 q("response", "p95"),
                 q("wait", "mean"),
                 q("wait", "ci95_half_width"),
                 q("wait", "median"),
                 q("wait", "p95"),
                 q("bounded_slowdown", "mean"),
                 q("utilization", "gross"),
                 q("utilization", "net"),
                 cell(a["throughput"]),
                 std::to_string(a["max_queue_length"]["total"].get<std::uint64_t>()),
                 std::to_string(a["jobs"]["measured_completed"].get<std::uint64_t>()),
                 a["saturated"].get<bool>() ? "1" : "0",
                 row.mark});
    }
  }
  return table.text();
}

nlohmann::json sweep_document(const Study& study, const std::vector<nlohmann::json>& results,
                              const nlohmann::json& env) {
  nlohmann::json doc;
  doc["schema"] = "mcb-sim-sweep/1";
  doc["config"] = study.config_json();
  doc["seeds"] = seeds_json(study);
  nlohmann::json curves_json = nlohmann::json::array();
  const auto summary_of = [&](const Row& r) {
    const Point& p = study.points()[r.point];
    return nlohmann::json{{"point", r.point},
                          {"rate", p.rate},
                          {"offered_utilization", p.utilization},
                          {"gross_utilization", r.agg["utilization"]["gross"]},
                          {"net_utilization", r.agg["utilization"]["net"]},
                          {"response_mean", r.agg["response"]["mean"]}};
  };
  for (const auto& rows : curves(study, results)) {
    const Point& p = study.points()[rows.front().point];
    nlohmann::json c = {{"policy", p.policy},     {"placement", p.placement},
                        {"rule", p.rule},         {"queue", p.queue},
                        {"last_stable", nullptr}, {"first_saturated", nullptr}};
    for (const Row& r : rows) {
      if (r.mark == "last_stable") c["last_stable"] = summary_of(r);
      if (r.mark == "first_saturated") c["first_saturated"] = summary_of(r);
    }
    if (c["first_saturated"].is_null() && !rows.empty()) c["last_stable"] = summary_of(rows.back());
    c["saturated_within_sweep"] = !c["first_saturated"].is_null();
    curves_json.push_back(c);
  }
  doc["curves"] = curves_json;
  nlohmann::json points = nlohmann::json::array();
  for (size_t i = 0; i < study.points().size(); ++i) {
    nlohmann::json pj = point_json(study.points()[i]);
    pj["point"] = i;
    pj["result"] = aggregate(summaries_of(study, results, i));
    points.push_back(pj);
  }
  doc["points"] = points;
  doc["env"] = env;
  return doc;
}

}  // namespace mcb::sim
