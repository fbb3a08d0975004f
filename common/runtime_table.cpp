#include "common/runtime_table.hpp"

#include "common/csv.hpp"
#include "common/errors.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

namespace mcb {
namespace {

constexpr std::int64_t kMostProcessors = 1'000'000'000;

struct At {
  const csv::Document& doc;
  std::size_t line;
  [[noreturn]] void fail(const std::string& what) const { doc.fail(line, what); }
};

std::int64_t count(const At& at, const char* column, const std::string& text) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    at.fail(std::string(column) + " '" + text + "' is not an integer");
  }
  if (value <= 0 || value > kMostProcessors) {
    at.fail(std::string(column) + " '" + text + "' must be positive (at most 10^9)");
  }
  return value;
}

double seconds(const At& at, const char* column, const std::string& text) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() ||
      !std::isfinite(value)) {
    at.fail(std::string(column) + " '" + text + "' is not a number");
  }
  if (value < 0) at.fail(std::string(column) + " '" + text + "' must be >= 0");
  return value;
}

std::string text(const At& at, const char* column, const std::string& value) {
  if (value.empty()) at.fail(std::string(column) + " is empty");
  return value;
}

// The columns both layouts open with, in order: app, problem (runtime layout only),
// total_size, components. Returns the index of the next column.
std::size_t key_columns(const At& at, const std::vector<std::string>& f, bool with_problem,
                        RuntimeRow& row) {
  std::size_t i = 0;
  row.app = text(at, "app", f[i++]);
  if (with_problem) row.problem = text(at, "problem", f[i++]);
  row.total_size = count(at, "total_size", f[i++]);
  row.components = count(at, "components", f[i++]);
  return i;
}

RuntimeRow runtime_row(const At& at, const std::vector<std::string>& f) {
  RuntimeRow row;
  key_columns(at, f, true, row);
  row.system = text(at, "system", f[4]);
  row.stats.n = static_cast<std::size_t>(count(at, "n", f[5]));
  row.stats.min = seconds(at, "min", f[6]);
  row.stats.avg = seconds(at, "avg", f[7]);
  row.stats.max = seconds(at, "max", f[8]);
  row.stats.median = seconds(at, "median", f[9]);
  if (row.stats.n < 2) {
    if (!f[10].empty()) at.fail("stddev must be empty when n < 2, found '" + f[10] + "'");
  } else {
    if (f[10].empty()) at.fail("stddev is empty but n is " + f[5]);
    row.stats.stddev = seconds(at, "stddev", f[10]);
  }
  const Summary& s = row.stats;
  if (!(s.min <= s.avg && s.avg <= s.max && s.min <= s.median && s.median <= s.max)) {
    at.fail("statistics out of order (need min <= avg, median <= max)");
  }
  return row;
}

RuntimeRow service_row(const At& at, const std::vector<std::string>& f) {
  RuntimeRow row;
  const std::size_t time = key_columns(at, f, false, row);
  const double t = seconds(at, "service_time_s", f[time]);
  row.stats = Summary{1, t, t, t, t, std::nullopt};
  return row;
}

}  // namespace

std::vector<std::string> row_key(const RuntimeRow& row) {
  return {row.app, row.problem, std::to_string(row.total_size), std::to_string(row.components),
          row.system};
}

RuntimeTable RuntimeTable::read(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  RuntimeTable table;
  table.file = fs::is_directory(path, ec) ? (fs::path(path) / "runtimes.csv").string() : path;
  const csv::Document doc = csv::read_file(table.file);
  const std::string header = csv::join(doc.header.fields);
  if (header == kServiceTimeHeader) {
    table.service_time_layout = true;
  } else if (header != kRuntimeHeader) {
    doc.fail(doc.header.line, "unknown header '" + header + "'; expected '" + kRuntimeHeader +
                                  "' or '" + kServiceTimeHeader + "'");
  }
  csv::KeyLines<std::vector<std::string>> keys(doc);
  for (const csv::Record& record : doc.rows) {
    const At at{doc, record.line};
    RuntimeRow row =
        table.service_time_layout ? service_row(at, record.fields) : runtime_row(at, record.fields);
    row.line = record.line;
    if (row.components > row.total_size) {
      at.fail("components exceed total_size (" + std::to_string(row.components) + " > " +
              std::to_string(row.total_size) + ")");
    }
    keys.add(row_key(row), record.line, [&] { return "row for " + csv::join(row_key(row)); });
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string RuntimeTable::to_csv() const {
  csv::Writer out({"app", "problem", "total_size", "components", "system", "n", "min", "avg", "max",
                   "median", "stddev"});
  for (const RuntimeRow& r : rows) {
    out.row({r.app, r.problem, std::to_string(r.total_size), std::to_string(r.components), r.system,
             std::to_string(r.stats.n), csv::number(r.stats.min), csv::number(r.stats.avg),
             csv::number(r.stats.max), csv::number(r.stats.median),
             csv::optional_number(r.stats.stddev)});
  }
  return out.text();
}

}  // namespace mcb
