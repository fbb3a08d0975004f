#pragma once
/// @file
/// @brief The front of a program with commands ("mcb-batchgrid run ...", "mcb-campaign dry-run
/// SPEC ..."): one table of commands, one help, one refusal of a missing or unknown command.

#include <functional>
#include <string>
#include <vector>

namespace mcb::cli {

/// @brief One command: its name, its lines for the help ('\n' between lines), and its body,
/// which gets the arguments from the command's name on (argv[0] is the name) and returns the
/// exit code.
struct Subcommand {
  std::string name;
  std::string summary;
  std::function<int(int argc, const char* const* argv)> run;
};

/// @brief Runs the command argv[1] names with argv[1..]. "--help", "-h" or "help" print
/// "Usage: @p usage", the commands with their lines, and @p details when not empty.
/// @throws UsageError "command: missing (one of a, b); see --help" without a command and
///         "command: '<name>' is not one of a, b" for a name not in @p commands.
int run_subcommand(int argc, const char* const* argv, const std::vector<Subcommand>& commands,
                   const std::string& usage, const std::string& details = "");

}  // namespace mcb::cli
