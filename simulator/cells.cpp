#include "simulator/cells.hpp"

#include "common/text.hpp"

#include <sstream>

namespace mcb::sim {

bool next_content_line(std::istream& in, std::string& line, long& number) {
  while (std::getline(in, line)) {
    ++number;
    const std::string content = trim(line);
    if (!content.empty() && content[0] != '#') return true;
  }
  return false;
}

std::vector<std::string> split_cells(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(trim(cell));
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

}  // namespace mcb::sim
