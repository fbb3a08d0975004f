#include "common/csv.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace mcb::csv {
namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

// Whether a field must be quoted (field()): a comma, a quote or a line break in it, or a '#' or
// a blank at its start, or a blank at its end.
bool needs_quotes(std::string_view value) {
  if (value.empty()) return false;
  if (value.front() == '#' || blank(value.front()) || blank(value.back())) return true;
  for (const char c : value) {
    if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
  }
  return false;
}

// Parses the record in `text` into `fields`; `more` supplies the following line when a quoted
// field runs past the line end (false when there is none). Throws std::invalid_argument. The
// strings already in `fields` are written over, so a reader that passes the same vector for
// every record allocates nothing once its fields have grown to their widths.
template <typename More>
void parse(std::string& text, More&& more, std::vector<std::string>& fields) {
  std::size_t count = 0;
  const auto slot = [&]() -> std::string& {
    if (count == fields.size()) fields.emplace_back();
    return fields[count++];
  };
  std::size_t i = 0;
  for (;;) {
    while (i < text.size() && blank(text[i])) ++i;
    if (i < text.size() && text[i] == '"') {
      std::string& value = slot();
      value.clear();
      ++i;
      for (;;) {
        if (i == text.size()) {
          std::string next;
          if (!more(next)) throw std::invalid_argument("unterminated quoted field");
          text += '\n';
          text += next;
          continue;
        }
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            value += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        value += text[i++];
      }
      while (i < text.size() && blank(text[i])) ++i;
      if (i < text.size() && text[i] != ',') {
        throw std::invalid_argument("text after the closing quote of field " +
                                    std::to_string(count));
      }
    } else {
      const std::size_t start = i;
      while (i < text.size() && text[i] != ',') {
        if (text[i] == '"') {
          throw std::invalid_argument("a quote inside unquoted field " + std::to_string(count + 1) +
                                      " (quote the whole field and double the quote)");
        }
        ++i;
      }
      std::size_t end = i;
      while (end > start && blank(text[end - 1])) --end;
      slot().assign(text, start, end - start);
    }
    if (i == text.size()) {
      fields.resize(count);
      return;
    }
    ++i;  // the comma
  }
}

void drop_cr(std::string& line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
}

// Names read from a CSV file end up in JSON records and other tables: plain UTF-8 only.
void require_plain_text(const std::string& line, const std::string& name, std::size_t number) {
  if (const std::string problem = text_problem(line); !problem.empty()) {
    throw UsageError(name + ":" + std::to_string(number) + ": " + problem);
  }
}

}  // namespace

namespace {

// Whole numbers below this are written with every digit (900000, never 9e+05): readers that take
// an integer field with int() or %d stop at, or silently misread, an exponent form.
constexpr double kLargestFixedWhole = 1e17;

bool whole_in_fixed_range(double value) {
  return std::isfinite(value) && value == std::trunc(value) &&
         std::fabs(value) < kLargestFixedWhole;
}

}  // namespace

std::string number(double value) {
  char buf[64];
  if (whole_in_fixed_range(value)) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.10g", value);
  }
  return buf;
}

std::string optional_number(const std::optional<double>& value) {
  return value ? number(*value) : std::string();
}

std::string field(std::string_view text) {
  if (!needs_quotes(text)) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string join(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ',';
    line += field(fields[i]);
  }
  return line;
}

namespace {

// @p value's digits into @p buf (at least 24 characters); returns their end.
char* integer_chars(long long value, char* buf) {
  // Through 32 bits when the value fits (most numbers of a per-job table): std::to_chars divides
  // by 100 per two digits, and a 32-bit division takes fewer instructions than a 64-bit one.
  if (value >= 0 && value <= std::numeric_limits<std::uint32_t>::max()) {
    return std::to_chars(buf, buf + 24, static_cast<std::uint32_t>(value)).ptr;
  }
  return std::to_chars(buf, buf + 24, value).ptr;
}

// exact()'s text into @p buf (at least 32 characters); returns its end.
char* exact_chars(double value, char* buf) {
  // The shortest text that reads back the same; whole numbers always in fixed notation, which
  // for a whole number below 1e17 is its integer's digits (formatted as one, several times
  // faster). The cast is exact in that range, and NaN and the infinities fail the range test.
  if (std::fabs(value) < kLargestFixedWhole) {
    const auto whole = static_cast<long long>(value);
    if (static_cast<double>(whole) != value) return std::to_chars(buf, buf + 32, value).ptr;
    if (whole != 0 || !std::signbit(value)) return integer_chars(whole, buf);
    return std::to_chars(buf, buf + 32, value, std::chars_format::fixed).ptr;  // -0 keeps its sign
  }
  if (std::isnan(value)) return buf;
  if (std::isinf(value)) {
    const std::string_view s = value > 0 ? "inf" : "-inf";
    return std::copy(s.begin(), s.end(), buf);
  }
  return std::to_chars(buf, buf + 32, value).ptr;
}

}  // namespace

std::string exact(double value) {
  char buf[32];
  return std::string(buf, exact_chars(value, buf));
}

StreamWriter::StreamWriter(std::ostream& out, const std::vector<std::string>& header)
    : out_(out), columns_(header.size()) {
  const std::string line = join(header) + '\n';
  write(line.data(), line.size());
}

void StreamWriter::row(const std::vector<std::string>& fields) {
  if (fields.size() != columns_) {
    throw std::logic_error("CSV row with " + std::to_string(fields.size()) +
                           " fields, header has " + std::to_string(columns_));
  }
  const std::string line = join(fields) + '\n';
  write(line.data(), line.size());
}

void StreamWriter::grow(std::size_t most) {
  // Fields are written through a pointer, not appended: a per-job table formats millions of
  // them, and each append would check and update the string's size.
  line_.resize(std::max(2 * line_.size(), used_ + most + 64));
}

StreamWriter& StreamWriter::text(std::string_view value) {
  if (needs_quotes(value)) return as_is(field(value));
  return as_is(value);  // most fields need no quotes: copied without a temporary
}

StreamWriter& StreamWriter::as_is(std::string_view value) {
  char* at = field_room(value.size());
  if (!value.empty()) std::memcpy(at, value.data(), value.size());
  close_field(at + value.size());
  return *this;
}

StreamWriter& StreamWriter::exact(double value) {
  char* at = field_room(32);
  close_field(exact_chars(value, at));
  return *this;
}

StreamWriter& StreamWriter::integer(long long value) {
  char* at = field_room(24);
  close_field(integer_chars(value, at));
  return *this;
}

void StreamWriter::end_row() {
  const std::size_t width = pending_;
  const std::size_t length = used_;
  pending_ = used_ = 0;
  if (width != columns_) {
    throw std::logic_error("CSV row with " + std::to_string(width) + " fields, header has " +
                           std::to_string(columns_));
  }
  if (width == 0) {
    write("\n", 1);
    return;
  }
  line_[length - 1] = '\n';  // in place of the last field's comma
  write(line_.data(), length);
}

void StreamWriter::write(const char* text, std::size_t size) {
  // Straight into the stream's buffer: ostream::write's sentry cost as much as formatting a
  // field, once per row.
  const auto n = static_cast<std::streamsize>(size);
  std::streambuf* buffer = out_.rdbuf();
  if (!out_.good() || buffer == nullptr || buffer->sputn(text, n) != n) {
    out_.setstate(std::ios::badbit);
  }
}

Writer::Writer(const std::vector<std::string>& header)
    : columns_(header.size()), text_(join(header) + "\n") {}

void Writer::row(const std::vector<std::string>& fields) {
  if (fields.size() != columns_) {
    throw std::logic_error("CSV row with " + std::to_string(fields.size()) +
                           " fields, header has " + std::to_string(columns_));
  }
  text_ += join(fields);
  text_ += '\n';
  ++rows_;
}

Reader::Reader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

bool Reader::next(Record& record) {
  std::string& line = text_;
  while (std::getline(in_, line)) {
    ++line_;
    drop_cr(line);
    require_plain_text(line, name_, line_);
    std::size_t first = 0;
    while (first < line.size() && blank(line[first])) ++first;
    if (first == line.size() || line[first] == '#') continue;
    record.line = line_;
    try {
      parse(
          line,
          [this](std::string& next) {
            if (!std::getline(in_, next)) return false;
            ++line_;
            drop_cr(next);
            require_plain_text(next, name_, line_);
            return true;
          },
          record.fields);
    } catch (const std::invalid_argument& e) {
      throw UsageError(name_ + ":" + std::to_string(record.line) + ": " + e.what());
    }
    return true;
  }
  return false;
}

std::vector<std::string> split(std::string_view text) {
  std::string line(text);
  drop_cr(line);
  std::vector<std::string> fields;
  parse(
      line, [](std::string&) { return false; }, fields);
  return fields;
}

void Document::fail(std::size_t line, const std::string& what) const {
  throw UsageError(file + ":" + std::to_string(line) + ": " + what);
}

Document read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError(path + ": a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read the file");
  Document doc;
  doc.file = path;
  Reader reader(in, path);
  if (!reader.next(doc.header)) throw UsageError(path + ":1: empty file, no header");
  Record record;
  while (reader.next(record)) {
    if (record.fields.size() != doc.header.fields.size()) {
      doc.fail(record.line, std::to_string(record.fields.size()) + " fields, the header has " +
                                std::to_string(doc.header.fields.size()));
    }
    doc.rows.push_back(std::move(record));
  }
  return doc;
}

Document read_table(const std::string& path, std::string_view expected) {
  Document doc = read_file(path);
  const std::string header = join(doc.header.fields);
  if (header != expected) {
    doc.fail(doc.header.line,
             "unknown header '" + header + "'; expected '" + std::string(expected) + "'");
  }
  return doc;
}

}  // namespace mcb::csv
