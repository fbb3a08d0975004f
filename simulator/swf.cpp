#include "simulator/swf.hpp"

#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace mcb::sim {
namespace {

long long leading_integer(const std::string& s) {
  long long v = -1;
  const char* b = s.data();
  auto [p, ec] = std::from_chars(b, b + s.size(), v);
  return ec == std::errc() && p != b ? v : -1;
}

// Largest integer field: below 2^53, where doubles still hold every integer.
constexpr double kLargestField = 1e15;
// Latest time (s, about 31,700 years): submit + runtime still resolves milliseconds.
constexpr double kLatestTime = 1e12;

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The archive follows some values with "# remark" ("Europe/Amsterdam  # CET (...)").
std::string without_remark(const std::string& value) {
  return trim(value.substr(0, value.find('#')));
}

bool blank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

// The integer fields of a job line (1, 5, 8 and 11-17), as bits from field 1's.
constexpr std::uint32_t kIntegerFields = 0x1u | 0x10u | 0x80u | 0x1FC00u;

// Refuses an integer field that is not a whole number in range. Out of line: it is called only
// for a field that was not read as a plain whole number, nearly never.
template <class Where>
[[gnu::noinline]] void check_whole(int field, double v, const Where& where) {
  if (v != std::floor(v)) {
    throw UsageError(where() + "field " + std::to_string(field) + " '" + std::to_string(v) +
                     "' is not an integer");
  }
  // Beyond 2^53 doubles skip integers, and a cast past the range of long long is undefined.
  if (std::fabs(v) > kLargestField) {
    throw UsageError(where() + "field " + std::to_string(field) + " '" + number_text(v) +
                     "' is out of range (at most " + number_text(kLargestField) + ")");
  }
}

// Whether `c` ends a field: a separator, or the '\n' that follows every line (LineReader).
bool ends_field(char c) {
  constexpr std::uint64_t kEnds = 1ull << ' ' | 1ull << '\t' | 1ull << '\r' | 1ull << '\n';
  const auto u = static_cast<unsigned char>(c);
  return u <= ' ' && (kEnds >> u & 1) != 0;
}

// Reads the fields of a job line into `f` (the first 18) and returns how many it has. A field of
// 1 to 15 digits after an optional '-' (not "-0"), as nearly all are, is read as a whole number:
// it needs no check that it is one in range. Others are read with std::from_chars, and their
// bits set in `other`. The line is a LineReader's, followed by '\n', which ends every scan, and
// by bytes that may be read: "-1" and fields of up to eight digits are told from the eight bytes
// at their start, at once.
template <class Where>
int read_fields(std::string_view line, std::array<double, 18>& f, std::uint32_t& other,
                const Where& where) {
  static_assert(std::endian::native == std::endian::little, "byte k is bits 8k to 8k + 7");
  std::uint32_t read_other = 0;  // kept here, not through `other`, while the line is read
  const char* p = line.data();
  const char* const end = p + line.size();
  // Moves p past separators and then past a field; false when the line ends first.
  const auto skip_to_field = [&] {
    if (*p == ' ' && static_cast<unsigned char>(p[1]) > ' ') {  // one space, as nearly always
      ++p;
      return true;
    }
    while (p != end && ends_field(*p)) ++p;
    return p != end;
  };
  const auto skip_field = [&] {
    while (p != end && !ends_field(*p)) ++p;
  };
  int count = 0;
  for (; count < 18; ++count) {
    if (!skip_to_field()) break;
    const auto k = static_cast<std::size_t>(count);
    const char* const start = p;
    std::uint64_t word = 0;
    std::memcpy(&word, p, 8);
    // "-1", SWF's mark of an unknown value, is nearly half the fields of a trace.
    if ((word & 0xFFFF) == (unsigned{'-'} | unsigned{'1'} << 8) && ends_field(p[2])) {
      f[k] = -1;
      p += 2;
      continue;
    }
    if (const unsigned n = leading_digits(word); n - 1 < 8 && ends_field(p[n])) {
      f[k] = static_cast<double>(leading_number(word, n));  // 1 to 8 digits, then a separator
      p += n;
      continue;
    }
    skip_field();
    if (read_plain_whole(std::string_view(start, static_cast<std::size_t>(p - start)), f[k])) {
      continue;
    }
    double v = 0;
    auto [q, ec] = std::from_chars(start, p, v);
    if (ec != std::errc() || q != p || !std::isfinite(v)) {
      throw UsageError(where() + "field " + std::to_string(count + 1) + " '" +
                       std::string(start, p) + "' is not a number");
    }
    f[k] = v;
    read_other |= std::uint32_t{1} << count;
  }
  other = read_other;
  for (; skip_to_field(); ++count) skip_field();  // only counted: the message names the count
  return count;
}

}  // namespace

SwfReader::SwfReader(const std::string& path, std::string option)
    : path_(path), option_(std::move(option)), in_(path), lines_(in_) {
  if (!in_) throw UsageError(option_ + ": cannot read '" + path + "'");
  while (read_line()) {
    if (blank(line_)) continue;
    const std::string t = trim(line_);
    if (t.front() == ';') {
      parse_header_comment(t.substr(1));
      continue;
    }
    pending_ = true;
    break;
  }
}

bool SwfReader::read_line() {
  if (!lines_.next(line_)) return false;
  ++number_;
  // Header values are copied into the run's JSON record, so every line must be plain text.
  if (lines_.plain()) return true;
  const std::string problem = text_problem(line_);
  if (!problem.empty()) {
    throw UsageError(option_ + ": " + path_ + ":" + std::to_string(number_) + ": " + problem);
  }
  return true;
}

void SwfReader::parse_header_comment(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return;
  const std::string key = trim(text.substr(0, colon));
  if (key.empty() || key.find(' ') != std::string::npos) return;
  std::string value = trim(text.substr(colon + 1));
  header_.lines.emplace_back(key, value);
  header_.fields[key] = value;
  if (key == "MaxProcs") header_.max_procs = leading_integer(value);
  if (key == "MaxNodes") header_.max_nodes = leading_integer(value);
  if (key == "MaxJobs") header_.max_jobs = leading_integer(value);
  if (key == "UnixStartTime") header_.unix_start = leading_integer(value);
  if (key == "TimeZoneString") header_.time_zone = without_remark(value);
}

bool SwfReader::next(SwfRecord& r) {
  while (true) {
    if (pending_) {
      pending_ = false;
    } else if (!read_line()) {
      return false;
    }
    if (blank(line_)) continue;
    size_t i = 0;
    while (i < line_.size() && (line_[i] == ' ' || line_[i] == '\t')) ++i;
    if (line_[i] == ';') continue;  // comments between records
    break;
  }
  // Built only for a refusal: nearly every line has none.
  const auto where = [&] { return option_ + ": " + path_ + ":" + std::to_string(number_) + ": "; };
  // Not zeroed (that cost as much as reading four fields): read_fields() writes each field it
  // counts, and a line of fewer than 18 is refused below.
  std::array<double, 18> f;
  std::uint32_t other = 0;  // bit k: field k + 1 was not read as a whole number in range
  const int count = read_fields(line_, f, other, where);
  if (count != 18) {
    throw UsageError(where() + (count > 18 ? "more than 18" : std::to_string(count)) +
                     " fields; SWF lines have 18");
  }
  // Fields 1, 5, 8 and 11-17 hold integers: when all were read as plain whole numbers, as
  // nearly always, none needs a check (and no call is made for one).
  const bool all_whole = (other & kIntegerFields) == 0;
  const auto whole = [&](int field) {
    const double v = f[static_cast<size_t>(field - 1)];
    if (!all_whole && (other >> (field - 1) & 1) != 0) check_whole(field, v, where);
    return static_cast<long long>(v);
  };
  r.line = number_;
  r.job = whole(1);
  // Job numbers count from 1; -1 is SWF's mark of a missing value, any other negative is wrong.
  if (r.job < -1) {
    throw UsageError(where() + "job number (field 1) '" + std::to_string(r.job) +
                     "' is negative; SWF numbers jobs from 1 (-1 if unknown)");
  }
  r.submit = f[1];
  r.wait = f[2];
  r.run = f[3];
  r.procs = whole(5);
  r.cpu = f[5];
  r.memory = f[6];
  r.req_procs = whole(8);
  r.req_time = f[8];
  r.req_memory = f[9];
  r.status = static_cast<int>(whole(11));
  r.user = whole(12);
  r.group = whole(13);
  r.executable = whole(14);
  r.queue = whole(15);
  r.partition = whole(16);
  r.preceding = whole(17);
  r.think = f[17];
  if (r.submit < 0)
    throw UsageError(where() + "submit time (field 2) '" + std::to_string(r.submit) +
                     "' is negative");
  // Past about 1e12 s a double no longer resolves seconds once a runtime is added to it, and
  // response times come out as 0.
  const std::pair<int, double> times[] = {
      {2, r.submit}, {3, r.wait}, {4, r.run}, {9, r.req_time}, {18, r.think}};
  for (const auto& [field, v] : times) {
    if (v > kLatestTime) {
      throw UsageError(where() + "time (field " + std::to_string(field) + ") '" + number_text(v) +
                       "' is out of range (at most " + number_text(kLatestTime) + " s)");
    }
  }
  return true;
}

SwfTimes swf_whole_times(double submit, double start, double end, double requested_end) {
  const long long s = std::llround(submit), b = std::llround(start), e = std::llround(end);
  SwfTimes t;
  t.submit = s;
  t.wait = b - s;
  t.run = e - b;
  t.req_time = std::llround(requested_end) - b;
  t.rounded = submit != static_cast<double>(s) || start != static_cast<double>(b) ||
              end != static_cast<double>(e) || requested_end != std::round(requested_end);
  return t;
}

std::string swf_line(const SwfRecord& r) {
  const double fields[18] = {static_cast<double>(r.job),
                             r.submit,
                             r.wait,
                             r.run,
                             static_cast<double>(r.procs),
                             r.cpu,
                             r.memory,
                             static_cast<double>(r.req_procs),
                             r.req_time,
                             r.req_memory,
                             static_cast<double>(r.status),
                             static_cast<double>(r.user),
                             static_cast<double>(r.group),
                             static_cast<double>(r.executable),
                             static_cast<double>(r.queue),
                             static_cast<double>(r.partition),
                             static_cast<double>(r.preceding),
                             r.think};
  std::string line;
  for (double v : fields) {
    if (!line.empty()) line += ' ';
    line += csv::exact(v);
  }
  return line;
}

std::string swf_header(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string text;
  for (const auto& [key, value] : fields) {
    if (key.empty() || key.find_first_of(" :\n") != std::string::npos ||
        value.find('\n') != std::string::npos) {
      throw std::invalid_argument("SWF header field '" + key + "' cannot be written");
    }
    text += "; " + key + ": " + value + "\n";
  }
  return text;
}

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

// The source's lines under @p keys, in its order; their values without remarks where asked.
void carry(const SwfHeader& source, const std::vector<std::string>& keys, bool plain, Fields& out) {
  for (const auto& [key, value] : source.lines) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
    out.emplace_back(key, plain ? without_remark(value) : value);
  }
}

void add_time_fields(const SwfScheduleInfo& info, Fields& out) {
  const SwfHeader* src = info.source;
  if (!src || src->unix_start < 0) return;
  if (info.scale != 1) {
    out.emplace_back("Note", "submit offsets of the trace divided by " + csv::exact(info.scale) +
                                 ", so times are not its dates (its UnixStartTime is " +
                                 std::to_string(src->unix_start) + ")");
    return;
  }
  // Times count from the first arrival, so the schedule starts there.
  out.emplace_back("UnixStartTime",
                   std::to_string(src->unix_start + std::llround(std::floor(info.origin))));
  carry(*src, {"TimeZone", "TimeZoneString"}, true, out);
}

}  // namespace

Fields swf_schedule_header(const SwfScheduleInfo& info) {
  const SwfHeader* src = info.source;
  long long procs = 0;
  for (int s : info.cluster_sizes) procs += s;
  const std::string jobs = std::to_string(info.jobs);
  Fields out = {
      {"Version", "2.2"}, {"Computer", "mcb-sim"}, {"MaxJobs", jobs}, {"MaxRecords", jobs}};
  add_time_fields(info, out);
  // Nodes are the source's when the machine is: a simulated machine of another size has none.
  if (src && src->max_procs == procs) carry(*src, {"MaxNodes"}, false, out);
  out.emplace_back("MaxProcs", std::to_string(procs));
  const bool same_queues = src && src->fields.count("MaxQueues") &&
                           leading_integer(src->fields.at("MaxQueues")) ==
                               static_cast<long long>(info.queue_names.size());
  if (same_queues) {
    carry(*src, {"MaxQueues", "Queue", "Queues"}, false, out);
  } else {
    out.emplace_back("MaxQueues", std::to_string(info.queue_names.size()));
    for (size_t q = 0; q < info.queue_names.size(); ++q) {
      out.emplace_back("Queue", std::to_string(q + 1) + " - " + info.queue_names[q]);
    }
  }
  out.emplace_back("MaxPartitions", std::to_string(info.cluster_sizes.size()));
  for (size_t c = 0; c < info.cluster_sizes.size(); ++c) {
    out.emplace_back("Partition", std::to_string(c + 1) + " - cluster " + std::to_string(c) + ", " +
                                      std::to_string(info.cluster_sizes[c]) + " processors");
  }
  for (const std::string& note : info.notes) out.emplace_back("Note", note);
  return out;
}

}  // namespace mcb::sim
