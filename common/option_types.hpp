#pragma once
/// @file
/// @brief Option values typed while Boost.Program_options parses them (validate overloads), so a
/// bad value is refused at parse time in one place, naming the option: "--omega: 'x' is not
/// 'auto' or a number". Whether an option was given is read from variables_map::defaulted(),
/// never from a sentinel value.

#include <boost/program_options.hpp>

#include <initializer_list>
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

/// @brief A data rate with a unit: "100Mbit/s", "12.5MB/s" (mcb::parse_rate).
struct Rate {
  double bytes_per_second = 0;
  std::string text;  //!< as given
};
void validate(boost::any& v, const std::vector<std::string>& values, Rate*, int);
std::ostream& operator<<(std::ostream& os, const Rate& value);

/// @brief The validate overload of an enum option, written once: an enum type E gets its own
/// `validate(boost::any&, const std::vector<std::string>&, E*, int)` in E's namespace (where
/// Boost finds it) that calls this with E's values and the function spelling them. A value
/// that spells none is refused: "--<option>: '<value>' is not one of a, b".
template <typename E, typename NameOf>
void validate_choice(boost::any& v, const std::vector<std::string>& values,
                     std::initializer_list<E> choices, NameOf name_of) {
  boost::program_options::validators::check_first_occurrence(v);
  const std::string& text = boost::program_options::validators::get_single_string(values);
  std::string list;
  for (const E choice : choices) {
    const std::string name = name_of(choice);
    if (text == name) {
      v = choice;
      return;
    }
    list += (list.empty() ? "" : ", ") + name;
  }
  throw BadValue(text, "is not one of " + list);
}

}  // namespace mcb::cli
