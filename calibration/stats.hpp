#pragma once
/// @file
/// @brief The summary statistics of a table row: count, min, mean, max, median, sample standard
/// deviation.

#include <cstddef>
#include <optional>
#include <vector>

namespace mcb::calib {

/// @brief Statistics of one sample.
struct Summary {
  std::size_t n = 0;
  double min = 0;
  double avg = 0;     //!< arithmetic mean
  double max = 0;
  double median = 0;  //!< middle value; the mean of the two middle values when n is even
  std::optional<double> stddev;  //!< sample standard deviation (divisor n - 1); none when n < 2
};

/// @brief Summarizes @p values. @throws std::invalid_argument when @p values is empty.
Summary summarize(std::vector<double> values);

}  // namespace mcb::calib
