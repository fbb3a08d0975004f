#pragma once
/// @file
/// @brief Which runs pool together. Runs pool when their configurations are equal once the keys
/// that only identify a run are taken out (see @ref comparable_config); a table row whose runs
/// would differ in any other configuration field is refused, naming the field.

#include "calibration/records.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mcb::calib {

/// @brief The configuration runs are compared by: `config` without `seed` (repetitions of one
/// configuration may use different seeds; the spread this causes belongs in the row's min, max
/// and stddev) and `cluster_names` (which physical clusters an allocation happened to get), and
/// with `cluster_map` renumbered in order of first appearance,
/// so [1,1,0,0] and [0,0,1,1] (the same split, labels swapped) compare equal while different
/// splits stay different. `node_load` "none" compares equal to no `node_load` at all (records
/// written before the field), while runs under different loads stay apart.
nlohmann::json comparable_config(const nlohmann::json& config);

/// @brief @p config without the given top-level keys.
nlohmann::json without(nlohmann::json config, const std::vector<std::string>& keys);

/// @brief The dotted path of the first difference between two JSON values ("" when equal).
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b);

/// @brief "Natural" order: digit runs compare as numbers, so "64x64" < "100x100".
bool natural_less(const std::string& a, const std::string& b);

/// @brief A record filter from `--where KEY=VALUE`: KEY is a dotted path inside `config`.
struct Filter {
  std::string option;  //!< the option it came from ("where", "runtime-where")
  std::string text;    //!< as given, for messages
  std::string key;
  std::string value;

  /// @brief Whether the record passes: a record without KEY passes (so `sync=false` leaves
  /// link-calibration records alone); with KEY, the value must equal VALUE (strings as text,
  /// booleans as true/false, numbers numerically, null as "null", others as compact JSON).
  bool passes(const Record& record) const;
  /// @brief Whether the record has KEY at all.
  bool applies_to(const Record& record) const;
};

/// @brief Parses "KEY=VALUE". @throws mcb::UsageError "--<option>: '<text>' ..." when malformed.
Filter parse_filter(const std::string& option, const std::string& text);

/// @brief Runs sharing one displayed key (a table row) and one compared configuration.
struct Group {
  std::vector<std::string> key;     //!< the row's key columns, as written
  nlohmann::json config;            //!< the compared configuration every run shares
  std::vector<const Record*> runs;  //!< in reading order
};

/// @brief Collects runs into groups. Two runs with the same key but different compared
/// configurations make the row ambiguous: @ref add throws mcb::UsageError naming the output,
/// the row, the first differing field with both values and places, and how to keep one kind
/// with the filter option @p hint ("where", "runtime-where"; empty for no advice).
class Grouper {
 public:
  Grouper(std::string output, std::string hint);

  void add(std::vector<std::string> key, nlohmann::json config, const Record* run);

  /// @brief The groups in natural order of their keys.
  std::vector<Group> groups() const;

 private:
  struct KeyLess {
    bool operator()(const std::vector<std::string>& a, const std::vector<std::string>& b) const;
  };
  // "; keep one kind with --<hint> <path>=<value>" (or KEY=VALUE when the value is not a scalar
  // a filter can name).
  std::string advice(const std::string& path, const nlohmann::json* kept) const;

  std::string output_;
  std::string hint_;
  std::map<std::vector<std::string>, Group, KeyLess> groups_;
};

}  // namespace mcb::calib
