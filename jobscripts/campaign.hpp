#pragma once
/// @file
/// @brief mcb-campaign's commands: dry-run, run, scripts, status, collect.

#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief How a local run shows its progress (--progress), typed while the options are parsed.
enum class Progress { automatic, live, lines };

/// @brief A positive time span as batch systems and specs write it (parse_seconds).
struct Seconds {
  double value = 0;
  std::string text;
};

/// @brief The options every command takes after its SPEC.
struct Options {
  std::string folder;
  std::string executor;
  std::vector<std::string> history;  //!< dry-run: more earlier records to estimate from
  bool json = false;
  bool retry_failed = false;
  bool wait = false;
  Seconds wait_limit;  //!< read only when wait_limit_given
  bool wait_limit_given = false;
  Seconds poll{2, "2s"};
  Progress progress = Progress::automatic;
};

/// @brief One command's command line: argv[0] is the command, argv[1] the spec, then the
/// options.
struct CommandLine {
  std::string command;
  std::string spec;
  Options options;
};

/// @brief Parses one command's command line (nothing is read but a --config file). False when
/// --help was printed. @throws mcb::UsageError naming the option or the word.
bool parse_command_line(int argc, const char* const* argv, CommandLine& line);

/// @brief The commands, as the program's front (common/subcommand.hpp) lists them: name and
/// help lines.
const std::vector<std::pair<std::string, std::string>>& commands();

/// @brief The whole program (main calls only this). Returns the exit code.
int run_program(int argc, char** argv);

}  // namespace mcb::campaign
