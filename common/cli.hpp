#pragma once
/// @file
/// @brief The shared front of every mcb program: Boost.Program_options parsing with --help and
/// --config, and the rule that bad input ends with exit code 2 and one line on stderr.

#include <boost/program_options.hpp>

#include <functional>
#include <string>

namespace mcb::cli {

namespace po = boost::program_options;

/// @brief Result of parsing: the variables, or a note that --help was printed.
struct Parsed {
  po::variables_map vm;
  bool help_printed = false;
};

/// @brief Parses the command line against @p options plus --help and --config FILE (an INI file
/// with the same option names; the command line wins over it). Prints help for --help.
/// @param usage one line shown above the option list, e.g. "mcb-poisson [options]".
/// @throws UsageError naming the option and the value for unknown options, bad values,
///         missing or unreadable config files.
Parsed parse(int argc, const char* const* argv, const po::options_description& options,
             const std::string& usage);

/// @brief Runs a program body, mapping errors to exit codes: UsageError prints
/// "<program>: <message>" and returns 2; any other exception prints "<program>: error: ..." and
/// returns 1; otherwise the body's own return value.
int run(const std::string& program, const std::function<int()>& body);

/// @brief Throws UsageError "--name: '<value>' must be positive" unless value > 0.
void require_positive(const std::string& option, long long value);

/// @brief Throws UsageError "--name: '<value>' must be >= 0" unless value >= 0.
void require_non_negative(const std::string& option, double value);

}  // namespace mcb::cli
