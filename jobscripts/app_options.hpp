#pragma once
/// @file
/// @brief The options an application accepts, read from its own --help, so a campaign can sweep
/// any of them and a misspelt key is caught before anything runs.

#include <optional>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief One long option of the application.
struct AppOption {
  std::string name;                          //!< without "--"
  bool takes_value = false;                  //!< false: a switch such as --sync
  std::string value_name;                    //!< "N", "FILE", "paper|exact"...
  std::optional<std::string> default_value;  //!< from "(=...)"
};

/// @brief The option table of one application binary.
class AppOptions {
 public:
  /// @brief Parses Boost.Program_options --help text ("  --grid N (=200)   description").
  static AppOptions from_help(const std::string& help);
  /// @brief Runs "@p binary --help" and parses it. @throws std::runtime_error when it fails or
  /// lists no options.
  static AppOptions query(const std::string& binary);

  const AppOption* find(const std::string& name) const;
  const std::vector<AppOption>& all() const { return options_; }

 private:
  std::vector<AppOption> options_;
};

}  // namespace mcb::campaign
