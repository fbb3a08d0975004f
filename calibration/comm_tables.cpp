#include "calibration/comm_tables.hpp"

#include "calibration/grouping.hpp"
#include "common/csv.hpp"
#include "common/statistics.hpp"

#include <algorithm>

namespace mcb::calib {
namespace {

using nlohmann::json;

// The Poisson exchange order first, any other channel after in name order.
std::vector<std::string> channel_order(const Group& group) {
  static const std::vector<std::string> known = {"top", "bottom", "left", "right"};
  std::vector<std::string> names;
  for (const Record* run : group.runs) {
    for (const auto& [name, channel] : field(*run, "ranks.0.channels").items()) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  std::vector<std::string> ordered;
  for (const auto& k : known) {
    if (std::find(names.begin(), names.end(), k) != names.end()) ordered.push_back(k);
  }
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    if (std::find(known.begin(), known.end(), n) == known.end()) ordered.push_back(n);
  }
  return ordered;
}

std::vector<std::string> stats_fields(const Summary& s) {
  return {std::to_string(s.n), csv::number(s.min),    csv::number(s.avg),
          csv::number(s.max),  csv::number(s.median), csv::optional_number(s.stddev)};
}

Summary over_runs(const Group& group, const char* path) {
  std::vector<double> values;
  for (const Record* run : group.runs) values.push_back(number_field(*run, path));
  return summarize(values);
}

double mean_iterations(const std::vector<const Record*>& runs) {
  double sum = 0;
  for (const Record* run : runs)
    sum += static_cast<double>(integer_field(*run, "result.iterations"));
  return sum / static_cast<double>(runs.size());
}

void add_rank_rows(csv::Writer& table, const Group& g) {
  const std::int64_t v = integer_field(*g.runs.front(), "config.v");
  const std::int64_t size = integer_field(*g.runs.front(), "config.total_size");
  const json& map = g.config.at("cluster_map");
  const std::vector<std::string> channels = channel_order(g);
  for (std::int64_t rank = 0; rank < size; ++rank) {
    const std::string base = "ranks." + std::to_string(rank) + ".channels.";
    std::vector<double> totals(g.runs.size(), 0.0);
    auto row = [&](const std::string& direction, const std::vector<double>& values,
                   double intra_sum, double inter_sum) {
      const Summary s = summarize(values);
      const double n = static_cast<double>(g.runs.size());
      std::vector<std::string> f = {g.key[0],
                                    g.key[1],
                                    g.key[2],
                                    g.key[3],
                                    g.key[4],
                                    g.key[5],
                                    g.key[6],
                                    std::to_string(rank),
                                    std::to_string(rank / v),
                                    std::to_string(rank % v),
                                    map.at(rank).dump(),
                                    direction,
                                    std::to_string(s.n),
                                    csv::number(s.min),
                                    csv::number(s.avg),
                                    csv::number(s.max),
                                    csv::number(intra_sum / n),
                                    csv::number(inter_sum / n)};
      table.row(f);
    };
    double all_intra = 0;
    double all_inter = 0;
    for (const std::string& channel : channels) {
      std::vector<double> values;
      double intra_sum = 0;
      double inter_sum = 0;
      for (std::size_t i = 0; i < g.runs.size(); ++i) {
        const double intra = number_field(*g.runs[i], base + channel + ".time.intra");
        const double inter = number_field(*g.runs[i], base + channel + ".time.inter");
        values.push_back(intra + inter);
        totals[i] += intra + inter;
        intra_sum += intra;
        inter_sum += inter;
      }
      all_intra += intra_sum;
      all_inter += inter_sum;
      row(channel, values, intra_sum, inter_sum);
    }
    row("total", totals, all_intra, all_inter);
  }
}

}  // namespace

CommTables build_comm_tables(const std::vector<const Record*>& poisson_runs,
                             const std::string& hint) {
  Grouper by_mode("comm_time.csv", hint);
  Grouper by_config("comm_sync.csv", hint);
  for (const Record* run : poisson_runs) {
    std::vector<std::string> key = {string_field(*run, "config.problem"),
                                    std::to_string(integer_field(*run, "config.grid")),
                                    string_field(*run, "config.procs"),
                                    std::to_string(integer_field(*run, "config.total_size")),
                                    std::to_string(integer_field(*run, "config.components")),
                                    string_field(*run, "config.system")};
    const json config = comparable_config(run->config());
    by_config.add(key, without(config, {"sync"}), run);
    key.push_back(bool_field(*run, "config.sync") ? "true" : "false");
    by_mode.add(key, config, run);
  }

  CommTables out;
  csv::Writer comm({"problem", "grid", "procs", "total_size", "components", "system", "sync",
                    "iterations", "n", "min", "avg", "max", "median", "stddev"});
  csv::Writer rates({"problem", "grid", "procs", "total_size", "components", "system", "sync", "n",
                     "min", "avg", "max", "median", "stddev"});
  csv::Writer ranks({"problem", "grid", "procs", "total_size", "components", "system", "sync",
                     "rank", "column", "row", "cluster", "direction", "n", "min", "avg", "max",
                     "intra_avg", "inter_avg"});
  for (const Group& g : by_mode.groups()) {
    std::vector<std::string> f = g.key;
    f.push_back(csv::number(mean_iterations(g.runs)));
    for (auto& s : stats_fields(over_runs(g, "result.comm_time_paper"))) f.push_back(s);
    comm.row(f);
    std::vector<std::string> r = g.key;
    for (auto& s : stats_fields(over_runs(g, "result.transfer_rate"))) r.push_back(s);
    rates.row(r);
    add_rank_rows(ranks, g);
  }

  csv::Writer sync({"problem", "grid", "procs", "total_size", "components", "system", "iterations",
                    "sync_n", "sync_avg", "nosync_n", "nosync_avg"});
  for (const Group& g : by_config.groups()) {
    std::vector<double> synced;
    std::vector<double> free;
    for (const Record* run : g.runs) {
      (bool_field(*run, "config.sync") ? synced : free)
          .push_back(number_field(*run, "result.comm_time_paper"));
    }
    auto cells = [](const std::vector<double>& values) -> std::vector<std::string> {
      if (values.empty()) return {"0", ""};
      return {std::to_string(values.size()), csv::number(summarize(values).avg)};
    };
    std::vector<std::string> f = g.key;
    f.push_back(csv::number(mean_iterations(g.runs)));
    for (auto& c : cells(synced)) f.push_back(c);
    for (auto& c : cells(free)) f.push_back(c);
    sync.row(f);
  }
  out.comm_time = comm.text();
  out.comm_sync = sync.text();
  out.rank_comm = ranks.text();
  out.transfer_rates = rates.text();
  out.configurations = comm.rows();
  return out;
}

}  // namespace mcb::calib
