#include "calibration/runtime_table.hpp"

#include "calibration/csv.hpp"
#include "common/errors.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

namespace mcb::calib {
namespace {

using nlohmann::json;

struct LineContext {
  std::string file;
  std::size_t line;
  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError(file + ":" + std::to_string(line) + ": " + what);
  }
};

std::int64_t parse_count(const LineContext& at, const std::string& column,
                         const std::string& text) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    at.fail(column + " '" + text + "' is not an integer");
  }
  if (value <= 0) at.fail(column + " '" + text + "' must be positive");
  return value;
}

double parse_seconds(const LineContext& at, const std::string& column, const std::string& text) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() ||
      !std::isfinite(value)) {
    at.fail(column + " '" + text + "' is not a number");
  }
  if (value < 0) at.fail(column + " '" + text + "' must be >= 0");
  return value;
}

std::string require_text(const LineContext& at, const std::string& column,
                         const std::string& text) {
  if (text.empty()) at.fail(column + " is empty");
  return text;
}

RuntimeRow parse_runtime_row(const LineContext& at, const std::vector<std::string>& f) {
  if (f.size() != 11) {
    at.fail("expected 11 fields, found " + std::to_string(f.size()));
  }
  RuntimeRow row;
  row.app = require_text(at, "app", f[0]);
  row.problem = require_text(at, "problem", f[1]);
  row.total_size = parse_count(at, "total_size", f[2]);
  row.components = parse_count(at, "components", f[3]);
  row.system = require_text(at, "system", f[4]);
  row.stats.n = static_cast<std::size_t>(parse_count(at, "n", f[5]));
  row.stats.min = parse_seconds(at, "min", f[6]);
  row.stats.avg = parse_seconds(at, "avg", f[7]);
  row.stats.max = parse_seconds(at, "max", f[8]);
  row.stats.median = parse_seconds(at, "median", f[9]);
  if (row.stats.n < 2) {
    if (!f[10].empty()) at.fail("stddev must be empty when n < 2, found '" + f[10] + "'");
  } else {
    if (f[10].empty()) at.fail("stddev is empty but n is " + f[5]);
    row.stats.stddev = parse_seconds(at, "stddev", f[10]);
  }
  const Summary& s = row.stats;
  if (!(s.min <= s.avg && s.avg <= s.max && s.min <= s.median && s.median <= s.max)) {
    at.fail("statistics out of order (need min <= avg, median <= max)");
  }
  return row;
}

RuntimeRow parse_service_row(const LineContext& at, const std::vector<std::string>& f,
                             const ServiceTimeLabels& labels) {
  if (f.size() != 4) at.fail("expected 4 fields, found " + std::to_string(f.size()));
  RuntimeRow row;
  row.app = require_text(at, "app", f[0]);
  const auto problem = labels.problem_of_app.find(row.app);
  if (problem == labels.problem_of_app.end()) {
    at.fail("no problem label for app '" + row.app +
            "' in this service-time table (give --problem " + row.app + "=LABEL)");
  }
  row.problem = problem->second;
  row.total_size = parse_count(at, "total_size", f[1]);
  row.components = parse_count(at, "components", f[2]);
  row.system = labels.system;
  const double t = parse_seconds(at, "service_time_s", f[3]);
  row.stats = Summary{1, t, t, t, t, std::nullopt};
  return row;
}

}  // namespace

std::vector<std::string> row_key(const RuntimeRow& row) {
  return {row.app, row.problem, std::to_string(row.total_size), std::to_string(row.components),
          row.system};
}

LoadedTable read_runtime_table(const std::string& path, const ServiceTimeLabels& labels) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string file =
      fs::is_directory(path, ec) ? (fs::path(path) / "runtimes.csv").string() : path;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UsageError(file + ": cannot read the runtime table");
  LoadedTable table;
  std::string line;
  LineContext at{file, 1};
  if (!std::getline(in, line)) at.fail("empty file; expected the header '" +
                                       std::string(kRuntimeHeader) + "'");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line == kServiceTimeHeader) {
    table.service_time_layout = true;
    if (labels.system.empty()) {
      at.fail("the service-time layout has no system column (give --system LABEL)");
    }
  } else if (line != kRuntimeHeader) {
    at.fail("unknown header '" + line + "'; expected '" + kRuntimeHeader + "' or '" +
            kServiceTimeHeader + "'");
  }
  std::map<std::vector<std::string>, std::size_t> line_of_key;
  while (std::getline(in, line)) {
    ++at.line;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> fields;
    try {
      fields = split_csv_line(line);
    } catch (const std::invalid_argument& e) {
      at.fail(e.what());
    }
    RuntimeRow row = table.service_time_layout ? parse_service_row(at, fields, labels)
                                               : parse_runtime_row(at, fields);
    if (row.components > row.total_size) at.fail("components exceed total_size");
    const auto [it, inserted] = line_of_key.emplace(row_key(row), at.line);
    if (!inserted) {
      at.fail("row for " + row.app + "," + row.problem + "," + std::to_string(row.total_size) +
              "," + std::to_string(row.components) + "," + row.system + " repeats line " +
              std::to_string(it->second));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string runtime_csv(const std::vector<RuntimeRow>& rows) {
  CsvWriter csv({"app", "problem", "total_size", "components", "system", "n", "min", "avg", "max",
                 "median", "stddev"});
  for (const RuntimeRow& r : rows) {
    csv.row({r.app, r.problem, std::to_string(r.total_size), std::to_string(r.components),
             r.system, std::to_string(r.stats.n), format_number(r.stats.min),
             format_number(r.stats.avg), format_number(r.stats.max), format_number(r.stats.median),
             format_optional(r.stats.stddev)});
  }
  return csv.text();
}

RuntimeTable build_runtime_table(const std::vector<const Record*>& runs, const std::string& hint) {
  Grouper grouper("runtimes.csv", hint);
  for (const Record* run : runs) {
    grouper.add({string_field(*run, "app"), string_field(*run, "config.problem"),
                 std::to_string(integer_field(*run, "config.total_size")),
                 std::to_string(integer_field(*run, "config.components")),
                 string_field(*run, "config.system")},
                comparable_config(run->config()), run);
  }
  RuntimeTable table;
  table.groups = grouper.groups();
  for (const Group& g : table.groups) {
    std::vector<double> times;
    for (const Record* run : g.runs) times.push_back(number_field(*run, "result.wall_time"));
    RuntimeRow row;
    row.app = g.key[0];
    row.problem = g.key[1];
    row.total_size = std::stoll(g.key[2]);
    row.components = std::stoll(g.key[3]);
    row.system = g.key[4];
    row.stats = summarize(times);
    table.rows.push_back(std::move(row));
  }
  return table;
}

json runtime_sidecar(const RuntimeTable& table, const json& extra) {
  std::set<std::string> hosts;
  std::set<std::string> days;
  std::set<std::string> revisions;
  json ids = json::array();
  json rows = json::array();
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const RuntimeRow& row = table.rows[i];
    json runs = json::array();
    for (const Record* run : table.groups[i].runs) {
      json run_hosts = json::array();
      if (const json* list = lookup(run->doc, "env.hosts"); list && list->is_array()) {
        std::set<std::string> distinct;
        for (const json& h : *list) {
          if (h.is_string()) distinct.insert(h.get<std::string>());
        }
        for (const auto& h : distinct) run_hosts.push_back(h);
      } else {
        run_hosts.push_back(string_field(*run, "env.host"));
      }
      for (const json& h : run_hosts) hosts.insert(h.get<std::string>());
      const std::string date = string_field(*run, "env.date");
      days.insert(date.substr(0, 10));
      revisions.insert(string_field(*run, "env.revision"));
      ids.push_back(run->run_id());
      runs.push_back({{"run_id", run->run_id()},
                      {"source", run->where()},
                      {"hosts", run_hosts},
                      {"date", date},
                      {"revision", string_field(*run, "env.revision")}});
    }
    rows.push_back({{"app", row.app},
                    {"problem", row.problem},
                    {"total_size", row.total_size},
                    {"components", row.components},
                    {"system", row.system},
                    {"n", row.stats.n},
                    {"runs", runs},
                    {"config", table.groups[i].config}});
  }
  json out = {{"table", "runtimes.csv"},
              {"kind", "runtime"},
              {"columns", kRuntimeHeader},
              {"value", "result.wall_time of each valid run (seconds)"},
              {"records", ids},
              {"hosts", json(hosts)},
              {"dates", json(days)},
              {"revisions", json(revisions)},
              {"rows", rows}};
  for (const auto& [k, v] : extra.items()) out[k] = v;
  return out;
}

}  // namespace mcb::calib
