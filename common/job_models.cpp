#include "common/job_models.hpp"

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

// A finite number at least @p least (strictly above it when @p strict).
double real(const At& at, const char* column, const std::string& text, double least, bool strict) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() ||
      !std::isfinite(value)) {
    at.fail(std::string(column) + " '" + text + "' is not a number");
  }
  if (strict ? !(value > least) : !(value >= least)) {
    at.fail(std::string(column) + " '" + text + "' must be " + (strict ? "> " : ">= ") +
            csv::number(least));
  }
  return value;
}

std::int64_t whole(const At& at, const char* column, const std::string& text, std::int64_t least) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    at.fail(std::string(column) + " '" + text + "' is not an integer");
  }
  if (value < least || value > 1'000'000'000) {
    at.fail(std::string(column) + " '" + text + "' must be in " + std::to_string(least) + "..1e9");
  }
  return value;
}

std::string named(const At& at, const char* column, const std::string& value) {
  if (value.empty()) at.fail(std::string(column) + " is empty");
  return value;
}

JobModelRow model_row(const At& at, const std::vector<std::string>& f) {
  JobModelRow r;
  r.app = named(at, "app", f[0]);
  r.problem = named(at, "problem", f[1]);
  r.total_size = whole(at, "total_size", f[2], 1);
  r.tp = real(at, "tp", f[3], 0, true);
  r.tc = real(at, "tc", f[4], 0, false);
  r.pnbw = real(at, "pnbw", f[5], 0, false);
  r.dedicated_runs = whole(at, "dedicated_runs", f[6], 1);
  r.fitted_runs = whole(at, "fitted_runs", f[7], 1);
  r.median_abs_relative_error = real(at, "median_abs_relative_error", f[8], 0, false);
  return r;
}

}  // namespace

JobModelTable JobModelTable::read(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  JobModelTable table;
  table.file = fs::is_directory(path, ec) ? (fs::path(path) / "job_models.csv").string() : path;
  const csv::Document doc = csv::read_table(table.file, kJobModelsHeader);
  csv::KeyLines<std::tuple<std::string, std::string, std::int64_t>> keys(doc);
  for (const csv::Record& record : doc.rows) {
    const At at{doc, record.line};
    JobModelRow row = model_row(at, record.fields);
    row.line = record.line;
    keys.add(std::make_tuple(row.app, row.problem, row.total_size), record.line, [&] {
      return "model for " + csv::join({row.app, row.problem, std::to_string(row.total_size)});
    });
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string JobModelTable::to_csv() const {
  csv::Writer out({"app", "problem", "total_size", "tp", "tc", "pnbw", "dedicated_runs",
                   "fitted_runs", "median_abs_relative_error"});
  for (const JobModelRow& r : rows) {
    out.row({r.app, r.problem, std::to_string(r.total_size), csv::exact(r.tp), csv::exact(r.tc),
             csv::exact(r.pnbw), std::to_string(r.dedicated_runs), std::to_string(r.fitted_runs),
             csv::exact(r.median_abs_relative_error)});
  }
  return out.text();
}

const JobModelRow* JobModelTable::find(const std::string& app, const std::string& problem,
                                       std::int64_t total_size) const {
  for (const JobModelRow& r : rows) {
    if (r.app == app && r.problem == problem && r.total_size == total_size) return &r;
  }
  return nullptr;
}

}  // namespace mcb
