#pragma once
/// @file
/// @brief A small INI reader that keeps line numbers for messages: "[section]", "key = value",
/// comments after '#' or ';'.

#include <string>
#include <vector>

namespace mcb::sim {

struct IniEntry {
  std::string key, value;
  long line = 0;
};

struct IniSection {
  std::string name;
  long line = 0;
  std::vector<IniEntry> entries;
};

/// @brief Reads @p path. Entries before any section go to a section named "".
/// @throws UsageError "<option>: <path>:<line>: ..." on unreadable files and malformed lines.
std::vector<IniSection> read_ini(const std::string& path, const std::string& option);

}  // namespace mcb::sim
