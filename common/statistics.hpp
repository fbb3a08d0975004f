#pragma once
/// @file
/// @brief The suite's one statistics module: the summary of a table row (calibration), the
/// spread of a value over ranks (harness), and Student-t confidence intervals (simulator),
/// with the t quantiles from Boost.Math rather than a table.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace mcb {

/// @brief Statistics of one sample.
struct Summary {
  std::size_t n = 0;
  double min = 0;
  double avg = 0;  //!< arithmetic mean
  double max = 0;
  double median = 0;             //!< middle value; the mean of the two middle values when n is even
  std::optional<double> stddev;  //!< sample standard deviation (divisor n - 1); none when n < 2
};

/// @brief Summarizes @p values. @throws std::invalid_argument when @p values is empty.
Summary summarize(std::vector<double> values);

/// @brief Arithmetic mean; NaN for no values.
double mean(const std::vector<double>& values);

/// @brief Sample standard deviation about @p mean (divisor n - 1); NaN for fewer than 2 values.
double sample_stddev(const std::vector<double>& values, double mean);

/// @brief The @p p quantile of Student's t distribution with @p df degrees of freedom (Boost.Math);
/// NaN when @p df < 1.
double student_t_quantile(double p, double df);

/// @brief The lowest, mean and highest of a value over ranks: the `{"min", "avg", "max"}` block
/// of a record.
struct Spread {
  double min = 0;
  double avg = 0;
  double max = 0;
  /// @brief From the reductions of @p count values: their minimum, sum and maximum.
  static Spread of(double min, double sum, double max, int count);
  nlohmann::json to_json() const;
};

}  // namespace mcb
