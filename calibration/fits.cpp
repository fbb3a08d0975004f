#include "calibration/fits.hpp"

#include "common/compute_fits.hpp"
#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace mcb::calib {
namespace {

using nlohmann::json;

json core_of(const Record& run) {
  std::vector<std::string> drop = size_keys();
  drop.push_back("system");
  drop.push_back("wan");
  return without(comparable_config(run.config()), drop);
}

std::string describe(const Target& t) {
  return t.app + "," + t.problem + "," + std::to_string(t.total_size) + "," +
         std::to_string(t.components) + "," + t.system;
}

std::vector<std::string> target_key(const Target& t) {
  return {t.app, t.problem, std::to_string(t.total_size), std::to_string(t.components), t.system};
}

std::vector<ComputeFit> fit_compute(const std::vector<const Record*>& runs, const std::string& hint,
                                    std::vector<Skipped>& skipped) {
  Grouper grouper("compute fit", hint);
  for (const Record* run : runs) {
    json config = without(comparable_config(run->config()), size_keys());
    // The emulated links listed per cluster pair follow the cluster count, a size key here.
    if (config.contains("wan") && config["wan"].is_object()) config["wan"].erase("links");
    grouper.add({string_field(*run, "app"), string_field(*run, "config.problem"),
                 string_field(*run, "config.system")},
                config, run);
  }
  std::vector<ComputeFit> fits;
  for (const Group& g : grouper.groups()) {
    std::vector<double> x;
    std::vector<double> y;
    std::set<std::int64_t> sizes;
    for (const Record* run : g.runs) {
      const std::int64_t p = integer_field(*run, "config.total_size");
      sizes.insert(p);
      x.push_back(1.0 / static_cast<double>(p));
      y.push_back(number_field(*run, "result.compute_time.avg"));
    }
    const std::string what = "compute fit " + g.key[0] + "," + g.key[1] + "," + g.key[2];
    if (sizes.size() < 2) {
      skipped.push_back({what, "runs at one total size only (" + std::to_string(*sizes.begin()) +
                                   "); a + b/P needs two or more"});
      continue;
    }
    ComputeFit f;
    f.app = g.key[0];
    f.problem = g.key[1];
    f.system = g.key[2];
    f.core = core_of(*g.runs.front());
    f.fit = fit_line(x, y);
    f.a = f.fit.intercept;
    f.b = f.fit.slope;
    f.p_min = *sizes.begin();
    f.p_max = *sizes.rbegin();
    f.sizes = sizes.size();
    f.runs = g.runs.size();
    fits.push_back(std::move(f));
  }
  return fits;
}

std::vector<LinkFit> fit_links(const std::vector<const Record*>& runs, const std::string& hint,
                               std::vector<Skipped>& skipped) {
  Grouper grouper("link fit", hint);
  for (const Record* run : runs) {
    const json config =
        without(comparable_config(run->config()),
                {"sizes", "warmup", "iterations", "repetitions", "components", "cluster_map"});
    for (const auto& [cls, value] : field(*run, "result.classes").items()) {
      grouper.add({string_field(*run, "config.system"), cls}, config, run);
    }
  }
  std::vector<LinkFit> fits;
  for (const Group& g : grouper.groups()) {
    std::vector<double> x;
    std::vector<double> y;
    std::vector<double> w;
    std::set<double> sizes;
    for (const Record* run : g.runs) {
      const std::string base = "result.classes." + g.key[1] + ".points";
      const std::size_t n = field(*run, base).size();
      for (std::size_t i = 0; i < n; ++i) {
        const std::string p = base + "." + std::to_string(i);
        const double bytes = number_field(*run, p + ".bytes");
        const double time = number_field(*run, p + ".avg");
        x.push_back(bytes);
        y.push_back(time);
        w.push_back(time > 0 ? 1.0 / time : 1.0);
        sizes.insert(bytes);
      }
    }
    const std::string what = "link fit " + g.key[0] + "," + g.key[1];
    if (sizes.size() < 2) {
      skipped.push_back({what, "points at fewer than two message sizes"});
      continue;
    }
    LinkFit f;
    f.system = g.key[0];
    f.link_class = g.key[1];
    f.config = g.config;
    f.fit = fit_line(x, y, w);
    f.t0 = f.fit.intercept;
    f.usable = f.fit.slope > 0;
    f.bandwidth = f.usable ? 1.0 / f.fit.slope : 0.0;
    f.bytes_min = *sizes.begin();
    f.bytes_max = *sizes.rbegin();
    f.runs = g.runs.size();
    if (!f.usable) {
      skipped.push_back({what, "fitted time does not grow with message size; not used"});
    }
    fits.push_back(std::move(f));
  }
  return fits;
}

std::vector<TrafficProfile> traffic_profiles(const std::vector<const Record*>& runs,
                                             const std::string& hint) {
  Grouper grouper("traffic profile", hint);
  for (const Record* run : runs) {
    grouper.add({string_field(*run, "app"), string_field(*run, "config.problem"),
                 std::to_string(integer_field(*run, "config.total_size")),
                 std::to_string(integer_field(*run, "config.components"))},
                core_of(*run), run);
  }
  std::vector<TrafficProfile> profiles;
  for (const Group& g : grouper.groups()) {
    TrafficProfile t;
    t.app = g.key[0];
    t.problem = g.key[1];
    t.total_size = std::stoll(g.key[2]);
    t.components = std::stoll(g.key[3]);
    t.core = g.config;
    t.runs = g.runs.size();
    t.messages.assign(static_cast<std::size_t>(t.total_size), {0.0, 0.0});
    t.bytes.assign(static_cast<std::size_t>(t.total_size), {0.0, 0.0});
    const double share = 1.0 / static_cast<double>(g.runs.size());
    for (const Record* run : g.runs) {
      for (std::int64_t r = 0; r < t.total_size; ++r) {
        const std::string base = "ranks." + std::to_string(r) + ".channels";
        for (const auto& [name, channel] : field(*run, base).items()) {
          const std::string c = base + "." + name + ".received.";
          for (int k = 0; k < 2; ++k) {
            const std::string cls = k == 0 ? "intra" : "inter";
            t.messages[static_cast<std::size_t>(r)][k] +=
                share * static_cast<double>(integer_field(*run, c + cls + ".messages"));
            t.bytes[static_cast<std::size_t>(r)][k] +=
                share * static_cast<double>(integer_field(*run, c + cls + ".bytes"));
          }
        }
      }
    }
    profiles.push_back(std::move(t));
  }
  return profiles;
}

const LinkFit* find_link(const Models& m, const std::string& system, const std::string& cls) {
  for (const LinkFit& f : m.links) {
    if (f.system == system && f.link_class == cls && f.usable) return &f;
  }
  return nullptr;
}

}  // namespace

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& weights) {
  const std::size_t n = x.size();
  if (y.size() != n || (!weights.empty() && weights.size() != n)) {
    throw std::invalid_argument("fit_line: x, y and weights differ in length");
  }
  if (std::set<double>(x.begin(), x.end()).size() < 2) {
    throw std::invalid_argument("fit_line: fewer than two distinct x values");
  }
  Eigen::MatrixXd a(static_cast<Eigen::Index>(n), 2);
  Eigen::VectorXd b(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    const auto row = static_cast<Eigen::Index>(i);
    a(row, 0) = w;
    a(row, 1) = w * x[i];
    b(row) = w * y[i];
  }
  const Eigen::Vector2d c = a.colPivHouseholderQr().solve(b);
  LineFit f;
  f.intercept = c(0);
  f.slope = c(1);
  f.points = n;
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(n);
  double ss_res = 0;
  double ss_tot = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double model = f.intercept + f.slope * x[i];
    const double r = y[i] - model;
    ss_res += r * r;
    ss_tot += (y[i] - mean) * (y[i] - mean);
    if (y[i] > 0) f.max_relative_gap = std::max(f.max_relative_gap, std::fabs(r) / y[i]);
  }
  f.rmse = std::sqrt(ss_res / static_cast<double>(n));
  f.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
  return f;
}

const std::vector<std::string>& size_keys() {
  // Poisson's process grid; Ensflow's share of the ensemble per process.
  static const std::vector<std::string> keys = {
      "total_size", "components", "clusters",    "procs",
      "h",          "v",          "cluster_map", "members_per_process"};
  return keys;
}

Models fit_models(const std::vector<const Record*>& app_runs,
                  const std::vector<const Record*>& link_runs, const std::string& hint) {
  Models m;
  m.compute = fit_compute(app_runs, hint, m.skipped);
  m.links = fit_links(link_runs, hint, m.skipped);
  m.traffic = traffic_profiles(app_runs, hint);
  return m;
}

Target parse_target(const std::string& option, const std::string& text) {
  auto bad = [&](const std::string& why) {
    return UsageError("--" + option + ": '" + text + "' " + why);
  };
  std::vector<std::string> f;
  try {
    f = csv::split(text);
  } catch (const std::invalid_argument& e) {
    throw bad(std::string("is not APP,PROBLEM,SIZE,COMPONENTS,SYSTEM: ") + e.what());
  }
  if (f.size() != 5) throw bad("is not APP,PROBLEM,SIZE,COMPONENTS,SYSTEM");
  auto count = [&](const std::string& s, const char* name) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || v <= 0) {
      throw bad(std::string("has ") + name + " '" + s + "', not a positive integer");
    }
    return v;
  };
  Target t{f[0], f[1], count(f[2], "SIZE"), count(f[3], "COMPONENTS"), f[4]};
  if (t.app.empty() || t.problem.empty() || t.system.empty()) throw bad("has an empty field");
  if (t.components > t.total_size) throw bad("has more components than processes");
  return t;
}

std::optional<Prediction> predict(const Target& target, const Models& models,
                                  const std::vector<RuntimeRow>& measured, bool extrapolate,
                                  std::string& refusal) {
  const ComputeFit* cf = nullptr;
  for (const ComputeFit& f : models.compute) {
    if (f.app == target.app && f.problem == target.problem && f.system == target.system) cf = &f;
  }
  if (cf == nullptr) {
    refusal = "no compute fit for " + target.app + "," + target.problem + " on " + target.system +
              " (needs valid runs there at two or more total sizes)";
    return std::nullopt;
  }
  const TrafficProfile* tp = nullptr;
  for (const TrafficProfile& t : models.traffic) {
    if (t.app == target.app && t.problem == target.problem && t.total_size == target.total_size &&
        t.components == target.components) {
      tp = &t;
    }
  }
  if (tp == nullptr) {
    refusal = "no run of " + target.app + "," + target.problem + " with " +
              std::to_string(target.total_size) + " processes in " +
              std::to_string(target.components) + " components on any system to take its " +
              "traffic from";
    return std::nullopt;
  }
  if (tp->core != cf->core) {
    refusal = "the compute fit and the traffic come from runs that differ in config." +
              first_difference(cf->core, tp->core);
    return std::nullopt;
  }
  Prediction p;
  p.target = target;
  std::vector<std::string> outside;
  const double big = std::numeric_limits<double>::infinity();
  std::array<const LinkFit*, 2> link{nullptr, nullptr};
  std::array<double, 2> size_min{big, big};
  std::array<double, 2> size_max{0, 0};
  for (std::size_t r = 0; r < tp->messages.size(); ++r) {
    for (int k = 0; k < 2; ++k) {
      if (tp->messages[r][k] <= 0) continue;
      const double size = tp->bytes[r][k] / tp->messages[r][k];
      size_min[k] = std::min(size_min[k], size);
      size_max[k] = std::max(size_max[k], size);
    }
  }
  for (int k = 0; k < 2; ++k) {
    if (size_max[k] == 0 && size_min[k] == big) continue;  // no traffic of this class
    if (k == 0) {
      link[0] = find_link(models, target.system, "same_cluster");
      if (link[0] == nullptr) link[0] = find_link(models, target.system, "same_node");
    } else {
      link[1] = find_link(models, target.system, "cross_cluster");
    }
    if (link[k] == nullptr) {
      refusal = std::string("no usable link fit on ") + target.system + " for " +
                (k == 0 ? "intra-cluster traffic (same_cluster or same_node)"
                        : "inter-cluster traffic (cross_cluster)");
      return std::nullopt;
    }
    (k == 0 ? p.intra_class : p.inter_class) = link[k]->link_class;
    if (size_min[k] < link[k]->bytes_min || size_max[k] > link[k]->bytes_max) {
      outside.push_back(link[k]->link_class + " message sizes " + csv::number(size_min[k]) + ".." +
                        csv::number(size_max[k]) + " B outside the measured " +
                        csv::number(link[k]->bytes_min) + ".." + csv::number(link[k]->bytes_max) +
                        " B");
    }
  }
  if (target.total_size < cf->p_min || target.total_size > cf->p_max) {
    outside.push_back("total size " + std::to_string(target.total_size) + " outside the measured " +
                      std::to_string(cf->p_min) + ".." + std::to_string(cf->p_max));
  }
  if (!outside.empty()) {
    if (!extrapolate) {
      refusal = outside.front() + " (allow with --extrapolate)";
      return std::nullopt;
    }
    p.extrapolated = true;
  }
  p.compute = cf->a + cf->b / static_cast<double>(target.total_size);
  for (std::size_t r = 0; r < tp->messages.size(); ++r) {
    double t = 0;
    for (int k = 0; k < 2; ++k) {
      if (link[k] == nullptr) continue;
      t += tp->messages[r][k] * link[k]->t0 + tp->bytes[r][k] / link[k]->bandwidth;
    }
    p.comm = std::max(p.comm, t);
  }
  p.service = p.compute + p.comm;
  for (const RuntimeRow& row : measured) {
    if (row_key(row) == target_key(target)) p.measured = row.stats;
  }
  return p;
}

std::vector<Prediction> predict_all(const Models& models, const std::vector<RuntimeRow>& measured,
                                    bool extrapolate, std::vector<Skipped>& skipped) {
  std::vector<Prediction> out;
  for (const ComputeFit& cf : models.compute) {
    for (const TrafficProfile& tp : models.traffic) {
      if (tp.app != cf.app || tp.problem != cf.problem) continue;
      const Target t{cf.app, cf.problem, tp.total_size, tp.components, cf.system};
      std::string refusal;
      if (auto p = predict(t, models, measured, extrapolate, refusal)) {
        out.push_back(std::move(*p));
      } else {
        skipped.push_back({"service time " + describe(t), refusal});
      }
    }
  }
  return out;
}

std::string compute_fits_csv(const std::vector<ComputeFit>& fits) {
  // Through the table's one owner (common/compute_fits.hpp), which readers share.
  ComputeFitTable table;
  for (const ComputeFit& f : fits) {
    ComputeFitRow r;
    r.app = f.app;
    r.problem = f.problem;
    r.system = f.system;
    r.a = f.a;
    r.b = f.b;
    r.r2 = f.fit.r2;
    r.rmse = f.fit.rmse;
    r.max_relative_gap = f.fit.max_relative_gap;
    r.points = static_cast<std::int64_t>(f.fit.points);
    r.sizes = static_cast<std::int64_t>(f.sizes);
    r.p_min = f.p_min;
    r.p_max = f.p_max;
    table.rows.push_back(std::move(r));
  }
  return table.to_csv();
}

std::string link_fits_csv(const std::vector<LinkFit>& fits) {
  csv::Writer table({"system", "class", "t0", "bandwidth", "r2", "rmse", "max_relative_gap",
                     "points", "runs", "bytes_min", "bytes_max", "usable"});
  for (const LinkFit& f : fits) {
    table.row({f.system, f.link_class, csv::number(f.t0),
               f.usable ? csv::number(megabytes_per_second(f.bandwidth)) : std::string(),
               csv::number(f.fit.r2), csv::number(f.fit.rmse), csv::number(f.fit.max_relative_gap),
               std::to_string(f.fit.points), std::to_string(f.runs), csv::number(f.bytes_min),
               csv::number(f.bytes_max), f.usable ? "true" : "false"});
  }
  return table.text();
}

std::string service_times_csv(const std::vector<Prediction>& predictions) {
  csv::Writer table({"app", "problem", "total_size", "components", "system", "compute", "comm",
                     "service", "measured_n", "measured_avg", "relative_error", "extrapolated"});
  for (const Prediction& p : predictions) {
    std::vector<std::string> f = target_key(p.target);
    f.push_back(csv::number(p.compute));
    f.push_back(csv::number(p.comm));
    f.push_back(csv::number(p.service));
    if (p.measured) {
      f.push_back(std::to_string(p.measured->n));
      f.push_back(csv::number(p.measured->avg));
      f.push_back(p.measured->avg > 0 ? csv::number((p.service - p.measured->avg) / p.measured->avg)
                                      : std::string());
    } else {
      f.insert(f.end(), {"0", "", ""});
    }
    f.push_back(p.extrapolated ? "true" : "false");
    table.row(f);
  }
  return table.text();
}

json models_json(const Models& models, const std::vector<Prediction>& predictions) {
  auto line = [](const LineFit& f) {
    return json{{"r2", f.r2},
                {"rmse", f.rmse},
                {"max_relative_gap", f.max_relative_gap},
                {"points", f.points}};
  };
  json compute = json::array();
  for (const ComputeFit& f : models.compute) {
    compute.push_back({{"app", f.app},
                       {"problem", f.problem},
                       {"system", f.system},
                       {"model", "compute_time.avg = a + b / total_size"},
                       {"a", f.a},
                       {"b", f.b},
                       {"goodness", line(f.fit)},
                       {"range", {{"total_size", {f.p_min, f.p_max}}, {"sizes", f.sizes}}},
                       {"runs", f.runs},
                       {"config", f.core}});
  }
  json links = json::array();
  for (const LinkFit& f : models.links) {
    links.push_back(
        {{"system", f.system},
         {"class", f.link_class},
         {"model", "one-way time = t0 + bytes / bandwidth"},
         {"t0", f.t0},
         {"bandwidth", f.usable ? json(megabytes_per_second(f.bandwidth)) : json(nullptr)},
         {"usable", f.usable},
         {"goodness", line(f.fit)},
         {"range", {{"bytes", {f.bytes_min, f.bytes_max}}}},
         {"runs", f.runs},
         {"config", f.config}});
  }
  // Goodness of the combined model: how far predictions land from measured rows.
  std::map<std::vector<std::string>, std::vector<double>> errors;
  for (const Prediction& p : predictions) {
    if (p.measured && p.measured->avg > 0) {
      errors[{p.target.app, p.target.problem, p.target.system}].push_back(
          std::fabs(p.service - p.measured->avg) / p.measured->avg);
    }
  }
  json service = json::array();
  for (const auto& [key, e] : errors) {
    double sum = 0;
    for (double v : e) sum += v;
    service.push_back({{"app", key[0]},
                       {"problem", key[1]},
                       {"system", key[2]},
                       {"compared_rows", e.size()},
                       {"mean_abs_relative_error", sum / static_cast<double>(e.size())},
                       {"max_abs_relative_error", *std::max_element(e.begin(), e.end())}});
  }
  json skipped = json::array();
  for (const Skipped& s : models.skipped)
    skipped.push_back({{"what", s.what}, {"reason", s.reason}});
  return {{"compute", compute},
          {"links", links},
          {"service",
           {{"model",
             "service = a + b / total_size + max over ranks of sum over link classes of "
             "(messages * t0 + bytes / bandwidth)"},
            {"predictions", predictions.size()},
            {"against_measured", service}}},
          {"skipped", skipped}};
}

}  // namespace mcb::calib
