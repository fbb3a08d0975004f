#pragma once
/// @file
/// @brief Option values typed while Boost.Program_options parses them (validate overloads), so a
/// bad value is refused at parse time in one place, naming the option: "--omega: 'x' is not
/// 'auto' or a number". Whether an option was given is read from variables_map::defaulted(),
/// never from a sentinel value.

#include <boost/program_options.hpp>

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace mcb::cli {

/// @brief Thrown by validate overloads; Boost fills in the option's name, and cli::parse turns
/// it into a ValueError: "--<option>: '<value>' <why>".
class BadValue : public boost::program_options::error_with_option_name {
 public:
  BadValue(const std::string& value, const std::string& why);
};

/// @brief "auto" or a finite number.
struct NumberOrAuto {
  std::optional<double> number;  //!< empty for auto
  std::string text = "auto";     //!< as given
  bool automatic() const { return !number.has_value(); }
};
void validate(boost::any& v, const std::vector<std::string>& values, NumberOrAuto*, int);
std::ostream& operator<<(std::ostream& os, const NumberOrAuto& value);

/// @brief A time span with a unit: "200ms", "1.5s", "2min" (mcb::parse_duration).
struct Duration {
  double seconds = 0;
  std::string text;  //!< as given
};
void validate(boost::any& v, const std::vector<std::string>& values, Duration*, int);
std::ostream& operator<<(std::ostream& os, const Duration& value);

/// @brief A notifier that refuses a string option's value unless it is one of @p choices
/// (run by cli::parse, so the refusal is a ValueError at parse time).
std::function<void(const std::string&)> one_of(const std::string& option,
                                               std::vector<std::string> choices);

}  // namespace mcb::cli
