#include "jobscripts/expansion.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"
#include "jobscripts/shell.hpp"

#include <filesystem>
#include <set>

namespace mcb::campaign {
namespace {

constexpr std::size_t kMaxConfigurations = 1000000;

// Set by mcb-campaign for every run; a spec may not set them.
const std::set<std::string>& reserved_keys() {
  static const std::set<std::string> keys = {"run-id", "campaign", "repetition", "output",
                                             "help",   "config",   "check"};
  return keys;
}

// Keys mcb-campaign or the executor set; the rest go to the application as they are.
void check_keys(const CampaignSpec& spec) {
  for (const OptionAxis& axis : spec.options) {
    const std::string where = spec.file.where(axis.line);
    if (reserved_keys().count(axis.key)) {
      throw UsageError(where + ": '" + axis.key + "' is set by mcb-campaign for each run");
    }
    if (axis.key == "cluster-map" && spec.executor != "local") {
      throw UsageError(where + ": 'cluster-map' is set by the " + spec.executor +
                       " executor from each run's allocation");
    }
  }
}

// The 'ranks' key (processes per run, not an option of the application); nullopt when absent.
std::optional<int> ranks_of(const CampaignSpec& spec,
                            const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [key, value] : values) {
    if (key != "ranks") continue;
    const std::optional<long> ranks = whole_number(value);
    if (!ranks || *ranks < 1 || *ranks > 1000000) {
      throw UsageError(spec.file.where(spec.axis("ranks")->line) + ": ranks: '" + value +
                       "' must be a positive process count");
    }
    return static_cast<int>(*ranks);
  }
  return std::nullopt;
}

// The application's answer; a value it refuses on its own refuses the spec at that value's line.
CheckAnswer ask(const CampaignSpec& spec, const Checker& check,
                const std::vector<std::pair<std::string, std::string>>& values) {
  std::vector<std::pair<std::string, std::string>> options;
  for (const auto& kv : values) {
    if (kv.first != "ranks") options.push_back(kv);
  }
  CheckAnswer answer = check(options, ranks_of(spec, values));
  if (answer.accepted || !answer.bad_value) return answer;
  const std::string program = std::filesystem::path(spec.binary).filename().string();
  const OptionAxis* axis = spec.axis(answer.option);
  const std::string where = axis ? spec.file.where(axis->line) : spec.file.path;
  const std::string key = answer.option.empty() ? "" : answer.option + ": ";
  throw UsageError(where + ": " + key + program + " refuses it: " + answer.refusal);
}

// Checks that hold for every application: clusters, the even split, the executor's clusters.
std::string generic_invalid(const CampaignSpec& spec, int ranks, int clusters) {
  if (ranks % clusters != 0) {
    return std::to_string(ranks) + " ranks cannot be split evenly over " +
           std::to_string(clusters) + " clusters";
  }
  const int available = spec.executor_clusters();
  if (available > 0 && clusters > available) {
    return "the " + spec.executor + " executor lists " + std::to_string(available) +
           " cluster(s); this run needs " + std::to_string(clusters);
  }
  if (spec.executor == "pbs" && (ranks / clusters) % spec.pbs.procs_per_chunk != 0) {
    return std::to_string(ranks / clusters) + " ranks per cluster do not fill chunks of " +
           std::to_string(spec.pbs.procs_per_chunk) + " (procs-per-chunk)";
  }
  return "";
}

}  // namespace

std::size_t Plan::invalid_count() const {
  std::size_t n = 0;
  for (const Configuration& c : configurations) n += c.invalid.empty() ? 0 : 1;
  return n;
}

Plan expand(const CampaignSpec& spec, const Checker& check) {
  check_keys(spec);
  const std::vector<OptionAxis>& axes = spec.options;
  std::size_t total = 1;
  for (const OptionAxis& a : axes) {
    total *= a.values.size();
    if (total > kMaxConfigurations) {
      throw UsageError(spec.file.path + ": the sweep has more than " +
                       std::to_string(kMaxConfigurations) + " combinations");
    }
  }
  Plan plan;
  // The first axis varies slowest: values appended to it keep every earlier index.
  std::vector<std::size_t> position(axes.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    Configuration config;
    config.index = static_cast<int>(n + 1);
    for (std::size_t a = 0; a < axes.size(); ++a) {
      config.values.emplace_back(axes[a].key, axes[a].values[position[a]]);
    }
    const CheckAnswer answer = ask(spec, check, config.values);
    if (answer.accepted) {
      config.ranks = answer.ranks;
      config.clusters = answer.clusters;
      config.app_args = answer.args;
      config.invalid = generic_invalid(spec, config.ranks, config.clusters);
    } else {
      config.ranks = ranks_of(spec, config.values).value_or(0);
      config.invalid = answer.refusal;
    }
    plan.configurations.push_back(std::move(config));
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++position[a] < axes[a].values.size()) break;
      position[a] = 0;
    }
  }
  for (int r = 1; r <= spec.repetitions; ++r) {
    for (std::size_t i = 0; i < plan.configurations.size(); ++i) {
      const Configuration& c = plan.configurations[i];
      if (!c.invalid.empty()) continue;
      const std::string key = std::to_string(c.index) + "-r" + std::to_string(r);
      plan.runs.push_back({i, r, spec.name + "-" + key, key});
    }
  }
  return plan;
}

std::string Configuration::describe() const {
  std::string text;
  for (const auto& [k, v] : values) {
    text += text.empty() ? "" : " ";
    text += k + "=" + display_word(v);
  }
  return text;
}

std::string refusal(const CampaignSpec& spec, const Plan& plan) {
  // Skipping every combination would report "0 runs" and succeed: a spec that runs nothing.
  if (plan.runs.empty()) {
    for (const Configuration& c : plan.configurations) {
      if (c.invalid.empty()) continue;
      return spec.where("", "on-invalid") + ": none of the " +
             std::to_string(plan.configurations.size()) + " combination(s) can run; first #" +
             std::to_string(c.index) + " (" + c.describe() + "): " + c.invalid;
    }
    return spec.file.path + ": the campaign has no runs";
  }
  if (spec.on_invalid != OnInvalid::refuse) return "";
  for (const Configuration& c : plan.configurations) {
    if (c.invalid.empty()) continue;
    return spec.where("", "on-invalid") + ": on-invalid = refuse, and " +
           std::to_string(plan.invalid_count()) + " combination(s) cannot run; first #" +
           std::to_string(c.index) + " (" + c.describe() + "): " + c.invalid +
           " (mcb-campaign dry-run lists them all)";
  }
  return "";
}

nlohmann::json Plan::to_json(const CampaignSpec& spec) const {
  using nlohmann::json;
  json configs = json::array();
  for (const Configuration& c : configurations) {
    json values = json::object();
    for (const auto& [k, v] : c.values) values[k] = v;
    configs.push_back({{"index", c.index},
                       {"values", values},
                       {"ranks", c.ranks},
                       {"clusters", c.clusters},
                       {"args", c.app_args},
                       {"invalid", c.invalid.empty() ? json(nullptr) : json(c.invalid)}});
  }
  json run_list = json::array();
  for (const PlannedRun& r : runs) {
    run_list.push_back(
        {{"id", r.id}, {"key", r.key}, {"index", of(r).index}, {"repetition", r.repetition}});
  }
  return {
      {"schema", "mcb-campaign-plan/1"}, {"campaign", spec.name},     {"app", spec.app},
      {"binary", spec.binary},           {"folder", spec.folder},     {"executor", spec.executor},
      {"repetitions", spec.repetitions}, {"configurations", configs}, {"runs", run_list}};
}

}  // namespace mcb::campaign
