#include "calibration/runtime_table.hpp"

#include "common/errors.hpp"

#include <set>

namespace mcb::calib {

using nlohmann::json;

LoadedTable read_runtime_table(const std::string& path, const ServiceTimeLabels& labels) {
  mcb::RuntimeTable table = mcb::RuntimeTable::read(path);
  if (table.service_time_layout) {
    if (labels.system.empty()) {
      throw UsageError(table.file +
                       ":1: the service-time layout has no system column (give --system LABEL)");
    }
    for (RuntimeRow& row : table.rows) {
      const auto problem = labels.problem_of_app.find(row.app);
      if (problem == labels.problem_of_app.end()) {
        throw UsageError(table.file + ":" + std::to_string(row.line) +
                         ": no problem label for app '" + row.app +
                         "' in this service-time table (give --problem " + row.app + "=LABEL)");
      }
      row.problem = problem->second;
      row.system = labels.system;
    }
  }
  return {std::move(table.rows), table.service_time_layout};
}

std::string runtime_csv(const std::vector<RuntimeRow>& rows) {
  mcb::RuntimeTable table;
  table.rows = rows;
  return table.to_csv();
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
