#include "simulator/tables.hpp"

#include "common/errors.hpp"
#include "common/runtime_table.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace mcb::sim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

}  // namespace

Statistic parse_statistic(const std::string& name) {
  if (name == "min") return Statistic::kMin;
  if (name == "avg") return Statistic::kAvg;
  if (name == "max") return Statistic::kMax;
  if (name == "median") return Statistic::kMedian;
  throw std::invalid_argument("'" + name + "' is not a statistic (min, avg, max, median)");
}

std::string to_string(Statistic s) {
  switch (s) {
    case Statistic::kMin:
      return "min";
    case Statistic::kAvg:
      return "avg";
    case Statistic::kMax:
      return "max";
    case Statistic::kMedian:
      return "median";
  }
  return "?";
}

const PriceList* PriceBook::find(const std::string& app, int total_size) const {
  auto it = prices_.find({app, total_size});
  return it == prices_.end() ? nullptr : &it->second;
}

double PriceBook::price(const std::string& app, int total_size, int components) const {
  const PriceList* p = find(app, total_size);
  if (!p || components <= 0 || static_cast<size_t>(components) >= p->size()) return kNaN;
  return (*p)[static_cast<size_t>(components)];
}

std::vector<int> PriceBook::sizes(const std::string& app) const {
  std::vector<int> out;
  for (const auto& [key, list] : prices_) {
    if (key.first == app) out.push_back(key.second);
  }
  return out;
}

RuntimeTables RuntimeTables::load(const std::vector<std::string>& paths) {
  RuntimeTables tables;
  for (const std::string& given : paths) {
    RuntimeTable table;
    try {
      table = RuntimeTable::read(given);
    } catch (const UsageError& e) {
      throw UsageError(std::string("--tables: ") + e.what());
    }
    tables.source_ += (tables.source_.empty() ? "" : ", ") + table.file;
    // The service-time layout has one time per row: only the average is a column of it.
    if (table.service_time_layout) tables.has_min_ = tables.has_max_ = tables.has_median_ = false;
    for (const RuntimeRow& r : table.rows) {
      TableRow row;
      row.app = r.app;
      row.problem = r.problem;
      row.system = r.system;
      row.total_size = static_cast<int>(r.total_size);
      row.components = static_cast<int>(r.components);
      row.min = r.stats.min;
      row.avg = r.stats.avg;
      row.max = r.stats.max;
      row.median = r.stats.median;
      row.file = table.file;
      row.line = static_cast<long>(r.line);
      tables.rows_.push_back(std::move(row));
    }
  }
  return tables;
}

PriceBook RuntimeTables::select(const std::vector<std::string>& apps,
                                const std::map<std::string, std::string>& problems,
                                const std::string& system, Statistic statistic) const {
  if ((statistic == Statistic::kMin && !has_min_) || (statistic == Statistic::kMax && !has_max_) ||
      (statistic == Statistic::kMedian && !has_median_)) {
    throw UsageError("--statistic: '" + to_string(statistic) +
                     "' is not a column of every table (" + source_ + ")");
  }
  for (const auto& [app, problem] : problems) {
    bool known = false;
    for (const auto& a : apps) known = known || a == app;
    if (!known) {
      throw UsageError("--problem: '" + app + "=" + problem +
                       "' names an app the workload does not use");
    }
  }
  PriceBook book;
  book.source_ = source_;
  for (const std::string& app : apps) {
    std::vector<const TableRow*> rows;
    for (const auto& r : rows_) {
      if (r.app == app) rows.push_back(&r);
    }
    if (rows.empty())
      throw UsageError("--tables: " + source_ + " has no rows for app '" + app + "'");
    std::set<std::string> systems;
    for (const auto* r : rows) systems.insert(r->system);
    std::string chosen_system;
    if (!system.empty()) {
      if (!systems.count(system)) {
        throw UsageError("--system: '" + system + "' has no rows for app '" + app + "' in " +
                         source_ + " (it holds " + join(systems) + ")");
      }
      chosen_system = system;
    } else if (systems.size() > 1) {
      throw UsageError("--tables: " + source_ + " holds systems " + join(systems) + " for app '" +
                       app + "'; choose one with --system NAME");
    } else {
      chosen_system = *systems.begin();
    }
    std::set<std::string> probs;
    for (const auto* r : rows) {
      if (r->system == chosen_system) probs.insert(r->problem);
    }
    std::string chosen_problem;
    auto given = problems.find(app);
    if (given != problems.end()) {
      if (!probs.count(given->second)) {
        throw UsageError("--problem: '" + app + "=" + given->second + "' is not in " + source_ +
                         " (it holds " + join(probs) + " for app '" + app + "')");
      }
      chosen_problem = given->second;
    } else if (probs.size() > 1) {
      throw UsageError("--tables: " + source_ + " holds problems " + join(probs) + " for app '" +
                       app + "'; choose one with --problem " + app + "=NAME");
    } else {
      chosen_problem = *probs.begin();
    }
    book.chosen_[app] = {chosen_problem, chosen_system};
    std::map<std::pair<int, int>, const TableRow*> seen;
    for (const auto* r : rows) {
      if (r->system != chosen_system || r->problem != chosen_problem) continue;
      auto [it, fresh] = seen.insert({{r->total_size, r->components}, r});
      if (!fresh) {
        throw UsageError("--tables: " + r->file + ":" + std::to_string(r->line) +
                         ": repeats app '" + app + "' total_size " + std::to_string(r->total_size) +
                         " components " + std::to_string(r->components) + " (first at line " +
                         std::to_string(it->second->line) + ")");
      }
      double v = r->avg;
      if (statistic == Statistic::kMin) v = r->min;
      if (statistic == Statistic::kMax) v = r->max;
      if (statistic == Statistic::kMedian) v = r->median;
      PriceList& list = book.prices_[{app, r->total_size}];
      if (list.size() <= static_cast<size_t>(r->components)) {
        list.resize(static_cast<size_t>(r->components) + 1, kNaN);
      }
      list[static_cast<size_t>(r->components)] = v;
    }
  }
  return book;
}

}  // namespace mcb::sim
