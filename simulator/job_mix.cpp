#include "simulator/job_mix.hpp"

#include "common/errors.hpp"
#include "common/ini.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace mcb::sim {

Rule parse_rule(std::string_view name) {
  if (name == "no") return Rule::kNo;
  if (name == "co") return Rule::kCo;
  if (name == "rco") return Rule::kRco;
  if (name == "fco") return Rule::kFco;
  throw std::invalid_argument("'" + std::string(name) +
                              "' is not a co-allocation rule (no, co, rco, fco)");
}

std::string_view to_string(Rule rule) {
  switch (rule) {
    case Rule::kNo:
      return "no";
    case Rule::kCo:
      return "co";
    case Rule::kRco:
      return "rco";
    case Rule::kFco:
      return "fco";
  }
  return "?";
}

RuleLimits rule_limits(Rule rule, int component_limit) {
  switch (rule) {
    case Rule::kNo:
      return {1, 0};
    case Rule::kCo:
      return {0, 0};
    case Rule::kRco:
      return {0, component_limit};
    case Rule::kFco:
      return {2, component_limit};
  }
  return {};
}

void bound_flexible(Request& r, const RuleLimits& rule, const FlexBounds& user,
                    const RuleLimits& own, int own_min_component) {
  const auto tighter = [](int a, int b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); };
  r.max_component = tighter(own.max_component, rule.max_component);
  r.max_components = tighter(tighter(own.max_components, rule.max_components), user.max_components);
  r.min_component = std::max({1, own_min_component, std::min(user.min_component, r.total)});
}

bool fits_distinct(std::span<const int> sizes, const MachineSpec& machine) {
  if (sizes.size() > machine.sizes.size()) return false;
  if (sizes.size() == 1) return sizes.front() <= machine.largest();  // most trace jobs
  // On the stack (machines have at most kMaxClusters clusters): trace readers ask for every job.
  // Only the first sizes.size() and clusters entries are set and read.
  std::array<int, kMaxClusters> s, c;
  if (machine.sizes.size() > c.size()) throw std::logic_error("more clusters than kMaxClusters");
  const auto ns = static_cast<long>(sizes.size()), nc = static_cast<long>(machine.sizes.size());
  std::copy(sizes.begin(), sizes.end(), s.begin());
  std::copy(machine.sizes.begin(), machine.sizes.end(), c.begin());
  std::sort(s.begin(), s.begin() + ns, std::greater<>());
  std::sort(c.begin(), c.begin() + nc, std::greater<>());
  for (long i = 0; i < ns; ++i) {
    if (s[static_cast<size_t>(i)] > c[static_cast<size_t>(i)]) return false;
  }
  return true;
}

namespace {

JobMix builtin(const std::string& name) {
  AppMix poisson{"poisson", 1, {8, 16, 32}, {1, 1, 1}, {{8, 4}}};
  AppMix ensflow{"ensflow", 1, {12, 15, 20, 30}, {1, 1, 1, 1}, {}};
  if (name == "poisson") return {name, {poisson}};
  if (name == "ensflow") return {name, {ensflow}};
  return {name, {poisson, ensflow}};
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  std::istringstream in(s);
  while (in >> w) {
    std::string part;
    std::istringstream cut(w);
    while (std::getline(cut, part, ',')) {
      if (!part.empty()) out.push_back(part);
    }
  }
  return out;
}

}  // namespace

JobMix load_mix(const std::string& name_or_path) {
  if (name_or_path == "poisson" || name_or_path == "ensflow" || name_or_path == "mixed") {
    return builtin(name_or_path);
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name_or_path, ec)) {
    throw UsageError("--workload: '" + name_or_path +
                     "' is neither a built-in mix (poisson, ensflow, mixed) nor a readable file");
  }
  JobMix mix;
  mix.name = name_or_path;
  const ini::File file = ini::read_ini(name_or_path, "--workload: ");
  const auto where = [&](int line) { return file.where(line) + ": "; };
  ini::refuse_repeats(file);
  for (const ini::Entry& e : file.entries) {
    if (e.section.empty()) {
      throw UsageError(where(e.line) + "'" + e.key + "' is outside an [application] section");
    }
  }
  for (const ini::Section& sec : file.sections) {
    AppMix app;
    app.name = sec.name;
    for (const ini::Entry& e : sec.entries) {
      const auto number = [&](const std::string& w, bool integer) {
        double v = 0;
        auto [p, err] = std::from_chars(w.data(), w.data() + w.size(), v);
        if (err != std::errc() || p != w.data() + w.size() || !std::isfinite(v) || v <= 0 ||
            (integer && (v != std::floor(v) || v > 1e9))) {
          throw UsageError(where(e.line) + e.key + ": '" + w + "' is not a " +
                           (integer ? "positive integer" : "positive number"));
        }
        return v;
      };
      if (e.key == "weight") {
        app.weight = number(e.value, false);
      } else if (e.key == "sizes") {
        for (const auto& w : words(e.value)) app.sizes.push_back(static_cast<int>(number(w, true)));
      } else if (e.key == "size_weights") {
        for (const auto& w : words(e.value)) app.size_weights.push_back(number(w, false));
      } else if (e.key == "exclude") {
        for (const auto& w : words(e.value)) {
          const auto x = w.find('x');
          if (x == std::string::npos) {
            throw UsageError(where(e.line) + "exclude: '" + w +
                             "' is not SIZExCOMPONENTS (e.g. 8x4)");
          }
          app.exclude.push_back({static_cast<int>(number(w.substr(0, x), true)),
                                 static_cast<int>(number(w.substr(x + 1), true))});
        }
      } else {
        throw UsageError(where(e.line) + "unknown key '" + e.key +
                         "' (weight, sizes, size_weights, exclude)");
      }
    }
    if (app.sizes.empty()) throw UsageError(where(sec.line) + "[" + sec.name + "] has no sizes");
    if (app.size_weights.empty()) app.size_weights.assign(app.sizes.size(), 1.0);
    if (app.size_weights.size() != app.sizes.size()) {
      throw UsageError(where(sec.line) + "[" + sec.name + "] has " +
                       std::to_string(app.size_weights.size()) + " size_weights for " +
                       std::to_string(app.sizes.size()) + " sizes");
    }
    mix.apps.push_back(std::move(app));
  }
  if (mix.apps.empty())
    throw UsageError("--workload: " + name_or_path + ": no [application] sections");
  return mix;
}

std::vector<MixChoice> mix_choices(const JobMix& mix, Rule rule, RequestType type,
                                   const MachineSpec& machine, int component_limit) {
  const RuleLimits lim = rule_limits(rule, component_limit);
  double total_weight = 0;
  for (const auto& a : mix.apps) total_weight += a.weight;
  std::vector<MixChoice> out;
  std::vector<int> parts;
  for (size_t ai = 0; ai < mix.apps.size(); ++ai) {
    const AppMix& app = mix.apps[ai];
    double size_weight = 0;
    for (double w : app.size_weights) size_weight += w;
    for (size_t si = 0; si < app.sizes.size(); ++si) {
      const int n = app.sizes[si];
      const double p = app.weight / total_weight * app.size_weights[si] / size_weight;
      if (n > machine.total()) {
        throw UsageError("--workload " + mix.name + ": app '" + app.name + "' size " +
                         std::to_string(n) + " is larger than the system (--clusters " +
                         machine.describe() + ", " + std::to_string(machine.total()) +
                         " processors)");
      }
      if (type == RequestType::kFlexible || type == RequestType::kMoldable) {
        out.push_back({static_cast<int>(ai), n, type == RequestType::kMoldable ? 1 : 0, p});
        continue;
      }
      std::vector<int> ks;
      for (int k = 1; k <= machine.clusters() && k <= n; ++k) {
        if (n % k != 0) continue;
        if (lim.max_components > 0 && k > lim.max_components) continue;
        if (lim.max_component > 0 && n / k > lim.max_component) continue;
        if (std::find(app.exclude.begin(), app.exclude.end(), std::make_pair(n, k)) !=
            app.exclude.end()) {
          continue;
        }
        near_equal(n, k, parts);
        if (!fits_distinct(parts, machine)) continue;
        ks.push_back(k);
      }
      if (ks.empty()) {
        throw UsageError("--rule " + std::string(to_string(rule)) + ": app '" + app.name +
                         "' size " + std::to_string(n) + " has no split into equal components " +
                         "the rule allows on --clusters " + machine.describe());
      }
      for (int k : ks)
        out.push_back({static_cast<int>(ai), n, k, p / static_cast<double>(ks.size())});
    }
  }
  return out;
}

}  // namespace mcb::sim
