#include "calibration/csv.hpp"

#include <cstdio>
#include <stdexcept>

namespace mcb::calib {

std::string format_number(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", value);
  return buf;
}

std::string format_optional(const std::optional<double>& value) {
  return value ? format_number(*value) : std::string();
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

CsvWriter::CsvWriter(const std::vector<std::string>& header) : columns_(header.size()) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (i > 0) text_ += ',';
    text_ += csv_field(header[i]);
  }
  text_ += '\n';
}

void CsvWriter::row(const std::vector<std::string>& fields) {
  if (fields.size() != columns_) {
    throw std::logic_error("CSV row with " + std::to_string(fields.size()) +
                           " fields, header has " + std::to_string(columns_));
  }
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) text_ += ',';
    text_ += csv_field(fields[i]);
  }
  text_ += '\n';
  ++rows_;
}

std::vector<std::string> split_csv_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> fields;
  std::string current;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        current += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        current += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (quoted) throw std::invalid_argument("unterminated quoted field");
  fields.push_back(std::move(current));
  return fields;
}

}  // namespace mcb::calib
