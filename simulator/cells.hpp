#pragma once
/// @file
/// @brief The plain comma-separated text of the simulator's hand-written inputs (CSV job lists,
/// runtime tables): blank lines and '#' comments are skipped, cells are trimmed, no quoting.

#include <istream>
#include <string>
#include <vector>

namespace mcb::sim {

/// @brief Reads into @p line the next line that is neither blank nor a '#' comment, counting
/// every line read in @p number (for messages that name the line). False at the end.
bool next_content_line(std::istream& in, std::string& line, long& number);

/// @brief The cells of @p line split at @p sep, each trimmed; a trailing separator gives an
/// empty last cell.
std::vector<std::string> split_cells(const std::string& line, char sep);

}  // namespace mcb::sim
