#pragma once
/// @file
/// @brief The campaign spec file as written: INI lines in Boost.Program_options' config syntax
/// ("key = value", "[section]", '#' comments), each entry remembered with its line so every
/// message can point at it.

#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief One "key = value" line.
struct SpecEntry {
  std::string section;  //!< "" for keys before the first [section]
  std::string key;
  std::string raw;  //!< the value as written, comment and outer blanks removed
  int line = 0;
};

/// @brief The entries of a spec file in file order.
struct SpecFile {
  std::string path;
  std::vector<SpecEntry> entries;

  /// @brief "<path>:<line>" for messages.
  std::string where(int line) const { return path + ":" + std::to_string(line); }
};

/// @brief Reads @p path. @throws mcb::UsageError naming the file (and line) for an unreadable
/// file, a line that is neither "key = value" nor "[section]", or a bad section name.
SpecFile read_spec_file(const std::string& path);

/// @brief Splits a value into words at blanks; "double quoted" words keep blanks and may hold
/// escaped quotes and backslashes. @throws std::invalid_argument for an unterminated quote.
std::vector<std::string> split_words(const std::string& raw);

/// @brief A single value: the raw text, or the inside of one "double quoted" word.
/// @throws std::invalid_argument for a bad quote.
std::string single_value(const std::string& raw);

}  // namespace mcb::campaign
