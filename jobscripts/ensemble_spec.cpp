#include "jobscripts/ensemble_spec.hpp"

#include "common/compute_fits.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/units.hpp"
#include "jobscripts/spec_reader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace mcb::campaign {
namespace fs = std::filesystem;
using spec_detail::SpecReader;

namespace {

const std::map<std::string, std::set<std::string>>& known_keys() {
  static const std::map<std::string, std::set<std::string>> keys = {
      {"ensemble",
       {"systems", "binary", "horizon", "checkpoint-every", "poll", "status-every", "max-failures",
        "launcher", "np-flag", "compute-fits", "fit-problem", "split", "join-timeout",
        "ompi-server"}},
      {"link", {"bandwidth", "latency"}},
      {"queue",
       {"system", "partition", "queue", "processors", "time-limit", "a", "b", "fit-system"}}};
  return keys;
}

// Options the runner sets itself for every segment.
const std::set<std::string>& runner_options() {
  static const std::set<std::string> names = {"days",    "checkpoint",  "checkpoint-every",
                                              "restart", "stop-at-day", "stop-file",
                                              "output",  "ranks",       "check",
                                              "help"};
  return names;
}

// Every entry in a known section with a known key, none twice; [queue.NAME] sections.
void check_keys(const ini::File& file) {
  std::map<std::pair<std::string, std::string>, int> first;
  for (const ini::Entry& e : file.entries) {
    const std::string where = file.where(e.line);
    if (e.section == "options") {
      if (runner_options().count(e.key)) {
        throw UsageError(where + ": " + e.key + ": set by mcb-ensemble for every segment " +
                         "(the horizon is [ensemble] horizon)");
      }
    } else {
      const std::string kind = e.section.rfind("queue.", 0) == 0 ? "queue" : e.section;
      const auto known = known_keys().find(kind);
      if (known == known_keys().end()) {
        throw UsageError(where + ": unknown section [" + e.section +
                         "] (known: ensemble, link, queue.NAME, options)");
      }
      if (!known->second.count(e.key)) {
        throw UsageError(where + ": unknown key '" + e.key + "' in [" + e.section + "]");
      }
    }
    const auto [it, fresh] = first.emplace(std::make_pair(e.section, e.key), e.line);
    if (!fresh) {
      throw UsageError(where + ": " + e.key + ": set twice (first on line " +
                       std::to_string(it->second) + ")");
    }
  }
}

double non_negative(const SpecReader& reader, const ini::Entry& e) {
  const std::string value = reader.text(e);
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || !std::isfinite(v) || v < 0) {
    throw reader.error(e, "'" + value + "' is not a number of seconds at least 0");
  }
  return v;
}

// The fitted runs' days, from mcb-ensflow's problem name "m<M>-d<D>-g<G>".
int problem_days(const std::string& problem) {
  const std::size_t at = problem.find("-d");
  if (problem.rfind('m', 0) != 0 || at == std::string::npos) return 0;
  std::size_t used = 0;
  int days = 0;
  try {
    days = std::stoi(problem.substr(at + 2), &used);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string rest = problem.substr(at + 2 + used);
  return rest.rfind("-g", 0) == 0 && used > 0 ? days : 0;
}

// a + b/P of a model day from the compute fit of (ensflow, fit-problem, fit-system): the fit is
// of a whole run's compute time, so both parts are divided by the problem's days.
bool model_from_fit(const SpecReader& reader, const ini::Section& section,
                    const ComputeFitTable* fits, const std::string& problem, EnsembleQueue& q) {
  if (fits == nullptr) {
    if (const ini::Entry* e = reader.find(section.name, "fit-system"))
      throw reader.error(*e, "given without [ensemble] compute-fits");
    return false;
  }
  std::string system = "local";  // mcb-ensflow's --system without wide-area emulation
  reader.set_string(section.name, "fit-system", system);
  const ComputeFitRow* row = fits->find("ensflow", problem, system);
  if (row == nullptr) return false;
  const double days = problem_days(problem);
  if (row->seconds(q.processors) <= 0) {
    throw UsageError(fits->file + ":" + std::to_string(row->line) + ": the fit predicts " +
                     std::to_string(row->seconds(q.processors)) + " s at the " +
                     std::to_string(q.processors) + " processors of [" + section.name + "]");
  }
  q.a = row->a / days;
  q.b = row->b / days;
  q.model = fits->file + ":" + std::to_string(row->line);
  return true;
}

EnsembleQueue read_queue(const SpecReader& reader, const ini::Section& section,
                         const std::vector<QueueConfig>& systems, const ini::File& file,
                         const ComputeFitTable* fits, const std::string& problem) {
  EnsembleQueue q;
  q.name = section.name.substr(6);
  const std::string where = file.where(section.line);
  if (!spec_detail::directive_safe(q.name)) {
    throw UsageError(where + ": [" + section.name + "]: the queue's name '" + q.name +
                     "' may hold only letters, digits, '-', '_' and '.'");
  }
  const ini::Entry* sys = reader.find(section.name, "system");
  if (!sys) throw UsageError(where + ": [" + section.name + "]: system: missing");
  const std::string name = reader.text(*sys);
  const auto it = std::find_if(systems.begin(), systems.end(),
                               [&](const QueueConfig& c) { return c.name == name; });
  if (it == systems.end()) throw reader.error(*sys, "'" + name + "' is not in the systems file");
  q.system = *it;
  std::string partition, queue;
  reader.set_directive_name(section.name, "partition", partition);
  reader.set_directive_name(section.name, "queue", queue);
  if (!partition.empty()) q.system.settings["partition"] = partition;
  if (!queue.empty()) q.system.settings["queue"] = queue;
  make_queue(q.system);  // refuses a setting its kind does not know
  reader.set_int(section.name, "processors", q.processors, 1);
  reader.set_seconds(section.name, "time-limit", q.time_limit, false);
  if (model_from_fit(reader, section, fits, problem, q)) return q;
  for (const auto& [key, out] : {std::pair{"a", &q.a}, std::pair{"b", &q.b}}) {
    const ini::Entry* e = reader.find(section.name, key);
    if (!e) {
      throw UsageError(where + ": [" + section.name + "]: " + key +
                       ": missing (the measured time of a model day there is a + b/processors; " +
                       (fits ? "no compute fit of ensflow " + problem + " there"
                             : "or [ensemble] compute-fits") +
                       ")");
    }
    *out = non_negative(reader, *e);
  }
  if (q.seconds_per_day() <= 0) {
    throw reader.error(*reader.find(section.name, "b"), "a + b/processors must be positive");
  }
  return q;
}

void read_link(const SpecReader& reader, EnsembleSpec& s) {
  if (const ini::Entry* e = reader.find("link", "bandwidth")) {
    try {
      s.link_bandwidth = parse_rate(reader.text(*e));
    } catch (const std::invalid_argument& err) {
      throw reader.error(*e, err.what());
    }
  }
  reader.set_seconds("link", "latency", s.link_latency, true);
}

void read_split(const SpecReader& reader, EnsembleSpec& s) {
  if (const ini::Entry* e = reader.find("ensemble", "split")) {
    const std::string value = reader.text(*e);
    if (value != "auto" && value != "never") {
      throw reader.error(*e, "'" + value + "' is not auto or never");
    }
    s.split = value == "auto";
  }
  reader.set_seconds("ensemble", "join-timeout", s.join_timeout, false);
  reader.set_string("ensemble", "ompi-server", s.ompi_server);
}

void read_options(const ini::File& file, const SpecReader& reader, EnsembleSpec& s) {
  for (const ini::Entry& e : file.entries) {
    if (e.section != "options") continue;
    s.options.emplace_back(e.key, reader.text(e));
  }
}

}  // namespace

EnsembleSpec read_ensemble_spec(const std::string& path) {
  EnsembleSpec s;
  s.path = fs::absolute(path).lexically_normal().string();
  const ini::File file = ini::read_ini(s.path, "--spec: ");
  check_keys(file);
  const SpecReader reader(file);
  const std::string dir = fs::path(s.path).parent_path().string();
  const auto required = [&](const std::string& key, const std::string& what) {
    const ini::Entry* e = reader.find("ensemble", key);
    if (!e)
      throw UsageError("--spec: " + s.path + ": [ensemble] " + key + ": missing (" + what + ")");
    return e;
  };
  const ini::Entry* systems = required("systems", "the systems file, e.g. the rig's DIR/rig.env");
  s.systems_file = spec_detail::absolute_from(dir, reader.text(*systems));
  if (!fs::is_regular_file(s.systems_file)) {
    throw reader.error(*systems, "'" + s.systems_file + "' is not a file");
  }
  const std::vector<QueueConfig> configs = read_queue_configs(s.systems_file);
  required("binary", "mcb-ensflow's path");
  reader.set_file("ensemble", "binary", dir, s.binary);
  required("horizon", "model days to run");
  reader.set_int("ensemble", "horizon", s.horizon, 1);
  required("checkpoint-every", "model days between checkpoints");
  reader.set_int("ensemble", "checkpoint-every", s.checkpoint_every, 1);
  reader.set_seconds("ensemble", "poll", s.poll, false);
  reader.set_seconds("ensemble", "status-every", s.status_every, false);
  reader.set_int("ensemble", "max-failures", s.max_failures, 1);
  reader.set_words("ensemble", "launcher", s.launcher);
  reader.set_string("ensemble", "np-flag", s.np_flag);
  read_link(reader, s);
  read_split(reader, s);
  std::optional<ComputeFitTable> fits;
  if (const ini::Entry* e = reader.find("ensemble", "compute-fits")) {
    s.compute_fits = spec_detail::absolute_from(dir, reader.text(*e));
    const ini::Entry* problem = reader.find("ensemble", "fit-problem");
    if (!problem) {
      throw reader.error(*e, "needs [ensemble] fit-problem, the fitted runs' m<M>-d<D>-g<G>");
    }
    s.fit_problem = reader.text(*problem);
    if (problem_days(s.fit_problem) <= 0) {
      throw reader.error(*problem, "'" + s.fit_problem + "' is not mcb-ensflow's m<M>-d<D>-g<G>");
    }
    fits = ComputeFitTable::read(s.compute_fits);
  } else if (const ini::Entry* problem = reader.find("ensemble", "fit-problem")) {
    throw reader.error(*problem, "given without [ensemble] compute-fits");
  }
  for (const ini::Section& section : file.sections) {
    if (section.name.rfind("queue.", 0) == 0) {
      s.queues.push_back(
          read_queue(reader, section, configs, file, fits ? &*fits : nullptr, s.fit_problem));
    }
  }
  if (s.queues.empty()) {
    throw UsageError("--spec: " + s.path + ": no [queue.NAME] section (at least one queue)");
  }
  read_options(file, reader, s);
  std::ifstream in(s.path);
  std::ostringstream text;
  text << in.rdbuf();
  s.text = text.str();
  return s;
}

}  // namespace mcb::campaign
