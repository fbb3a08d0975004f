#include "common/compute_fits.hpp"

#include "common/csv.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

namespace mcb {
namespace {

struct At {
  const csv::Document& doc;
  std::size_t line;
  [[noreturn]] void fail(const std::string& what) const { doc.fail(line, what); }
};

double real(const At& at, const char* column, const std::string& text) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() ||
      !std::isfinite(value)) {
    at.fail(std::string(column) + " '" + text + "' is not a number");
  }
  return value;
}

std::int64_t whole(const At& at, const char* column, const std::string& text) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    at.fail(std::string(column) + " '" + text + "' is not an integer");
  }
  return value;
}

std::string named(const At& at, const char* column, const std::string& value) {
  if (value.empty()) at.fail(std::string(column) + " is empty");
  return value;
}

ComputeFitRow fit_row(const At& at, const std::vector<std::string>& f) {
  ComputeFitRow r;
  r.app = named(at, "app", f[0]);
  r.problem = named(at, "problem", f[1]);
  r.system = named(at, "system", f[2]);
  r.a = real(at, "a", f[3]);
  r.b = real(at, "b", f[4]);
  r.r2 = real(at, "r2", f[5]);
  r.rmse = real(at, "rmse", f[6]);
  r.max_relative_gap = real(at, "max_relative_gap", f[7]);
  r.points = whole(at, "points", f[8]);
  r.sizes = whole(at, "sizes", f[9]);
  r.p_min = whole(at, "p_min", f[10]);
  r.p_max = whole(at, "p_max", f[11]);
  if (r.sizes < 2 || r.points < r.sizes) {
    at.fail("a fit needs points >= sizes >= 2, found points " + f[8] + ", sizes " + f[9]);
  }
  if (r.p_min < 1 || r.p_min > r.p_max) {
    at.fail("p_min..p_max '" + f[10] + ".." + f[11] + "' is not a range of process counts");
  }
  return r;
}

}  // namespace

ComputeFitTable ComputeFitTable::read(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  ComputeFitTable table;
  table.file =
      fs::is_directory(path, ec) ? (fs::path(path) / "tables" / "compute_fits.csv").string() : path;
  const csv::Document doc = csv::read_table(table.file, kComputeFitsHeader);
  csv::KeyLines<std::tuple<std::string, std::string, std::string>> keys(doc);
  for (const csv::Record& record : doc.rows) {
    const At at{doc, record.line};
    ComputeFitRow row = fit_row(at, record.fields);
    row.line = record.line;
    keys.add(std::make_tuple(row.app, row.problem, row.system), record.line, [&] {
      return "fit for " + csv::join({row.app, row.problem, row.system});
    });
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string ComputeFitTable::to_csv() const {
  csv::Writer out({"app", "problem", "system", "a", "b", "r2", "rmse", "max_relative_gap", "points",
                   "sizes", "p_min", "p_max"});
  for (const ComputeFitRow& r : rows) {
    out.row({r.app, r.problem, r.system, csv::number(r.a), csv::number(r.b), csv::number(r.r2),
             csv::number(r.rmse), csv::number(r.max_relative_gap), std::to_string(r.points),
             std::to_string(r.sizes), std::to_string(r.p_min), std::to_string(r.p_max)});
  }
  return out.text();
}

const ComputeFitRow* ComputeFitTable::find(const std::string& app, const std::string& problem,
                                           const std::string& system) const {
  for (const ComputeFitRow& r : rows) {
    if (r.app == app && r.problem == problem && r.system == system) return &r;
  }
  return nullptr;
}

}  // namespace mcb
