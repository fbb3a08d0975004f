// What every batch-system back end shares: the systems file, running commands in an
// instance's environment, and the small readers all back ends use (host lists, times).
#include "jobscripts/queue.hpp"

#include "common/errors.hpp"
#include "common/ini.hpp"
#include "jobscripts/queue_parse.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <set>
#include <sstream>

extern char** environ;  // NOLINT(readability-identifier-naming): the C library's name

namespace mcb::campaign {
namespace {

bool env_name_ok(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return name.find_first_not_of(
             "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
         std::string::npos;
}

const std::map<std::string, std::set<std::string>>& kind_settings() {
  static const std::map<std::string, std::set<std::string>> settings = {
      {"slurm", {"bin", "partition"}},
      {"gridengine", {"bin", "pe", "queue"}},
      {"pbs", {"bin", "queue"}}};
  return settings;
}

std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const auto newline = text.find('\n');
  return newline == std::string::npos ? text : text.substr(0, newline) + " ...";
}

}  // namespace

std::string to_string(JobPhase phase) {
  switch (phase) {
    case JobPhase::pending:
      return "pending";
    case JobPhase::running:
      return "running";
    case JobPhase::suspended:
      return "suspended";
    case JobPhase::done:
      return "done";
    case JobPhase::failed:
      return "failed";
  }
  return "unknown";
}

std::string to_string(Operation operation) {
  switch (operation) {
    case Operation::hold:
      return "hold";
    case Operation::release:
      return "release";
    case Operation::suspend:
      return "suspend";
    case Operation::resume:
      return "resume";
    case Operation::requeue:
      return "requeue";
  }
  return "unknown";
}

std::vector<QueueConfig> read_queue_configs(const std::string& path) {
  const ini::File file = ini::read_ini(path);
  if (!file.entries.empty() && file.entries.front().section.empty()) {
    throw UsageError(file.where(file.entries.front().line) + ": '" + file.entries.front().key +
                     "' outside a [system] section");
  }
  std::vector<QueueConfig> configs;
  for (const ini::Section& section : file.sections) {
    QueueConfig config;
    config.name = section.name;
    for (const ini::Entry& e : section.entries) {
      std::string value;
      try {
        value = ini::single_value(e.value);
      } catch (const std::invalid_argument&) {
        throw UsageError(file.where(e.line) + ": unterminated quote in '" + e.value + "'");
      }
      if (e.key == "kind") {
        if (kind_settings().count(value) == 0) {
          throw UsageError(file.where(e.line) + ": kind: '" + value +
                           "' is not a batch system (slurm, gridengine, pbs)");
        }
        config.kind = value;
      } else if (e.key == "env") {
        const auto eq = value.find('=');
        if (eq == std::string::npos || !env_name_ok(value.substr(0, eq))) {
          throw UsageError(file.where(e.line) + ": env: '" + value + "' is not NAME=VALUE");
        }
        config.env.emplace_back(value.substr(0, eq), value.substr(eq + 1));
      } else {
        config.settings[e.key] = value;
      }
    }
    if (config.kind.empty()) {
      throw UsageError(file.where(section.line) + ": [" + section.name + "] has no kind");
    }
    for (const ini::Entry& e : section.entries) {
      if (e.key != "kind" && e.key != "env" && kind_settings().at(config.kind).count(e.key) == 0) {
        throw UsageError(file.where(e.line) + ": '" + e.key + "' is not a setting of " +
                         config.kind + " systems");
      }
    }
    for (const QueueConfig& other : configs) {
      if (other.name == config.name) {
        throw UsageError(file.where(section.line) + ": system '" + config.name + "' twice");
      }
    }
    configs.push_back(std::move(config));
  }
  if (configs.empty()) throw UsageError(path + ": no [system] section");
  return configs;
}

BatchQueue::BatchQueue(QueueConfig config, CommandRunner runner)
    : config_(std::move(config)), runner_(std::move(runner)) {}

void BatchQueue::apply(Operation operation, const std::string& id) {
  if (!supports(operation)) {
    throw NotSupported(name() + ": " + kind() + " " + why_unsupported(operation));
  }
  control(operation, id);
}

Captured BatchQueue::run(const std::vector<std::string>& argv, const EnvList& extra,
                         const std::string& cwd) const {
  EnvList env = config_.env;
  env.insert(env.end(), extra.begin(), extra.end());
  const std::string& bin = setting("bin", "");
  if (bin.empty()) return runner_(argv, cwd, env);
  std::vector<std::string> in_bin = argv;
  in_bin.front() = bin + "/" + argv.front();
  return runner_(in_bin, cwd, env);
}

void BatchQueue::fail(const std::vector<std::string>& argv, const Captured& result) const {
  std::string why;
  if (!result.start_error.empty()) {
    why = "cannot run " + result.start_error;
  } else if (result.timed_out) {
    why = "no answer in time";
  } else {
    why = result.status.describe();
    const std::string said = one_line(result.err.empty() ? result.out : result.err);
    if (!said.empty()) why += ": " + said;
  }
  throw std::runtime_error(name() + ": " + argv.front() + ": " + why);
}

std::string BatchQueue::output_of(const std::vector<std::string>& argv, const EnvList& extra,
                                  const std::string& cwd) const {
  const Captured r = run(argv, extra, cwd);
  if (!r.start_error.empty() || r.timed_out || !r.status.success()) fail(argv, r);
  return r.out;
}

void BatchQueue::check_request(const JobRequest& request) {
  if (request.script.empty()) throw UsageError("job request: no script");
  if (request.workdir.empty() || request.workdir.front() != '/') {
    throw UsageError("job request: workdir '" + request.workdir + "' is not an absolute path");
  }
  if (request.processors < 1) {
    throw UsageError("job request: processors " + std::to_string(request.processors) +
                     " is not positive");
  }
  if (!(request.time_limit_s > 0) || request.time_limit_s > 1e9) {
    throw UsageError("job request: time limit " + std::to_string(request.time_limit_s) +
                     " s is out of range");
  }
}

const std::string& BatchQueue::setting(const std::string& key, const std::string& fallback) const {
  const auto it = config_.settings.find(key);
  return it == config_.settings.end() ? fallback : it->second;
}

CommandRunner system_runner(std::vector<std::string> drop_prefixes, double timeout_seconds) {
  return [drop = std::move(drop_prefixes), timeout_seconds](
             const std::vector<std::string>& argv, const std::string& cwd, const EnvList& env) {
    std::vector<std::string> entries;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry(*e);
      const std::string entry_name = entry.substr(0, entry.find('='));
      bool keep = true;
      for (const std::string& prefix : drop) {
        if (entry.rfind(prefix, 0) == 0) keep = false;
      }
      for (const auto& [name, value] : env) {
        if (entry_name == name) keep = false;
      }
      if (keep) entries.push_back(entry);
    }
    for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
    return capture(argv, cwd, timeout_seconds, entries);
  };
}

std::unique_ptr<BatchQueue> make_queue(const QueueConfig& config, CommandRunner runner) {
  const auto known = kind_settings().find(config.kind);
  if (known == kind_settings().end()) {
    throw UsageError("system '" + config.name + "': kind '" + config.kind +
                     "' is not a batch system (slurm, gridengine, pbs)");
  }
  for (const auto& [key, value] : config.settings) {
    if (known->second.count(key) == 0) {
      throw UsageError("system '" + config.name + "': '" + key + "' is not a setting of " +
                       config.kind + " systems");
    }
  }
  if (config.kind == "slurm") return make_slurm_queue(config, std::move(runner));
  if (config.kind == "gridengine") return make_gridengine_queue(config, std::move(runner));
  return make_pbs_queue(config, std::move(runner));
}

namespace parse {

void count_job(QueueState& q, const JobStatus& s, int processors) {
  if (s.phase == JobPhase::pending && s.held) {
    ++q.held_jobs;
  } else if (s.phase == JobPhase::pending) {
    ++q.pending_jobs;
    q.pending_processors += processors;
  } else if (s.phase == JobPhase::running || s.phase == JobPhase::suspended) {
    ++q.running_jobs;
    q.running_processors += processors;
  }
}

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::vector<std::string> hosts;
  std::size_t pos = 0;
  while (pos < list.size()) {
    // One item: a prefix, then optionally [ranges], then optionally a suffix, up to a comma
    // outside brackets.
    std::size_t end = pos;
    int depth = 0;
    while (end < list.size() && (depth > 0 || list[end] != ',')) {
      if (list[end] == '[') ++depth;
      if (list[end] == ']') --depth;
      ++end;
    }
    const std::string item = list.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const auto open = item.find('[');
    if (open == std::string::npos) {
      hosts.push_back(item);
      continue;
    }
    const auto close = item.find(']', open);
    if (close == std::string::npos) throw std::runtime_error("host list '" + list + "': no ']'");
    const std::string prefix = item.substr(0, open);
    const std::string suffix = item.substr(close + 1);
    std::istringstream ranges(item.substr(open + 1, close - open - 1));
    std::string range;
    while (std::getline(ranges, range, ',')) {
      const auto dash = range.find('-');
      const std::string first = range.substr(0, dash);
      const std::string last = dash == std::string::npos ? first : range.substr(dash + 1);
      if (first.empty() || last.empty() ||
          (first + last).find_first_not_of("0123456789") != std::string::npos || first.size() > 9 ||
          last.size() > 9) {
        throw std::runtime_error("host list '" + list + "': bad range '" + range + "'");
      }
      const long from = std::stol(first);
      const long to = std::stol(last);
      if (to < from || to - from > 100000) {
        throw std::runtime_error("host list '" + list + "': bad range '" + range + "'");
      }
      for (long n = from; n <= to; ++n) {
        std::string number = std::to_string(n);
        if (number.size() < first.size()) number.insert(0, first.size() - number.size(), '0');
        hosts.push_back(prefix + number + suffix);
      }
    }
  }
  return hosts;
}

std::optional<double> local_time(const std::string& text) {
  std::tm tm{};
  std::istringstream in(text);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return std::nullopt;
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t);
}

std::string hms(double seconds) {
  const long s = std::max(1L, static_cast<long>(std::ceil(seconds)));
  std::ostringstream out;
  out << s / 3600 << ':' << (s / 60) % 60 / 10 << (s / 60) % 10 << ':' << (s % 60) / 10 << s % 10;
  return out.str();
}

}  // namespace parse
}  // namespace mcb::campaign
