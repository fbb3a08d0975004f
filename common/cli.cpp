#include "common/cli.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace mcb::cli {
namespace {

// The text of a --config file, refused when it is a directory (a stream on one reads as empty),
// unreadable, or not plain UTF-8 text; the message names the line.
std::string read_config_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError("--config: '" + path + "' is a directory, not a file");
  }
  std::ifstream in(path);
  if (!in) throw UsageError("--config: cannot read '" + path + "'");
  std::string text, line;
  for (long number = 1; std::getline(in, line); ++number) {
    if (const std::string problem = text_problem(line); !problem.empty()) {
      throw UsageError("--config: " + path + ":" + std::to_string(number) + ": " + problem);
    }
    text += line;
    text += '\n';
  }
  if (in.bad()) throw UsageError("--config: cannot read '" + path + "'");
  return text;
}

}  // namespace

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
      std::istringstream in(read_config_text(path));
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

// NaN and inf are refused too: no option of the suite means them.
void require_non_negative(const std::string& option, double value) {
  if (!(value >= 0) || !std::isfinite(value)) {
    std::ostringstream os;
    os << "--" << option << ": '" << value << "' must be a finite number >= 0";
    throw UsageError(os.str());
  }
}

}  // namespace mcb::cli
