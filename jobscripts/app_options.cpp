#include "jobscripts/app_options.hpp"

#include "jobscripts/process.hpp"

#include <regex>
#include <sstream>
#include <stdexcept>

namespace mcb::campaign {

AppOptions AppOptions::from_help(const std::string& help) {
  // "  --name", optionally "-x [ --name ]", then " VALUE" (one blank) and " (=default)". The
  // description starts after two or more blanks, so a switch has nothing after its name but blanks.
  static const std::regex line_pattern(
      R"(^  (?:-[A-Za-z0-9] \[ )?--([A-Za-z0-9][A-Za-z0-9_-]*)(?: \])?(?: ([^ (][^ ]*))?(?: \(=([^)]*)\))?(?:  |$))");
  AppOptions table;
  std::istringstream in(help);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, line_pattern)) continue;
    AppOption option;
    option.name = m[1].str();
    option.takes_value = m[2].matched;
    option.value_name = m[2].str();
    if (m[3].matched) option.default_value = m[3].str();
    if (!table.find(option.name)) table.options_.push_back(std::move(option));
  }
  return table;
}

AppOptions AppOptions::query(const std::string& binary) {
  const Captured help = capture({binary, "--help"}, "", 60);
  if (!help.start_error.empty()) throw std::runtime_error("cannot run " + help.start_error);
  if (help.timed_out) throw std::runtime_error("'" + binary + " --help' did not end in 60 s");
  if (!help.status.success()) {
    throw std::runtime_error("'" + binary + " --help' ended with " + help.status.describe());
  }
  AppOptions table = from_help(help.out);
  if (table.options_.empty()) {
    throw std::runtime_error("'" + binary + " --help' lists no --options");
  }
  return table;
}

const AppOption* AppOptions::find(const std::string& name) const {
  for (const AppOption& o : options_) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

}  // namespace mcb::campaign
