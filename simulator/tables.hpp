#pragma once
/// @file
/// @brief Runtime tables (the calibration stage's output): a job's service time by application,
/// total size and number of components.

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mcb::sim {

/// @brief Which column of the table gives the service time.
enum class Statistic { kMin, kAvg, kMax, kMedian };
/// @throws std::invalid_argument for an unknown name.
Statistic parse_statistic(const std::string& name);
std::string to_string(Statistic s);

/// @brief One row of a runtime table (seconds; NaN for an empty cell).
struct TableRow {
  std::string app, problem, system;
  int total_size = 0;
  int components = 0;
  double min = 0, avg = 0, max = 0, median = 0;
  std::string file;
  long line = 0;
};

/// @brief Service times of one application and total size, indexed by number of components
/// (index 0 unused; NaN where the table has no entry).
using PriceList = std::vector<double>;

/// @brief The chosen rows, ready for lookups.
class PriceBook {
 public:
  /// The prices of @p app at @p total_size, or nullptr when the table has none.
  const PriceList* find(const std::string& app, int total_size) const;
  /// Service time, or NaN when missing.
  double price(const std::string& app, int total_size, int components) const;
  /// Apps, with the problem and system chosen for each (for the summary).
  const std::map<std::string, std::pair<std::string, std::string>>& chosen() const {
    return chosen_;
  }
  /// Total sizes the book holds for @p app.
  std::vector<int> sizes(const std::string& app) const;
  /// Names the table files in messages ("calibration/das2/runtimes.csv").
  const std::string& source() const { return source_; }

 private:
  friend class RuntimeTables;
  std::map<std::pair<std::string, int>, PriceList> prices_;
  std::map<std::string, std::pair<std::string, std::string>> chosen_;
  std::string source_;
};

/// @brief All rows of one or more table files.
class RuntimeTables {
 public:
  /// @brief Loads each path: a directory (its runtimes.csv) or a CSV file, read and checked by
  /// the runtime table contract (common/runtime_table.hpp), in its runtime layout
  /// (app,problem,total_size,components,system,n,min,avg,max,median,stddev) or the reference
  /// service-time layout (app,total_size,components,service_time_s).
  /// @throws UsageError naming --tables, the file and line.
  static RuntimeTables load(const std::vector<std::string>& paths);

  /// @brief Picks, for each app in @p apps, one problem and one system and the statistic's
  /// column. @p problems maps app to problem (--problem app=NAME); @p system may be empty.
  /// @throws UsageError when an app is absent or a choice is ambiguous or absent.
  PriceBook select(const std::vector<std::string>& apps,
                   const std::map<std::string, std::string>& problems, const std::string& system,
                   Statistic statistic) const;

  const std::vector<TableRow>& rows() const { return rows_; }
  const std::string& source() const { return source_; }

 private:
  std::vector<TableRow> rows_;
  std::string source_;
  bool has_min_ = true, has_max_ = true, has_median_ = true;
};

}  // namespace mcb::sim
