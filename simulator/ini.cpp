#include "simulator/ini.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"

#include <fstream>

namespace mcb::sim {

std::vector<IniSection> read_ini(const std::string& path, const std::string& option) {
  std::ifstream in(path);
  if (!in) throw UsageError(option + ": cannot read '" + path + "'");
  std::vector<IniSection> sections(1);
  std::string raw;
  long number = 0;
  while (std::getline(in, raw)) {
    ++number;
    const auto where = option + ": " + path + ":" + std::to_string(number) + ": ";
    // Section names become application names in JSON records: plain text only.
    if (const std::string problem = text_problem(raw); !problem.empty())
      throw UsageError(where + problem);
    std::string line = raw;
    const auto comment = line.find_first_of("#;");
    if (comment != std::string::npos) line.erase(comment);
    line = trim(line);
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']') throw UsageError(where + "'" + trim(raw) + "' lacks the closing ']'");
      IniSection s;
      s.name = trim(line.substr(1, line.size() - 2));
      if (s.name.empty()) throw UsageError(where + "empty section name");
      s.line = number;
      sections.push_back(std::move(s));
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      throw UsageError(where + "'" + trim(raw) + "' is not 'key = value' or '[section]'");
    }
    IniEntry e{trim(line.substr(0, eq)), trim(line.substr(eq + 1)), number};
    if (e.key.empty()) throw UsageError(where + "empty key");
    sections.back().entries.push_back(std::move(e));
  }
  if (sections.front().entries.empty()) sections.erase(sections.begin());
  return sections;
}

}  // namespace mcb::sim
