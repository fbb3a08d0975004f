#pragma once
/// @file
/// @brief The one error type that means "the user gave bad input": programs end with exit code 2
/// and print its message as one line naming the option, file or line and the bad value.

#include <stdexcept>
#include <string>

namespace mcb {

/// Exit code for bad input (options, files, specs, traces).
inline constexpr int kUsageExitCode = 2;

/// @brief Bad input. The message already names what was wrong ("--grid: 'abc' is not a number").
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mcb
