#include "simulator/joblist.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string_view>

namespace mcb::sim {
namespace {

constexpr std::array<std::string_view, 13> kColumns = {
    "id",         "submit",   "app",  "runtime",       "requested",     "type",
    "components", "clusters", "home", "min_component", "max_component", "max_components",
    "min_size"};

// A known column's place in kColumns, found at compile time.
consteval size_t column(std::string_view name) {
  size_t k = 0;
  while (kColumns[k] != name) ++k;
  return k;
}
constexpr size_t kId = column("id"), kSubmit = column("submit"), kApp = column("app"),
                 kRuntime = column("runtime"), kRequested = column("requested"),
                 kType = column("type"), kComponents = column("components"),
                 kClusters = column("clusters"), kHome = column("home"),
                 kMinComponent = column("min_component"), kMaxComponent = column("max_component"),
                 kMaxComponents = column("max_components"), kMinSize = column("min_size");

// Largest count (components, clusters, limits): fits an int with room for sums of a few.
constexpr double kLargestCount = 1e9;
// Largest job id: doubles hold every integer up to 2^53.
constexpr double kLargestId = 1e15;
// Latest time in seconds (about 31,700 years), so that submit + runtime still resolves it.
constexpr double kLatestTime = 1e12;

}  // namespace

namespace {

// "16+16" -> 16 | 16 (the components and clusters cells).
std::vector<std::string> split_plus(std::string_view text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto plus = text.find('+', start);
    parts.push_back(trim(text.substr(start, plus == std::string::npos ? plus : plus - start)));
    if (plus == std::string::npos) return parts;
    start = plus + 1;
  }
}

// A cell to be read as a number, and the range it must be in.
struct Cell {
  std::string_view name, text;
  bool integer;
  double lowest, most;
};

// A cell that is not a plain whole number in range: read with std::from_chars and checked, or
// refused naming the line and column. Apart from the fast path: few cells come here.
double checked_number(const Cell& c, const std::string& path, long line) {
  const std::string_view v = c.text;
  double x = 0;
  const bool read = read_plain_whole(v, x) || [&] {
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    return ec == std::errc() && p == v.data() + v.size();
  }();
  const auto cell = [&] {
    return "--trace: " + path + ":" + std::to_string(line) + ": column '" + std::string(c.name) +
           "': '" + std::string(v) + "'";
  };
  if (!read || !std::isfinite(x) || x < c.lowest || (c.integer && x != std::floor(x))) {
    throw UsageError(cell() + " is not " + (c.integer ? "an integer" : "a number") +
                     " >= " + std::to_string(static_cast<long long>(c.lowest)));
  }
  if (x > c.most) {
    throw UsageError(cell() + " is out of range (at most " +
                     std::to_string(static_cast<long long>(c.most)) + ")");
  }
  return x;
}

}  // namespace

JobListReader::JobListReader(const std::string& path)
    : path_(path), in_(path), reader_(in_, "--trace: " + path) {
  if (!in_) throw UsageError("--trace: cannot read '" + path + "'");
  csv::Record first;
  if (reader_.next(first)) {
    const std::size_t header_line = first.line;
    const auto& header = first.fields;
    columns_ = header.size();
    for (size_t i = 0; i < header.size(); ++i) {
      bool known = false;
      for (const std::string_view c : kColumns) known = known || header[i] == c;
      if (!known) {
        throw UsageError("--trace: " + path + ":" + std::to_string(header_line) +
                         ": unknown column '" + header[i] + "'");
      }
      if (col_.count(header[i])) {  // which of the two would the rows mean?
        throw UsageError("--trace: " + path + ":" + std::to_string(header_line) + ": column '" +
                         header[i] + "' is given twice (columns " +
                         std::to_string(col_[header[i]] + 1) + " and " + std::to_string(i + 1) +
                         ")");
      }
      col_[header[i]] = i;
    }
    for (size_t k = 0; k < kColumns.size(); ++k) {
      const auto it = col_.find(std::string(kColumns[k]));
      index_[k] = it == col_.end() ? kNoColumn : it->second;
      const bool common = k == kId || k == kSubmit || k == kApp || k == kRuntime ||
                          k == kRequested || k == kComponents;
      rare_ = rare_ || (!common && index_[k] != kNoColumn);
    }
    for (const char* need : {"submit", "components"}) {
      if (!col_.count(need)) {
        throw UsageError("--trace: " + path + ":" + std::to_string(header_line) +
                         ": header lacks the column '" + need + "'");
      }
    }
    return;
  }
  throw UsageError("--trace: " + path + ": no header line");
}

bool JobListReader::next(ListRecord& r, std::vector<int>& parts) {
  csv::RecordView& record = record_;
  if (!reader_.next(record)) return false;
  const long line = static_cast<long>(record.line);
  // Built only for a refusal: most lines have none.
  const auto where = [&] { return "--trace: " + path_ + ":" + std::to_string(line) + ": "; };
  const auto& cells = record.fields;
  if (cells.size() != columns_) {
    throw UsageError(where() + std::to_string(cells.size()) + " cells, the header has " +
                     std::to_string(columns_));
  }
  // A cell of up to 15 digits after an optional '-', as nearly all are; most of up to 8, read from
  // the line at once.
  const auto plain = [in_line = record.in_line](std::string_view v, double& x) {
    return (in_line && read_short_digits(v.data(), v.size(), x)) || read_plain_whole(v, x);
  };
  // Column k's cell text v as a number; the column is named only for a refusal.
  const auto number = [&](size_t k, std::string_view v, bool integer, double lowest) {
    // Counts and cluster numbers become int, ids int64, times seconds added to one another.
    const double most = !integer ? kLatestTime : k == kId ? kLargestId : kLargestCount;
    double x = 0;
    if (plain(v, x) && x >= lowest && x <= most) return x;  // nearly every cell
    return checked_number({kColumns[k], v, integer, lowest, most}, path_, line);
  };
  // Column k's cell v of several parts, or of a part to check and refuse, appended to parts.
  const auto several = [&](size_t k, std::string_view v, double lowest) {
    std::uint32_t n = 0;
    for (const auto& part : split_plus(v)) {
      parts.push_back(static_cast<int>(number(k, part, true, lowest)));
      ++n;
    }
    return n;
  };
  // Column k's cell v, "16+16", appended to parts; how many parts it has. Inline: a call cost a
  // fifth of what reading the cell does.
  const auto list = [&](size_t k, std::string_view v, double lowest) __attribute__((always_inline))
                        ->std::uint32_t {
    double x = 0;
    if (plain(v, x) && x >= lowest && x <= kLargestCount) {  // one part, as most are
      parts.push_back(static_cast<int>(x));
      return 1;
    }
    return v.empty() ? 0 : several(k, v, lowest);
  };
  const auto cell = [&](size_t k) {  // empty for a column the list lacks
    return index_[k] == kNoColumn ? std::string_view() : cells[index_[k]];
  };
  const auto count = [&](size_t k, int lowest) {
    return static_cast<int>(number(k, cell(k), true, lowest));
  };
  static_cast<ListFields&>(r) = ListFields{};  // every value anew
  r.line = line;
  if (!cell(kId).empty()) r.id = static_cast<std::int64_t>(number(kId, cell(kId), true, 0));
  r.submit = number(kSubmit, cell(kSubmit), false, 0);
  r.app = cell(kApp);
  if (!cell(kRuntime).empty()) r.runtime = number(kRuntime, cell(kRuntime), false, 0);
  if (!cell(kRequested).empty()) r.requested = number(kRequested, cell(kRequested), false, 0);
  if (rare_ && !cell(kType).empty()) {
    try {
      r.type = static_cast<int>(parse_request_type(cell(kType)));
    } catch (const std::invalid_argument& e) {
      throw UsageError(where() + "column 'type': " + e.what());
    }
  }
  const std::size_t first_part = parts.size();
  r.sizes = list(kComponents, cell(kComponents), 1);
  if (r.sizes == 0) throw UsageError(where() + "column 'components' is empty");
  r.clusters = 0;
  if (!rare_) return true;  // none of the columns below
  if (index_[kClusters] != kNoColumn) r.clusters = list(kClusters, cell(kClusters), 0);
  if (!cell(kHome).empty()) r.home = count(kHome, 0);
  if (!cell(kMinComponent).empty()) r.min_component = count(kMinComponent, 1);
  if (!cell(kMaxComponent).empty()) r.max_component = count(kMaxComponent, 1);
  if (!cell(kMaxComponents).empty()) r.max_components = count(kMaxComponents, 1);
  if (!cell(kMinSize).empty()) {
    r.min_size = count(kMinSize, 1);
    long long size = 0;  // at most 1e9 a component: the sum cannot overflow
    for (std::uint32_t k = 0; k < r.sizes; ++k) size += parts[first_part + k];
    if (r.min_size > size) {
      throw UsageError(where() + "column 'min_size': '" + std::string(cell(kMinSize)) +
                       "' is above the job's size " + std::to_string(size));
    }
  }
  return true;
}

}  // namespace mcb::sim
