#pragma once
/// @file
/// @brief What an application's options mean for a run's shape (how many ranks) and which
/// combinations it cannot run, so a campaign reports them before anything starts. One file per
/// application (rules_<app>.cpp); applications without one need a 'ranks' key.

#include "common/errors.hpp"
#include "jobscripts/app_options.hpp"
#include "jobscripts/spec.hpp"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

/// @brief One combination of swept values, read with the application's defaults behind it.
class Combination {
 public:
  Combination(const CampaignSpec& spec, const AppOptions& options,
              std::vector<std::pair<std::string, std::string>> values);

  /// @brief The value given for @p key, else the application's default, else nullopt.
  std::optional<std::string> get(const std::string& key) const;
  bool given(const std::string& key) const;
  /// @brief get(key) as a whole number; nullopt when absent.
  /// @throws mcb::UsageError "<spec>:<line>: <key>: '<value>' is not a whole number".
  std::optional<long> integer(const std::string& key) const;
  /// @brief A UsageError pointing at @p key's line in the spec.
  mcb::UsageError error(const std::string& key, const std::string& detail) const;
  const std::vector<std::pair<std::string, std::string>>& values() const { return values_; }

 private:
  const CampaignSpec& spec_;
  const AppOptions& options_;
  std::vector<std::pair<std::string, std::string>> values_;
};

/// @brief A combination's shape, or why it cannot run.
struct RuleOutcome {
  int ranks = 0;
  std::string invalid;  //!< "" when the combination can run
};

/// @brief An application's rules.
class AppRules {
 public:
  virtual ~AppRules() = default;
  /// @brief Ranks of @p c, or the reason it cannot run. @throws mcb::UsageError for values
  /// that are not what the key needs (a number, HxV...).
  virtual RuleOutcome evaluate(const Combination& c) const = 0;
};

/// @brief The rules of @p app (poisson, ensflow), or the generic ones: ranks from 'ranks'.
std::unique_ptr<AppRules> rules_for(const std::string& app);

std::unique_ptr<AppRules> make_poisson_rules();
std::unique_ptr<AppRules> make_ensflow_rules();
std::unique_ptr<AppRules> make_generic_rules();

/// @brief The 'ranks' key of @p c as a positive count; nullopt when absent.
std::optional<int> ranks_key(const Combination& c);

/// @brief ranks_key(c) for applications whose process count is only the 'ranks' key.
/// @throws mcb::UsageError "... needs 'ranks' (<meaning>)" when it is absent.
int required_ranks(const Combination& c, const std::string& meaning);

}  // namespace mcb::campaign
