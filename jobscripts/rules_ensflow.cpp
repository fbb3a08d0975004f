// Ensflow: the ensemble's M members are spread evenly over the P processes, so P must divide M.
#include "jobscripts/app_rules.hpp"

#include <string>

namespace mcb::campaign {
namespace {

class EnsflowRules : public AppRules {
 public:
  RuleOutcome evaluate(const Combination& c) const override {
    const int ranks = required_ranks(c, "processes P per run");
    const auto members = c.integer("members");
    if (!members) return {ranks, ""};  // the application's own default applies
    if (*members < 2) {
      return {ranks, "members = " + std::to_string(*members) +
                         " is below 2 (the ensemble spread needs two members)"};
    }
    if (*members % ranks != 0) {
      return {ranks, "P = " + std::to_string(ranks) +
                         " processes do not divide M = " + std::to_string(*members) + " members"};
    }
    return {ranks, ""};
  }
};

}  // namespace

std::unique_ptr<AppRules> make_ensflow_rules() { return std::make_unique<EnsflowRules>(); }

}  // namespace mcb::campaign
