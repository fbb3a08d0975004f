#include "jobscripts/app_rules.hpp"

#include "common/errors.hpp"

namespace mcb::campaign {

Combination::Combination(const CampaignSpec& spec, const AppOptions& options,
                         std::vector<std::pair<std::string, std::string>> values)
    : spec_(spec), options_(options), values_(std::move(values)) {}

bool Combination::given(const std::string& key) const {
  for (const auto& [k, v] : values_) {
    if (k == key) return true;
  }
  return false;
}

std::optional<std::string> Combination::get(const std::string& key) const {
  for (const auto& [k, v] : values_) {
    if (k == key) return v;
  }
  if (const AppOption* o = options_.find(key); o && o->default_value) return o->default_value;
  return std::nullopt;
}

std::optional<long> Combination::integer(const std::string& key) const {
  const auto text = get(key);
  if (!text) return std::nullopt;
  std::size_t used = 0;
  long value = 0;
  try {
    value = std::stol(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text->size()) throw error(key, "'" + *text + "' is not a whole number");
  return value;
}

UsageError Combination::error(const std::string& key, const std::string& detail) const {
  const OptionAxis* axis = spec_.axis(key);
  const std::string where = axis ? spec_.file.where(axis->line) : spec_.file.path;
  return UsageError(where + ": " + key + ": " + detail);
}

std::optional<int> ranks_key(const Combination& c) {
  if (!c.given("ranks")) return std::nullopt;
  const long ranks = *c.integer("ranks");
  if (ranks < 1 || ranks > 1000000) {
    throw c.error("ranks", "'" + *c.get("ranks") + "' must be a positive process count");
  }
  return static_cast<int>(ranks);
}

int required_ranks(const Combination& c, const std::string& meaning) {
  const auto ranks = ranks_key(c);
  if (!ranks) throw c.error("ranks", "missing: [options] needs 'ranks' (" + meaning + ")");
  return *ranks;
}

namespace {

// Applications without rules of their own: the process count is the 'ranks' key.
class GenericRules : public AppRules {
 public:
  RuleOutcome evaluate(const Combination& c) const override {
    return {required_ranks(c, "processes per run"), ""};
  }
};

}  // namespace

std::unique_ptr<AppRules> make_generic_rules() { return std::make_unique<GenericRules>(); }

std::unique_ptr<AppRules> rules_for(const std::string& app) {
  if (app == "poisson") return make_poisson_rules();
  if (app == "ensflow") return make_ensflow_rules();
  return make_generic_rules();
}

}  // namespace mcb::campaign
