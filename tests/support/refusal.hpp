#pragma once
// The one-line refusal (mcb::UsageError) that bad input must end with, caught for a test.
// No other test support is needed to use it.

#include "common/errors.hpp"

#include <functional>
#include <string>

namespace mcb::testing {

// The message of the UsageError @p f throws ("" when it throws none).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace mcb::testing
