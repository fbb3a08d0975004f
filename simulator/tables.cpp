#include "simulator/tables.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"
#include "simulator/cells.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
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
  namespace fs = std::filesystem;
  RuntimeTables tables;
  for (const std::string& given : paths) {
    std::string file = given;
    std::error_code ec;
    if (fs::is_directory(given, ec)) file = (fs::path(given) / "runtimes.csv").string();
    std::ifstream in(file);
    if (!in) throw UsageError("--tables: cannot read '" + file + "'");
    tables.source_ += (tables.source_.empty() ? "" : ", ") + file;
    std::string line;
    long number = 0;
    std::vector<std::string> header;
    const auto where = [&](long n) { return "--tables: " + file + ":" + std::to_string(n); };
    // App names and labels go into JSON records: plain text only.
    const auto plain = [&] {
      if (const std::string problem = text_problem(line); !problem.empty())
        throw UsageError(where(number) + ": " + problem);
    };
    if (next_content_line(in, line, number)) {
      plain();
      header = split_cells(line, ',');
    }
    if (header.empty()) throw UsageError(where(number) + ": empty file, no header");
    std::map<std::string, size_t> col;
    for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
    for (const char* need : {"app", "total_size", "components"}) {
      if (!col.count(need)) {
        throw UsageError(where(number) + ": header lacks the column '" + need + "'");
      }
    }
    const bool reference_shape = !col.count("avg") && col.count("service_time_s");
    if (!reference_shape && !col.count("avg")) {
      throw UsageError(where(number) + ": header lacks the column 'avg' (or 'service_time_s')");
    }
    if (reference_shape) tables.has_min_ = tables.has_max_ = tables.has_median_ = false;
    if (!col.count("min")) tables.has_min_ = false;
    if (!col.count("max")) tables.has_max_ = false;
    if (!col.count("median")) tables.has_median_ = false;

    while (next_content_line(in, line, number)) {
      plain();
      const auto cells = split_cells(line, ',');
      if (cells.size() != header.size()) {
        throw UsageError(where(number) + ": " + std::to_string(cells.size()) +
                         " cells, header has " + std::to_string(header.size()));
      }
      const auto cell = [&](const char* name) -> std::string {
        auto it = col.find(name);
        return it == col.end() ? std::string() : cells[it->second];
      };
      const auto integer = [&](const char* name) {
        const std::string v = cell(name);
        long long x = 0;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (ec != std::errc() || p != v.data() + v.size() || x <= 0 || x > 1'000'000'000) {
          throw UsageError(where(number) + ": column '" + name + "': '" + v +
                           "' is not a positive integer");
        }
        return static_cast<int>(x);
      };
      const auto seconds = [&](const char* name) {
        const std::string v = cell(name);
        if (v.empty()) return kNaN;
        double x = 0;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (ec != std::errc() || p != v.data() + v.size() || !std::isfinite(x) || x < 0) {
          throw UsageError(where(number) + ": column '" + name + "': '" + v +
                           "' is not a time in seconds >= 0");
        }
        return x;
      };
      TableRow row;
      row.app = cell("app");
      if (row.app.empty()) throw UsageError(where(number) + ": empty app");
      row.problem = cell("problem");
      row.system = cell("system");
      row.total_size = integer("total_size");
      row.components = integer("components");
      if (row.components > row.total_size) {
        throw UsageError(where(number) + ": " + std::to_string(row.components) +
                         " components for total size " + std::to_string(row.total_size));
      }
      if (reference_shape) {
        row.avg = row.min = row.max = row.median = seconds("service_time_s");
      } else {
        row.avg = seconds("avg");
        row.min = col.count("min") ? seconds("min") : kNaN;
        row.max = col.count("max") ? seconds("max") : kNaN;
        row.median = col.count("median") ? seconds("median") : kNaN;
      }
      row.file = file;
      row.line = number;
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
