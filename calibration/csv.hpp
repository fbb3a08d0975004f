#pragma once
/// @file
/// @brief The small CSV dialect of calibration outputs: comma-separated, one header line, fields
/// quoted only when they hold a comma, quote or line break; numbers with 10 significant digits.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcb::calib {

/// @brief A number as written into tables ("%.10g": 1230, 0.0123456789, 3.5e+07).
std::string format_number(double value);

/// @brief An optional number: empty text when absent.
std::string format_optional(const std::optional<double>& value);

/// @brief One field, quoted when it needs to be.
std::string csv_field(std::string_view text);

/// @brief Builds CSV text: a header and rows, each line ending in '\n'.
class CsvWriter {
 public:
  explicit CsvWriter(const std::vector<std::string>& header);
  void row(const std::vector<std::string>& fields);
  const std::string& text() const { return text_; }
  std::size_t rows() const { return rows_; }

 private:
  std::size_t columns_;
  std::size_t rows_ = 0;
  std::string text_;
};

/// @brief Splits one CSV line into fields ("a,\"b,c\",d" -> a | b,c | d); a trailing '\r' is
/// dropped. @throws std::invalid_argument on an unterminated quote.
std::vector<std::string> split_csv_line(std::string_view line);

}  // namespace mcb::calib
