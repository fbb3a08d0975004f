#include "jobscripts/expansion.hpp"

#include "common/errors.hpp"
#include "jobscripts/app_rules.hpp"
#include "jobscripts/shell.hpp"

#include <filesystem>
#include <set>

namespace mcb::campaign {
namespace {

constexpr std::size_t kMaxConfigurations = 1000000;

// Set by mcb-campaign for every run; a spec may not set them.
const std::set<std::string>& reserved_keys() {
  static const std::set<std::string> keys = {"run-id", "campaign", "repetition",
                                             "output", "help",     "config"};
  return keys;
}

std::string switch_value(const std::string& value) {
  if (value == "on" || value == "yes" || value == "true") return "on";
  if (value == "off" || value == "no" || value == "false") return "off";
  return "";
}

// Checks every [options] key, normalises switch values to on/off.
std::vector<OptionAxis> checked_axes(const CampaignSpec& spec, const AppOptions& options) {
  const std::string program = std::filesystem::path(spec.binary).filename().string();
  std::vector<OptionAxis> axes = spec.options;
  for (OptionAxis& axis : axes) {
    const std::string where = spec.file.where(axis.line);
    if (axis.key == "ranks") continue;
    if (reserved_keys().count(axis.key)) {
      throw UsageError(where + ": '" + axis.key + "' is set by mcb-campaign for each run");
    }
    if (axis.key == "cluster-map" && spec.executor != "local") {
      throw UsageError(where + ": 'cluster-map' is set by the " + spec.executor +
                       " executor from each run's allocation");
    }
    const AppOption* option = options.find(axis.key);
    if (!option) {
      throw UsageError(where + ": '" + axis.key + "' is not an option of " + program + " (" +
                       program + " --help lists them)");
    }
    // A value name such as "paper|exact" lists every value the option takes.
    if (option->takes_value && option->value_name.find('|') != std::string::npos &&
        option->value_name.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ:") == std::string::npos) {
      const std::string& choices = option->value_name;
      for (const std::string& v : axis.values) {
        if (("|" + choices + "|").find("|" + v + "|") == std::string::npos) {
          std::string list = choices;
          for (std::size_t p = list.find('|'); p != std::string::npos; p = list.find('|', p)) {
            list.replace(p, 1, ", ");
          }
          throw UsageError(where + ": " + axis.key + ": '" + v + "' is not one of " + list + " (" +
                           program + " --help)");
        }
      }
    }
    if (!option->takes_value) {
      for (std::string& v : axis.values) {
        const std::string normal = switch_value(v);
        if (normal.empty()) {
          throw UsageError(where + ": " + axis.key + ": '" + v + "' is not on or off (--" +
                           axis.key + " is a switch)");
        }
        v = normal;
      }
      std::set<std::string> seen(axis.values.begin(), axis.values.end());
      if (seen.size() != axis.values.size()) {
        throw UsageError(where + ": " + axis.key + ": on and off are each listed once at most");
      }
    }
  }
  return axes;
}

// The application's options for one configuration; file names relative to the spec's folder.
std::vector<std::string> application_args(
    const CampaignSpec& spec, const AppOptions& options,
    const std::vector<std::pair<std::string, std::string>>& values) {
  std::vector<std::string> args;
  for (const auto& [key, value] : values) {
    if (key == "ranks") continue;
    const AppOption* option = options.find(key);
    if (!option->takes_value) {
      if (value == "on") args.push_back("--" + key);
      continue;
    }
    std::string v = value;
    if ((option->value_name == "FILE" || option->value_name == "DIR") && !v.empty() &&
        v.front() != '/') {
      v = (std::filesystem::path(spec.dir) / v).lexically_normal().string();
    }
    args.push_back("--" + key);
    args.push_back(v);
  }
  return args;
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

Plan expand(const CampaignSpec& spec, const AppOptions& options) {
  const std::vector<OptionAxis> axes = checked_axes(spec, options);
  std::size_t total = 1;
  for (const OptionAxis& a : axes) {
    total *= a.values.size();
    if (total > kMaxConfigurations) {
      throw UsageError(spec.file.path + ": the sweep has more than " +
                       std::to_string(kMaxConfigurations) + " combinations");
    }
  }
  const auto rules = rules_for(spec.app);
  Plan plan;
  // The first axis varies slowest: values appended to it keep every earlier index.
  std::vector<std::size_t> position(axes.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    std::vector<std::pair<std::string, std::string>> values;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      values.emplace_back(axes[a].key, axes[a].values[position[a]]);
    }
    const Combination combination(spec, options, values);
    Configuration config;
    config.index = static_cast<int>(n + 1);
    config.values = values;
    const RuleOutcome outcome = rules->evaluate(combination);
    config.ranks = outcome.ranks;
    const long clusters = combination.integer("clusters").value_or(1);
    if (clusters < 1 || clusters > 100000) {
      throw combination.error("clusters", "'" + std::to_string(clusters) + "' must be positive");
    }
    config.clusters = static_cast<int>(clusters);
    config.invalid = outcome.invalid;
    if (config.invalid.empty()) {
      config.invalid = generic_invalid(spec, config.ranks, config.clusters);
    }
    config.app_args = application_args(spec, options, values);
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
