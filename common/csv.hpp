#pragma once
/// @file
/// @brief The suite's one CSV codec (RFC 4180): every table the suite writes and every CSV it
/// reads (runtime tables, calibration tables, job lists) goes through it.
///
/// Writing: fields are separated by commas, lines end in '\n'; a field is quoted when it holds a
/// comma, a quote, a line break, starts with '#' or has blanks at either end, and a quote inside
/// is doubled. Numbers are written with 10 significant digits.
///
/// Reading: the same rules, plus what hand-written files need: blank lines and lines starting
/// with '#' are skipped, blanks around an unquoted field are dropped, '\r\n' endings are taken,
/// and a quoted field may span lines. A record that breaks the rules is a mcb::UsageError naming
/// "<file>:<line>".

#include "common/text.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcb::csv {

/// @brief A number as written into tables ("%.10g": 1230, 0.0123456789, 3.5e-07); whole numbers
/// below 1e17 with every digit (35000000000, not 3.5e+10).
std::string number(double value);

/// @brief A number as the shortest text that reads back the same (0.3, not 0.30000000000000004),
/// whole numbers below 1e17 in fixed notation (900000, not 9e+05); NaN is empty text, infinities
/// are "inf" and "-inf". Per-job tables use it so that nothing is rounded away.
std::string exact(double value);

/// @brief An optional number: empty text when absent.
std::string optional_number(const std::optional<double>& value);

/// @brief One field as written: quoted when it needs to be.
std::string field(std::string_view text);

/// @brief Text written on many rows (a name in a per-job table), checked and quoted once.
class Quoted {
 public:
  explicit Quoted(std::string_view text) : text_(field(text)) {}
  /// The field as written, quotes included when it needs them.
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

/// @brief One record as written: the fields joined by commas, without the line end.
std::string join(const std::vector<std::string>& fields);

/// @brief Builds CSV text: a header and rows, each line ending in '\n'.
class Writer {
 public:
  explicit Writer(const std::vector<std::string>& header);
  /// @throws std::logic_error when the row's width differs from the header's.
  void row(const std::vector<std::string>& fields);
  const std::string& text() const { return text_; }
  std::size_t rows() const { return rows_; }

 private:
  std::size_t columns_;
  std::size_t rows_ = 0;
  std::string text_;
};

/// Number formatting for StreamWriter, in this header so that a row's fields are formatted
/// without a call each: out of line, each field of a per-job table cost a dozen instructions more.
namespace detail {

/// Integers below this (every count and almost every time of a per-job table) are formatted
/// inline at 32 bits: std::to_chars divides by 100 per two digits, and a 32-bit division takes
/// fewer instructions than a 64-bit one.
inline constexpr std::uint64_t kShortLimit = std::uint64_t{1} << 32;

/// The numbers not formatted inline, in csv.cpp.
char* other_integer_chars(long long value, char* buf);
char* other_exact_chars(double value, char* buf);

/// @p value's digits into @p buf (at least 24 characters); returns their end.
inline char* integer_chars(long long value, char* buf) {
  if (value >= 0 && static_cast<std::uint64_t>(value) < kShortLimit) {
    return std::to_chars(buf, buf + 24, static_cast<std::uint32_t>(value)).ptr;
  }
  return other_integer_chars(value, buf);
}

/// exact()'s text into @p buf (at least 32 characters); returns its end.
inline char* exact_chars(double value, char* buf) {
  // Most numbers of a per-job table are whole, non-negative and short (-0 has its sign bit).
  if (!std::signbit(value) && value < kShortLimit) {
    const auto whole = static_cast<std::uint32_t>(value);
    if (static_cast<double>(whole) == value) return std::to_chars(buf, buf + 24, whole).ptr;
  }
  return other_exact_chars(value, buf);
}

}  // namespace detail

/// @brief Writes CSV lines to a stream as they come (per-job tables are never held whole).
/// A row is given whole (row()) or field by field (text(), exact(), integer(), counts(), empty(),
/// then end_row()): the latter formats straight into one reused buffer, with the same text as
/// field(), exact() and std::to_string, for tables of millions of rows. Rows reach the stream a
/// block at a time, and all of them at flush() or when the writer is destroyed.
class StreamWriter {
 public:
  /// Writes the header line.
  StreamWriter(std::ostream& out, const std::vector<std::string>& header);
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;
  /// Writes the rows held back.
  ~StreamWriter();
  /// @throws std::logic_error when the row's width differs from the header's. Not between the
  /// fields of a row.
  void row(const std::vector<std::string>& fields);

  /// The next field of the current row, quoted as field() does.
  StreamWriter& text(std::string_view value);
  /// The next field, quoted already.
  StreamWriter& text(const Quoted& value) { return as_is(value.text()); }
  /// The next field, empty.
  StreamWriter& empty() {
    close_field(field_room(0));
    return *this;
  }
  /// The next field as exact() writes it.
  StreamWriter& exact(double value) {
    close_field(detail::exact_chars(value, field_room(32)));
    return *this;
  }
  /// The next field, a whole number.
  StreamWriter& integer(long long value) {
    close_field(detail::integer_chars(value, field_room(24)));
    return *this;
  }
  /// The next field, the nonzero entries of @p values as "index:value" joined by ';' ("0:64;2:16",
  /// empty when there are none).
  StreamWriter& counts(std::span<const int> values);
  /// Ends the current row. @throws std::logic_error, dropping the row, when its width differs
  /// from the header's.
  void end_row();
  /// Writes the rows held back to the stream.
  void flush();

 private:
  /// Room for the next field of @p most characters and the comma after it: where to write it.
  char* field_room(std::size_t most) {
    if (used_ + most + 1 > buffer_.size()) grow(most);
    return buffer_.data() + used_;
  }
  void grow(std::size_t most);
  /// Ends the field written up to @p end with its comma (end_row() turns the last into '\n').
  void close_field(char* end) {
    *end++ = ',';
    used_ = static_cast<std::size_t>(end - buffer_.data());
    ++pending_;
  }
  /// The next field, @p value already quoted when it needs to be.
  StreamWriter& as_is(std::string_view value) {
    char* at = field_room(value.size());
    if (!value.empty()) std::memcpy(at, value.data(), value.size());
    close_field(at + value.size());
    return *this;
  }
  void write(const char* text, std::size_t size);

  /// Rows are written once this many characters are held: a write per row cost as much as
  /// formatting three numbers.
  static constexpr std::size_t kBlock = std::size_t{32} << 10;

  std::ostream& out_;
  std::size_t columns_;
  std::size_t pending_ = 0;    //!< fields in the current row
  std::size_t row_start_ = 0;  //!< where the current row starts in buffer_
  std::size_t used_ = 0;       //!< characters in buffer_: rows held back, then the current row
  std::string buffer_;         //!< the rows' characters, then spare room (its size is its room)
};

/// @brief One record read, with the line it starts on (1-based).
struct Record {
  std::size_t line = 0;
  std::vector<std::string> fields;
};

/// @brief One record read as views of its fields, valid until the reader's next call: a job list
/// of millions of lines is read without copying each field.
struct RecordView {
  std::size_t line = 0;
  std::vector<std::string_view> fields;
  /// The fields are views into the line read, followed by its '\n' and slack, so that eight bytes
  /// may be read at the start of each (read_short_digits()); false for a record with quotes.
  bool in_line = false;
};

/// @brief Reads records one at a time from a stream (large job lists are never held whole: the
/// stream is read a block at a time).
class Reader {
 public:
  /// @param name names the input in messages ("<name>:<line>: ...").
  Reader(std::istream& in, std::string name, std::size_t block = LineReader::kBlock);
  /// @brief The next record, skipping blank and '#' lines; false at the end.
  /// @throws mcb::UsageError "<name>:<line>: <what>" for an unterminated quote or text after a
  ///         closing quote.
  bool next(Record& record);
  /// @brief next(Record&), the fields as views into the reader's buffers.
  bool next(RecordView& record);
  /// @brief Lines consumed so far (the number of the last line read).
  std::size_t line() const { return line_; }
  const std::string& name() const { return name_; }

 private:
  /// The next line holding a record, checked for plain text, without its '\r'; false at the end.
  bool record_line(std::string_view& line);
  /// Parses a record that has quotes, reading on when a quoted field spans lines.
  void parse_quoted(std::string_view line, std::vector<std::string>& fields);

  LineReader lines_;
  std::string name_;
  std::size_t line_ = 0;
  std::string text_;  //!< a record with quotes being parsed, its room kept from record to record
  std::vector<std::string> quoted_;  //!< the fields of the last record with quotes
};

/// @brief Splits one record given as text (no file, e.g. an option value "a,\"b,c\",d" -> a |
/// b,c | d). @throws std::invalid_argument naming what is wrong.
std::vector<std::string> split(std::string_view text);

/// @brief A whole CSV file: its header and its records.
struct Document {
  std::string file;
  Record header;
  std::vector<Record> rows;
  /// @throws mcb::UsageError "<file>:<line>: <what>".
  [[noreturn]] void fail(std::size_t line, const std::string& what) const;
};

/// @brief Reads @p path whole. @throws mcb::UsageError "<path>: cannot read the file", "<path>:1:
/// empty file, no header" or "<path>:<line>: ..." (see Reader); a row whose width differs from
/// the header's is refused ("<path>:<line>: 12 fields, the header has 11").
Document read_file(const std::string& path);

/// @brief read_file() of a table with one layout: its header must be @p expected (the column
/// names as join() writes them). @throws mcb::UsageError as read_file(), and "<path>:<line>:
/// unknown header '<found>'; expected '<expected>'".
Document read_table(const std::string& path, std::string_view expected);

/// @brief The keys of a table's rows so far, so that a second row with the same key is refused
/// naming the line it repeats.
template <class Key>
class KeyLines {
 public:
  explicit KeyLines(const Document& doc) : doc_(&doc) {}
  /// @param what names the row in the message ("fit for a,b,c"), built only on a repeat.
  /// @throws mcb::UsageError "<file>:<line>: <what> repeats line <first>".
  template <class Describe>
  void add(Key key, std::size_t line, Describe what) {
    const auto [it, inserted] = line_of_.emplace(std::move(key), line);
    if (!inserted) doc_->fail(line, what() + " repeats line " + std::to_string(it->second));
  }

 private:
  const Document* doc_;
  std::map<Key, std::size_t> line_of_;
};

}  // namespace mcb::csv
