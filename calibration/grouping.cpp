#include "calibration/grouping.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace mcb::calib {
namespace {

using nlohmann::json;

std::string describe(const json* value) { return value == nullptr ? "absent" : value->dump(); }

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// Relative path of the first difference inside two unequal values; "" when they differ as wholes
// (different types, scalars, arrays of different length).
std::string difference_below(const json& a, const json& b) {
  auto nested = [](const std::string& here, const json& x, const json& y) {
    const std::string inner = difference_below(x, y);
    return inner.empty() ? here : here + "." + inner;
  };
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const auto& k : keys) {
      const auto ia = a.find(k);
      const auto ib = b.find(k);
      if (ia == a.end() || ib == b.end()) return k;
      if (*ia != *ib) return nested(k, *ia, *ib);
    }
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) return nested(std::to_string(i), a[i], b[i]);
    }
  }
  return "";
}

// A value as a user would type it after KEY= in --where.
std::string as_typed(const json* value) {
  if (value == nullptr) return "";
  return value->is_string() ? value->get<std::string>() : value->dump();
}

}  // namespace

json comparable_config(const json& config) {
  json out = without(config, {"seed", "cluster_names"});
  // Records from before --node-load have no node_load; they ran without one, as "none" says.
  if (const auto load = out.find("node_load"); load != out.end() && *load == "none") {
    out.erase(load);
  }
  const auto it = out.find("cluster_map");
  if (it != out.end() && it->is_array()) {
    std::vector<std::pair<json, int>> numbers;  // label -> renumbered cluster, first seen first
    json renumbered = json::array();
    for (const json& label : *it) {
      auto found = std::find_if(numbers.begin(), numbers.end(),
                                [&](const auto& entry) { return entry.first == label; });
      if (found == numbers.end()) {
        numbers.emplace_back(label, static_cast<int>(numbers.size()));
        found = numbers.end() - 1;
      }
      renumbered.push_back(found->second);
    }
    *it = renumbered;
  }
  return out;
}

json without(json config, const std::vector<std::string>& keys) {
  if (config.is_object()) {
    for (const auto& key : keys) config.erase(key);
  }
  return config;
}

std::string first_difference(const json& a, const json& b) {
  if (a == b) return "";
  const std::string below = difference_below(a, b);
  return below.empty() ? "(the whole value)" : below;
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t ei = i;
      std::size_t ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      // Compare digit runs as numbers: strip leading zeros, then by length, then by text.
      std::size_t si = i;
      std::size_t sj = j;
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      const int c = a.compare(si, ei - si, b, sj, ej - sj);
      if (c != 0) return c < 0;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

bool Filter::applies_to(const Record& record) const {
  const auto config = record.doc.find("config");
  return config != record.doc.end() && lookup(*config, key) != nullptr;
}

bool Filter::passes(const Record& record) const {
  const auto config = record.doc.find("config");
  if (config == record.doc.end()) return true;
  const json* v = lookup(*config, key);
  if (v == nullptr) return true;
  if (v->is_string()) return v->get<std::string>() == value;
  if (v->is_boolean()) return (v->get<bool>() ? "true" : "false") == value;
  if (v->is_null()) return value == "null";
  if (v->is_number()) {
    double wanted = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), wanted);
    return ec == std::errc() && ptr == value.data() + value.size() && v->get<double>() == wanted;
  }
  return v->dump() == value;
}

Filter parse_filter(const std::string& option, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw UsageError("--" + option + ": '" + text + "' is not KEY=VALUE (e.g. sync=false)");
  }
  return Filter{option, text, text.substr(0, eq), text.substr(eq + 1)};
}

bool Grouper::KeyLess::operator()(const std::vector<std::string>& a,
                                  const std::vector<std::string>& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), natural_less);
}

std::string Grouper::advice(const std::string& path, const json* kept) const {
  if (hint_.empty()) return "";
  bool into_array = false;  // a segment that is an index: not something to filter on
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const std::size_t end = std::min(path.find('.', begin), path.size());
    const std::string segment = path.substr(begin, end - begin);
    into_array = into_array ||
                 (!segment.empty() && std::all_of(segment.begin(), segment.end(),
                                                  [](char c) { return c >= '0' && c <= '9'; }));
    begin = end + 1;
  }
  if (kept == nullptr || kept->is_structured() || into_array) {
    return "; keep one kind with --" + hint_ + " KEY=VALUE";
  }
  return "; keep one kind with --" + hint_ + " " + path + "=" + as_typed(kept);
}

Grouper::Grouper(std::string output, std::string hint)
    : output_(std::move(output)), hint_(std::move(hint)) {}

void Grouper::add(std::vector<std::string> key, json config, const Record* run) {
  auto it = groups_.find(key);
  if (it == groups_.end()) {
    Group group{key, std::move(config), {run}};
    groups_.emplace(std::move(key), std::move(group));
    return;
  }
  Group& group = it->second;
  if (group.config != config) {
    const std::string path = first_difference(group.config, config);
    const Record* first = group.runs.front();
    throw UsageError(output_ + " row " + join(key) + ": runs differ in config." + path + " (" +
                     describe(lookup(group.config, path)) + " at " + first->where() + ", " +
                     describe(lookup(config, path)) + " at " + run->where() + ")" +
                     advice(path, lookup(group.config, path)));
  }
  group.runs.push_back(run);
}

std::vector<Group> Grouper::groups() const {
  std::vector<Group> out;
  out.reserve(groups_.size());
  for (const auto& [key, group] : groups_) out.push_back(group);
  return out;
}

}  // namespace mcb::calib
