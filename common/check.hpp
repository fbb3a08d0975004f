#pragma once
/// @file
/// @brief The --check mode every measurement program has: "PROGRAM --check [--ranks N]
/// [options]" parses and checks the options exactly as a run on N ranks would, without starting
/// MPI or running anything, and says what the run needs. mcb-campaign checks every
/// configuration of a spec this way, so a spec is checked by the code its runs will use.

#include <functional>
#include <string>

namespace mcb::cli {

/// @brief What a run of the checked options needs.
struct RunShape {
  int ranks = 0;     //!< processes
  int clusters = 1;  //!< clusters they are split over
};

/// @brief Parses and checks argv as a run on @p ranks processes would (0: not given; the
/// program derives it from its options or refuses). @throws mcb::UsageError (cli::ValueError
/// for a value wrong on its own).
using CheckFunction = std::function<RunShape(int argc, const char* const* argv, int ranks)>;

/// @brief Whether argv holds --check.
bool asks_for_check(int argc, const char* const* argv);

/// @brief The --check mode. Prints one JSON line on stdout:
/// {"ranks":N,"clusters":C,"args":[...]} (args: cli::given_arguments()) and returns 0; or
/// {"refused":MESSAGE,"option":NAME,"value":true|false} ("value": the value is wrong on its
/// own, not only in this combination), prints "<program>: MESSAGE" on stderr and returns 2.
int run_check(const std::string& program, int argc, const char* const* argv,
              const CheckFunction& check);

}  // namespace mcb::cli
