#include "calibration/job_model.hpp"

#include "calibration/grouping.hpp"
#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/node_load.hpp"
#include "common/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace mcb::calib {
namespace {

using nlohmann::json;

// What a run brings to the model before T^p, T^c and PNBW are known.
struct Observed {
  ModelRun run;
  double processing = 0;  // compute (and check) seconds per rank, the dedicated T^p's reading
  double crossing = 0;    // PnbwPoint::crossing
  bool unloaded = true;   // no load of any kind (CPU, memory, network)
};

// Ranks per cluster of the run's cluster map, in order of first appearance.
std::vector<int> split_of(const Record& r) {
  const json& map = field(r, "config.cluster_map");
  if (!map.is_array() || map.empty()) {
    throw UsageError(r.where() + ": field 'config.cluster_map' must be a non-empty array");
  }
  std::vector<json> labels;
  std::vector<int> counts;
  for (const json& label : map) {
    const auto it = std::find(labels.begin(), labels.end(), label);
    if (it == labels.end()) {
      labels.push_back(label);
      counts.push_back(1);
    } else {
      ++counts[static_cast<std::size_t>(it - labels.begin())];
    }
  }
  return counts;
}

double cpu_share_of(const Record& r) {
  const json* load = lookup(r.doc, "config.node_load");
  if (load == nullptr) return 0;  // written before --node-load: no load
  if (!load->is_string()) {
    throw UsageError(r.where() + ": field 'config.node_load' must be a string");
  }
  try {
    return parse_node_load(load->get<std::string>()).cpu_share;
  } catch (const std::invalid_argument& e) {
    throw UsageError(r.where() + ": config.node_load '" + load->get<std::string>() +
                     "': " + e.what());
  }
}

// The CPU share the load generators reached, mean over hosts (env.node_load, nodeload/README.md):
// seed 002 measures availability; what was asked is not what a busy host gives.
double reached_share(const Record& r, double asked) {
  const json* hosts = lookup(r.doc, "env.node_load.hosts");
  if (hosts == nullptr || !hosts->is_array() || hosts->empty()) return asked;
  double sum = 0;
  for (const json& h : *hosts) {
    try {
      sum += read_node_load_summary(h).cpu_share();
    } catch (const std::exception& e) {
      throw UsageError(r.where() + ": env.node_load.hosts: " + e.what());
    }
  }
  return std::clamp(sum / static_cast<double>(hosts->size()), 0.0, 0.99);
}

bool loaded(const Record& r) {
  const json* load = lookup(r.doc, "config.node_load");
  return load != nullptr && parse_node_load(load->get<std::string>()).any();
}

// Eq. 4's share of the job's nodes on the busiest link: max_i n_i (n_T - n_i) / (n_T - 1).
double busiest_link_nodes(const std::vector<int>& split) {
  int total = 0;
  for (int n : split) total += n;
  double most = 0;
  for (int n : split) {
    if (n > 0 && n < total) most = std::max(most, n * (total - n) / (total - 1.0));
  }
  return most;
}

// The run's link class, or the reason it has none the model can use.
std::string read_link(const Record& r, ModelRun& run) {
  if (run.clusters == 1) {
    run.link_class = "intra";
    return "";
  }
  const json* wan = lookup(r.doc, "config.wan");
  if (wan == nullptr || wan->is_null()) {
    return "crosses clusters without an emulated link (no BW^max for eq. 5)";
  }
  run.latency = number_field(r, "config.wan.latency");
  run.bandwidth = number_field(r, "config.wan.bandwidth");
  if (const json* links = lookup(r.doc, "config.wan.links"); links && links->is_array()) {
    for (const json& link : *links) {
      if (link.value("latency", run.latency) != run.latency ||
          link.value("bandwidth", run.bandwidth) != run.bandwidth) {
        return "its links differ in latency or bandwidth (one class per run)";
      }
    }
  }
  if (!(run.bandwidth > 0) || !std::isfinite(run.bandwidth)) {
    return "its link has no finite bandwidth";
  }
  run.link_class = csv::number(run.latency * 1e3) + "ms/" + csv::number(run.bandwidth) + "MB/s";
  return "";
}

Observed observe(const Record& r, std::string& why_not) {
  Observed o;
  ModelRun& run = o.run;
  run.run_id = r.run_id();
  run.source = r.where();
  run.app = r.app();
  run.problem = string_field(r, "config.problem");
  run.total_size = integer_field(r, "config.total_size");
  const std::vector<int> split = split_of(r);
  run.clusters = static_cast<int>(split.size());
  run.cpu_share_asked = cpu_share_of(r);
  run.cpu_share = reached_share(r, run.cpu_share_asked);
  o.unloaded = !loaded(r);
  run.sp = 1.0 / (1.0 - run.cpu_share);  // eqs. 2-3: P = 1, A = 1 - the CPU load's share
  run.measured = number_field(r, "result.wall_time");
  o.processing = number_field(r, "result.compute_time.avg");
  if (const json* check = lookup(r.doc, "result.check_time.avg"); check && check->is_number()) {
    o.processing += check->get<double>();  // verifying what arrived is processing too
  }
  why_not = read_link(r, run);
  if (why_not.empty() && !(run.measured > 0)) why_not = "its wall time is not positive";
  if (why_not.empty() && run.clusters > 1) o.crossing = busiest_link_nodes(split) / run.bandwidth;
  return o;
}

double median_abs(std::vector<double> errors) {
  for (double& e : errors) e = std::fabs(e);
  return summarize(std::move(errors)).median;
}

// The model of one job from its runs, or the reason there is none.
std::string fit_job(const std::vector<Observed>& runs, JobModelRow& row) {
  std::vector<double> processing;
  std::vector<double> wall;
  for (const Observed& o : runs) {
    if (o.run.clusters == 1 && o.unloaded) {
      processing.push_back(o.processing);
      wall.push_back(o.run.measured);
    }
  }
  if (processing.empty()) {
    return "no run on one cluster without a load (T^p and T^c are measured there)";
  }
  row.tp = mean(processing);
  row.tc = std::max(0.0, mean(wall) - row.tp);
  if (!(row.tp > 0)) return "its dedicated runs have no processing time";
  std::vector<PnbwPoint> points;
  for (const Observed& o : runs) {
    if (o.run.clusters > 1) points.push_back({row.tp * o.run.sp, o.crossing, o.run.measured});
  }
  if (points.empty()) return "no co-allocated run to fit PNBW to";
  row.pnbw = fit_pnbw(row.tc, points);
  row.dedicated_runs = static_cast<std::int64_t>(processing.size());
  row.fitted_runs = static_cast<std::int64_t>(points.size());
  return "";
}

}  // namespace

double communication_slowdown(double crossing, double pnbw) {
  return std::max(1.0, crossing * pnbw);
}

double fit_pnbw(double tc, const std::vector<PnbwPoint>& points) {
  const auto cost = [&](double p) {
    double sum = 0;
    for (const PnbwPoint& q : points) {
      const double r = (q.processing + tc * communication_slowdown(q.crossing, p)) / q.measured - 1;
      sum += r * r;
    }
    return sum;
  };
  std::vector<double> breaks;  // where a point's link starts to saturate
  for (const PnbwPoint& q : points) {
    if (q.crossing > 0) breaks.push_back(1.0 / q.crossing);
  }
  if (!(tc > 0) || breaks.empty()) return 0;
  std::sort(breaks.begin(), breaks.end());
  double best = 0;
  double best_cost = cost(0);
  for (std::size_t k = 0; k < breaks.size(); ++k) {
    const double lo = breaks[k];
    const double hi = k + 1 < breaks.size() ? breaks[k + 1] : std::numeric_limits<double>::max();
    // On [lo, hi] the saturated points' residuals are u p + v; the others are constant.
    double uu = 0;
    double uv = 0;
    for (const PnbwPoint& q : points) {
      if (q.crossing > 0 && 1.0 / q.crossing <= lo) {
        const double u = tc * q.crossing / q.measured;
        uu += u * u;
        uv += u * (q.processing / q.measured - 1);
      }
    }
    for (const double p : {lo, std::clamp(uu > 0 ? -uv / uu : lo, lo, hi)}) {
      const double c = cost(p);
      if (c < best_cost) {
        best_cost = c;
        best = p;
      }
    }
  }
  return best;
}

JobModelFit fit_job_models(const std::vector<const Record*>& runs, const std::string& hint) {
  JobModelFit fit;
  Grouper grouper("job_models.csv", hint);
  std::map<const Record*, Observed> observed;
  for (const Record* r : runs) {
    std::string why_not;
    Observed o = observe(*r, why_not);
    if (!why_not.empty()) {
      fit.skipped.push_back({"run " + o.run.run_id + " (" + r->where() + ")", why_not});
      continue;
    }
    // A job's runs differ in their split, load and links, and in nothing else.
    const json core =
        without(comparable_config(r->config()),
                {"node_load", "clusters", "components", "cluster_map", "system", "wan", "relay"});
    grouper.add({o.run.app, o.run.problem, std::to_string(o.run.total_size)}, core, r);
    observed.emplace(r, std::move(o));
  }
  std::map<std::string, std::vector<const ModelRun*>> by_class;
  for (const Group& g : grouper.groups()) {
    std::vector<Observed> job;
    for (const Record* r : g.runs) job.push_back(observed.at(r));
    JobModelRow row;
    row.app = g.key[0];
    row.problem = g.key[1];
    row.total_size = job.front().run.total_size;
    if (const std::string why_not = fit_job(job, row); !why_not.empty()) {
      fit.skipped.push_back({"job " + csv::join(g.key), why_not});
      continue;
    }
    std::vector<double> errors;
    for (Observed& o : job) {
      o.run.sc = communication_slowdown(o.crossing, row.pnbw);
      o.run.predicted = row.tp * o.run.sp + row.tc * o.run.sc;
      errors.push_back(o.run.relative_error());
      fit.runs.push_back(o.run);
    }
    row.median_abs_relative_error = median_abs(errors);
    fit.models.rows.push_back(row);
  }
  std::map<std::string, std::vector<double>> errors;
  for (const ModelRun& run : fit.runs) {
    if (errors.find(run.link_class) == errors.end()) {
      fit.classes.push_back({run.link_class, run.latency, run.bandwidth});
    }
    errors[run.link_class].push_back(run.relative_error());
  }
  for (LinkClassError& c : fit.classes) {
    const std::vector<double>& e = errors.at(c.link_class);
    c.runs = e.size();
    c.median_abs_relative_error = median_abs(e);
    for (double x : e) c.max_abs_relative_error = std::max(c.max_abs_relative_error, std::fabs(x));
  }
  // "intra" first, then by latency and bandwidth.
  std::sort(fit.classes.begin(), fit.classes.end(),
            [](const LinkClassError& a, const LinkClassError& b) {
              return std::make_tuple(a.link_class != "intra", a.latency, -a.bandwidth) <
                     std::make_tuple(b.link_class != "intra", b.latency, -b.bandwidth);
            });
  return fit;
}

std::string job_model_runs_csv(const JobModelFit& fit) {
  csv::Writer out({"run_id", "source", "app", "problem", "total_size", "clusters", "link_class",
                   "cpu_share_asked", "cpu_share", "sp", "sc", "predicted", "measured",
                   "relative_error"});
  for (const ModelRun& r : fit.runs) {
    out.row({r.run_id, r.source, r.app, r.problem, std::to_string(r.total_size),
             std::to_string(r.clusters), r.link_class, csv::number(r.cpu_share_asked),
             csv::number(r.cpu_share), csv::number(r.sp), csv::number(r.sc),
             csv::number(r.predicted), csv::number(r.measured), csv::number(r.relative_error())});
  }
  return out.text();
}

std::string job_model_links_csv(const JobModelFit& fit) {
  csv::Writer out({"link_class", "latency", "bandwidth", "runs", "median_abs_relative_error",
                   "max_abs_relative_error"});
  for (const LinkClassError& c : fit.classes) {
    out.row({c.link_class, csv::number(c.latency), csv::number(c.bandwidth), std::to_string(c.runs),
             csv::number(c.median_abs_relative_error), csv::number(c.max_abs_relative_error)});
  }
  return out.text();
}

json job_model_json(const JobModelFit& fit) {
  json models = json::array();
  for (const JobModelRow& m : fit.models.rows) {
    models.push_back({{"app", m.app},
                      {"problem", m.problem},
                      {"total_size", m.total_size},
                      {"tp", m.tp},
                      {"tc", m.tc},
                      {"pnbw", m.pnbw},
                      {"comm_share", m.comm_share()},
                      {"dedicated_runs", m.dedicated_runs},
                      {"fitted_runs", m.fitted_runs},
                      {"median_abs_relative_error", m.median_abs_relative_error}});
  }
  json classes = json::array();
  for (const LinkClassError& c : fit.classes) {
    classes.push_back({{"link_class", c.link_class},
                       {"latency", c.latency},
                       {"bandwidth", c.bandwidth},
                       {"runs", c.runs},
                       {"median_abs_relative_error", c.median_abs_relative_error},
                       {"max_abs_relative_error", c.max_abs_relative_error}});
  }
  json skipped = json::array();
  for (const Skipped& s : fit.skipped) skipped.push_back({{"what", s.what}, {"reason", s.reason}});
  return {
      {"model",
       "seed 002 eq. 1: T = Tp*SP + Tc*SC; Tp, Tc from one cluster without load; SP = 1/(1 - "
       "cpu share reached); SC = max(1, PNBW * max_i n_i (n_T - n_i) / (n_T - 1) / BW_max); PNBW "
       "fitted (relative least squares) to the co-allocated runs"},
      {"models", models},
      {"link_classes", classes},
      {"skipped", skipped}};
}

}  // namespace mcb::calib
