#include "common/csv.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <bit>
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

// The bytes of `word` equal to `c`, marked by their top bits. Exact, unlike below().
std::uint64_t bytes_equal(std::uint64_t word, unsigned char c) {
  constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Fu;
  const std::uint64_t x = word ^ (0x0101010101010101u * c);
  return ~(((x & kLow7) + kLow7) | x | kLow7);
}

// Marks bytes of `word` below `n` (at most 128) by their top bits: the first one exactly, the
// bytes after it maybe wrongly, which is enough to tell whether there is one.
std::uint64_t below(std::uint64_t word, unsigned char n) {
  return (word - 0x0101010101010101u * n) & ~word & 0x8080808080808080u;
}

// Splits a record without quotes, blanks or control characters, the most common by far,
// straight from the line: the same fields as parse() gives it. False, with `fields` left
// undefined, for any other line, which parse() reads. The line is looked at eight bytes at a
// time, reading up to seven bytes past its end: LineReader keeps them in its buffer.
template <class Field>
bool split_plain(std::string_view line, std::vector<Field>& fields) {
  static_assert(std::endian::native == std::endian::little, "byte k is bits 8k to 8k + 7");
  static_assert('"' == 0x22 && ' ' == 0x20,
                "a quote, a blank and control characters are below 0x23");
  std::size_t count = 0;
  // Fields are written through a pointer: through the vector, each one cost a reload of its
  // data and size.
  Field* out = fields.data();
  std::size_t room = fields.size();
  const auto add = [&](const char* first, const char* last) {
    if (count == room) {
      fields.emplace_back();
      out = fields.data();
      room = fields.size();
    }
    out[count++] = std::string_view(first, static_cast<std::size_t>(last - first));
  };
  const char* start = line.data();  // of the field being read
  // The fields of the eight bytes at @p at, those outside @p inside masked off; false when one
  // of them is a quote, a blank or a control character.
  const auto word_at = [&](std::size_t at, std::uint64_t inside) {
    std::uint64_t word = 0;
    std::memcpy(&word, line.data() + at, 8);
    if ((below(word, 0x23) & inside) != 0) return false;
    for (std::uint64_t commas = bytes_equal(word, ',') & inside; commas != 0;
         commas &= commas - 1) {
      const char* const comma = line.data() + at + std::countr_zero(commas) / 8;
      add(start, comma);
      start = comma + 1;
    }
    return true;
  };
  const std::size_t whole_words = line.size() & ~std::size_t{7};
  for (std::size_t at = 0; at < whole_words; at += 8) {
    if (!word_at(at, ~std::uint64_t{0})) return false;
  }
  if (const std::size_t left = line.size() - whole_words; left > 0) {  // the bytes past the line
    if (!word_at(whole_words, (std::uint64_t{1} << 8 * left) - 1)) return false;
  }
  add(start, line.data() + line.size());
  fields.resize(count);
  return true;
}

void drop_cr(std::string& line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
}

void drop_cr(std::string_view& line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
}

// Names read from a CSV file end up in JSON records and other tables: plain UTF-8 only.
void require_plain_text(std::string_view line, const std::string& name, std::size_t number) {
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

namespace detail {

char* other_integer_chars(long long value, char* buf) {
  return std::to_chars(buf, buf + 24, value).ptr;
}

char* other_exact_chars(double value, char* buf) {
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

}  // namespace detail

std::string exact(double value) {
  char buf[32];
  return std::string(buf, detail::exact_chars(value, buf));
}

StreamWriter::StreamWriter(std::ostream& out, const std::vector<std::string>& header)
    : out_(out), columns_(header.size()) {
  const std::string line = join(header) + '\n';
  write(line.data(), line.size());
}

StreamWriter::~StreamWriter() {
  try {
    flush();
  } catch (const std::exception&) {  // a stream that throws on failure: its state tells
  }
}

void StreamWriter::row(const std::vector<std::string>& fields) {
  if (fields.size() != columns_) {
    throw std::logic_error("CSV row with " + std::to_string(fields.size()) +
                           " fields, header has " + std::to_string(columns_));
  }
  const std::string line = join(fields) + '\n';
  std::copy(line.begin(), line.end(), field_room(line.size()));
  used_ = row_start_ = used_ + line.size();
  if (used_ >= kBlock) flush();
}

void StreamWriter::grow(std::size_t most) {
  // Fields are written through a pointer, not appended: a per-job table formats millions of
  // them, and each append would check and update the string's size.
  buffer_.resize(std::max(2 * buffer_.size(), used_ + most + 64));
}

StreamWriter& StreamWriter::text(std::string_view value) {
  if (needs_quotes(value)) return as_is(field(value));
  return as_is(value);  // most fields need no quotes: copied without a temporary
}

StreamWriter& StreamWriter::counts(std::span<const int> values) {
  constexpr std::size_t kMost = 34;  // ';', a 20-digit index, ':', an 11-character value
  char* const start = field_room(values.size() * kMost);
  char* at = start;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] == 0) continue;
    if (at != start) *at++ = ';';
    at = detail::integer_chars(static_cast<long long>(i), at);
    *at++ = ':';
    at = detail::integer_chars(values[i], at);
  }
  close_field(at);
  return *this;
}

void StreamWriter::end_row() {
  const std::size_t width = pending_;
  pending_ = 0;
  if (width != columns_) {
    used_ = row_start_;
    throw std::logic_error("CSV row with " + std::to_string(width) + " fields, header has " +
                           std::to_string(columns_));
  }
  if (width == 0) {
    *field_room(0) = '\n';
    ++used_;
  } else {
    buffer_[used_ - 1] = '\n';  // in place of the last field's comma
  }
  row_start_ = used_;
  if (used_ >= kBlock) flush();
}

void StreamWriter::flush() {
  if (row_start_ > 0) write(buffer_.data(), row_start_);
  used_ -= row_start_;  // a row being given stays
  if (used_ > 0) std::memmove(buffer_.data(), buffer_.data() + row_start_, used_);
  row_start_ = 0;
}

void StreamWriter::write(const char* text, std::size_t size) {
  // Straight into the stream's buffer: ostream::write's sentry cost as much as formatting a
  // field.
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

Reader::Reader(std::istream& in, std::string name, std::size_t block)
    : lines_(in, block), name_(std::move(name)) {}

bool Reader::record_line(std::string_view& line) {
  while (lines_.next(line)) {
    ++line_;
    drop_cr(line);
    if (!lines_.plain()) require_plain_text(line, name_, line_);
    std::size_t first = 0;
    while (first < line.size() && blank(line[first])) ++first;
    if (first == line.size() || line[first] == '#') continue;
    return true;
  }
  return false;
}

void Reader::parse_quoted(std::string_view line, std::vector<std::string>& fields) {
  text_.assign(line);  // the line's view ends when the next line is read
  const std::size_t first_line = line_;
  try {
    parse(
        text_,
        [this](std::string& next) {
          std::string_view more;
          if (!lines_.next(more)) return false;
          ++line_;
          drop_cr(more);
          if (!lines_.plain()) require_plain_text(more, name_, line_);
          next.assign(more);
          return true;
        },
        fields);
  } catch (const std::invalid_argument& e) {
    throw UsageError(name_ + ":" + std::to_string(first_line) + ": " + e.what());
  }
}

bool Reader::next(Record& record) {
  std::string_view line;
  if (!record_line(line)) return false;
  record.line = line_;
  if (!split_plain(line, record.fields)) parse_quoted(line, record.fields);
  return true;
}

bool Reader::next(RecordView& record) {
  std::string_view line;
  if (!record_line(line)) return false;
  record.line = line_;
  record.in_line = split_plain(line, record.fields);
  if (!record.in_line) {
    parse_quoted(line, quoted_);
    record.fields.assign(quoted_.begin(), quoted_.end());
  }
  return true;
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
