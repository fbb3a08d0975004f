#pragma once
/// @file
/// @brief Reading a campaign spec's entries into typed settings, one key at a time, with the
/// one-line refusals every section shares (spec.cpp, coalloc_spec.cpp).

#include "common/errors.hpp"
#include "common/ini.hpp"
#include "common/text.hpp"
#include "common/units.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mcb::campaign {

double parse_seconds(const std::string& text);

namespace spec_detail {

/// @brief Whether a key may appear on several lines of its section.
struct KeyRule {
  bool repeatable = false;
};
using KnownKeys = std::map<std::string, std::map<std::string, KeyRule>>;

// Characters a value may hold when it lands in a batch directive (#SBATCH, #PBS) unquoted.
inline bool directive_safe(const std::string& value, const std::string& extra = "") {
  if (value.empty()) return false;
  for (const char c : value) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || extra.find(c) != std::string::npos;
    if (!ok) return false;
  }
  return true;
}

inline bool env_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (const char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

inline std::string absolute_from(const std::string& base, const std::string& path) {
  const std::filesystem::path p(path);
  return (p.is_absolute() ? p : std::filesystem::path(base) / p).lexically_normal().string();
}

// Reads the entries of one spec into the struct, one key at a time.
class SpecReader {
 public:
  explicit SpecReader(const ini::File& file) : file_(file) {}

  /// @brief The spec's path, for messages about a key that is missing.
  const std::string& where_file() const { return file_.path; }

  // Every entry, checked for known section and key and for repeats.
  void check_keys(const KnownKeys& known) const {
    std::map<std::pair<std::string, std::string>, int> first_line;
    for (const ini::Entry& e : file_.entries) {
      const std::string where = file_.where(e.line);
      if (e.section == "options") continue;  // application options: checked against its --help
      const auto section = known.find(e.section);
      if (section == known.end()) {
        throw UsageError(where + ": unknown section [" + e.section +
                         "] (known: options, local, smpi, slurm, pbs, coalloc)");
      }
      const auto rule = section->second.find(e.key);
      if (rule == section->second.end()) {
        throw UsageError(where + ": unknown key '" + e.key + "'" +
                         (e.section.empty() ? "" : " in [" + e.section + "]"));
      }
      const auto [it, inserted] = first_line.emplace(std::make_pair(e.section, e.key), e.line);
      if (!inserted && !rule->second.repeatable) {
        throw UsageError(where + ": " + e.key + ": set twice (first on line " +
                         std::to_string(it->second) + ")");
      }
    }
  }

  const ini::Entry* find(const std::string& section, const std::string& key) const {
    for (const ini::Entry& e : file_.entries) {
      if (e.section == section && e.key == key) return &e;
    }
    return nullptr;
  }

  std::vector<const ini::Entry*> all(const std::string& section, const std::string& key) const {
    std::vector<const ini::Entry*> found;
    for (const ini::Entry& e : file_.entries) {
      if (e.section == section && e.key == key) found.push_back(&e);
    }
    return found;
  }

  UsageError error(const ini::Entry& e, const std::string& detail) const {
    return UsageError(file_.where(e.line) + ": " + e.key + ": " + detail);
  }

  std::string text(const ini::Entry& e) const {
    try {
      return ini::single_value(e.value);
    } catch (const std::invalid_argument& err) {
      throw error(e, err.what());
    }
  }

  std::vector<std::string> words(const ini::Entry& e) const {
    try {
      return ini::split_words(e.value);
    } catch (const std::invalid_argument& err) {
      throw error(e, err.what());
    }
  }

  void set_string(const std::string& section, const std::string& key, std::string& out) const {
    if (const ini::Entry* e = find(section, key)) out = text(*e);
  }

  void set_int(const std::string& section, const std::string& key, int& out, int minimum) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    const std::string value = text(*e);
    const std::optional<long> parsed = whole_number(value);
    if (!parsed) throw error(*e, "'" + value + "' is not a whole number");
    if (*parsed < minimum || *parsed > 1000000) {
      throw error(*e, "'" + value + "' must be at least " + std::to_string(minimum));
    }
    out = static_cast<int>(*parsed);
  }

  void set_seconds(const std::string& section, const std::string& key, double& out,
                   bool allow_zero) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    const std::string value = text(*e);
    try {
      out = parse_seconds(value);
    } catch (const std::invalid_argument& err) {
      throw error(*e, err.what());
    }
    if (!allow_zero && out <= 0) throw error(*e, "'" + value + "' must be positive");
  }

  void set_words(const std::string& section, const std::string& key,
                 std::vector<std::string>& out) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    out = words(*e);
    if (out.empty()) throw error(*e, "empty value");
  }

  // A name that goes into a batch directive as is: letters, digits and a few safe marks only.
  void set_directive_name(const std::string& section, const std::string& key,
                          std::string& out) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    out = text(*e);
    if (!directive_safe(out)) {
      throw error(*e, "'" + out + "' may hold only letters, digits, '-', '_' and '.'");
    }
  }

  void set_directives(const std::string& section, std::vector<std::string>& out) const {
    for (const ini::Entry* e : all(section, "directive")) {
      const std::string value = text(*e);
      if (value.empty() || value.front() != '-') {
        throw error(*e, "'" + value + "' is not an option (it must start with '-')");
      }
      out.push_back(value);
    }
  }

  void set_file(const std::string& section, const std::string& key, const std::string& base,
                std::string& out) const {
    const ini::Entry* e = find(section, key);
    if (!e) return;
    out = absolute_from(base, text(*e));
    if (!std::filesystem::is_regular_file(out)) throw error(*e, "'" + out + "' is not a file");
  }

 private:
  const ini::File& file_;
};

}  // namespace spec_detail
}  // namespace mcb::campaign
