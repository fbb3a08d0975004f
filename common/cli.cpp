#include "common/cli.hpp"

#include "common/errors.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

namespace mcb::cli {

Parsed parse(int argc, const char* const* argv, const po::options_description& options,
             const std::string& usage) {
  po::options_description common("General");
  // One option per line, as --help prints them.
  // clang-format off
  common.add_options()
      ("help,h", "print this help and exit")
      ("config", po::value<std::string>()->value_name("FILE"),
       "read options from an INI file (key = value, same names as the long options); the "
       "command line wins");
  // clang-format on
  po::options_description all;
  all.add(common).add(options);

  Parsed parsed;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).run(), parsed.vm);
    if (parsed.vm.count("help")) {
      std::cout << "Usage: " << usage << "\n\n" << all << "\n";
      parsed.help_printed = true;
      return parsed;
    }
    if (parsed.vm.count("config")) {
      const auto path = parsed.vm["config"].as<std::string>();
      std::ifstream in(path);
      if (!in) throw UsageError("--config: cannot read '" + path + "'");
      try {
        po::store(po::parse_config_file(in, options), parsed.vm);
      } catch (const po::error& e) {
        throw UsageError("--config: " + path + ": " + e.what());
      }
    }
    po::notify(parsed.vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return parsed;
}

int run(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << program << ": " << e.what() << std::endl;
    return kUsageExitCode;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << std::endl;
    return 1;
  }
}

void require_positive(const std::string& option, long long value) {
  if (value <= 0) {
    throw UsageError("--" + option + ": '" + std::to_string(value) + "' must be positive");
  }
}

void require_non_negative(const std::string& option, double value) {
  if (value < 0) {
    std::ostringstream os;
    os << "--" << option << ": '" << value << "' must be >= 0";
    throw UsageError(os.str());
  }
}

}  // namespace mcb::cli
