#pragma once
/// @file
/// @brief The shared front of every mcb program: Boost.Program_options parsing with --help and
/// --config, and the rule that bad input ends with exit code 2 and one line on stderr.

#include "common/errors.hpp"

#include <boost/program_options.hpp>

#include <functional>
#include <string>
#include <vector>

namespace mcb::cli {

namespace po = boost::program_options;

/// @brief A value that is wrong on its own (its type, its range, its choices), as opposed to
/// options that contradict each other or the run. Thrown while parsing (Boost's own checks,
/// notifiers, the require_ helpers); --check reports the difference, so a campaign can refuse
/// the spec line of a bad value and skip a combination that cannot run.
class ValueError : public UsageError {
 public:
  ValueError(std::string option, const std::string& message)
      : UsageError(message), option_(std::move(option)) {}
  /// @brief The option's name without "--" ("" when unknown).
  const std::string& option() const { return option_; }

 private:
  std::string option_;
};

/// @brief Result of parsing: the variables, or a note that --help was printed.
struct Parsed {
  po::variables_map vm;
  bool help_printed = false;
};

/// @brief Parses the command line against @p options plus --help and --config FILE (an INI file
/// in the suite's dialect, common/ini.hpp, with the long option names as keys; the command line
/// wins over it). Prints help for --help.
/// @param usage one line shown above the option list, e.g. "mcb-poisson [options]".
/// @throws ValueError naming the option and the value for unknown options and bad values;
///         UsageError for missing, unreadable or malformed config files.
Parsed parse(int argc, const char* const* argv, const po::options_description& options,
             const std::string& usage);

/// @brief The options the last parse() was given (command line, then --config file), as one
/// command line: "--name value", switches that are on as "--name", values of FILE and DIR
/// options made absolute. --check prints it, so a campaign runs exactly what was checked.
const std::vector<std::string>& given_arguments();

/// @brief Whether the switch --@p name is on before any parse: given on the command line or set
/// true in the --config file (for choices that must be made before options are parsed, such as
/// MPI's thread level for --relay). A config file that cannot be read counts as not setting it.
bool switch_requested(int argc, const char* const* argv, const std::string& name);

/// @brief Runs a program body, mapping errors to exit codes: UsageError prints
/// "<program>: <message>" and returns 2; any other exception prints "<program>: error: ..." and
/// returns 1; otherwise the body's own return value.
int run(const std::string& program, const std::function<int()>& body);

/// @brief Throws ValueError "--name: '<value>' must be positive" unless value > 0.
void require_positive(const std::string& option, long long value);

/// @brief Throws ValueError "--name: '<value>' must be positive" unless value > 0 (NaN fails).
void require_positive_real(const std::string& option, double value);

/// @brief Throws ValueError "--name: '<value>' must be a finite number > 0" unless it is one
/// (inf and NaN fail).
void require_positive_finite(const std::string& option, double value);

/// @brief Throws ValueError "--name: '<value>' must be >= 0" unless value >= 0.
void require_non_negative(const std::string& option, double value);

/// @brief The caps of every count and duration an option takes (docs/DEVELOPING.md, "Hostile
/// input"): a count past 1e9 no longer fits an int, and past 1e12 s a double stops resolving
/// seconds; no run of the suite needs more, and larger values only make a program run for ever.
constexpr double kMaxCount = 1e9;
constexpr double kMaxSeconds = 1e12;

/// @brief Throws ValueError "--name: '<value>' is above the cap of <cap>" unless value <= cap.
void require_at_most(const std::string& option, double value, double cap);

/// @brief Throws ValueError "--name: '<value>' is not one of a, b" unless @p value is one of
/// @p choices.
void require_choice(const std::string& option, const std::string& value,
                    const std::vector<std::string>& choices);

}  // namespace mcb::cli
