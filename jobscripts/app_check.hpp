#pragma once
/// @file
/// @brief A campaign asks the application itself whether it takes a configuration: every
/// configuration is checked by "<program> --check" (common/check.hpp), the same option code the
/// run will use, which answers with the run's shape and its command line or the refusal.

#include "jobscripts/spec.hpp"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief The application's answer for one configuration.
struct CheckAnswer {
  bool accepted = false;
  int ranks = 0;
  int clusters = 1;
  std::vector<std::string> args;  //!< the run's options, as the application spells them
  std::string refusal;            //!< the application's one line when not accepted
  std::string option;             //!< the option it names ("" when none)
  bool bad_value = false;         //!< the value is wrong on its own, not only in this combination
};

/// @brief Asks about one configuration: its option values (key, value) and its 'ranks' key.
using Checker = std::function<CheckAnswer(
    const std::vector<std::pair<std::string, std::string>>& values, std::optional<int> ranks)>;

/// @brief The checker that runs "<spec.binary> --check [--ranks N] --output none --config F" in
/// the spec's folder, F holding the configuration as INI lines (common/ini.hpp).
/// @throws mcb::UsageError naming the binary when it does not answer as an mcb program does.
Checker application_checker(const CampaignSpec& spec);

/// @brief The configuration as the lines of a --config file: key = "value", quoted and escaped.
std::string config_text(const std::vector<std::pair<std::string, std::string>>& values);

}  // namespace mcb::campaign
