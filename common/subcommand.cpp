#include "common/subcommand.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <iostream>

namespace mcb::cli {

int run_subcommand(int argc, const char* const* argv, const std::vector<Subcommand>& commands,
                   const std::string& usage, const std::string& details) {
  std::string names;
  size_t width = 0;
  for (const Subcommand& c : commands) {
    names += (names.empty() ? "" : ", ") + c.name;
    width = std::max(width, c.name.size());
  }
  if (argc < 2) throw UsageError("command: missing (one of " + names + "); see --help");
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    std::cout << "Usage: " << usage << "\n\nCommands:\n";
    const std::string indent(width + 4, ' ');
    for (const Subcommand& c : commands) {
      std::string lines = c.summary;
      for (size_t at = lines.find('\n'); at != std::string::npos; at = lines.find('\n', at + 1)) {
        lines.insert(at + 1, indent);
      }
      std::cout << "  " << c.name << std::string(width - c.name.size() + 2, ' ') << lines << "\n";
    }
    if (!details.empty()) std::cout << "\n" << details << "\n";
    return 0;
  }
  for (const Subcommand& c : commands) {
    if (c.name == name) return c.run(argc - 1, argv + 1);
  }
  throw UsageError("command: '" + name + "' is not one of " + names);
}

}  // namespace mcb::cli
