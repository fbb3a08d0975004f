#include "common/option_types.hpp"

#include "common/cli.hpp"
#include "common/units.hpp"

#include <cmath>
#include <ostream>
#include <stdexcept>

namespace mcb::cli {

namespace po = boost::program_options;

// "--%option%", not "%canonical_option%": the same spelling whether the value came from the
// command line or from a --config file (or a campaign spec passed on as one).
BadValue::BadValue(const std::string& value, const std::string& why)
    : po::error_with_option_name("--%option%: '%value%' " + why) {
  set_substitute("value", value);
}

void validate(boost::any& v, const std::vector<std::string>& values, NumberOrAuto*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& text = po::validators::get_single_string(values);
  NumberOrAuto result;
  result.text = text;
  if (text != "auto") {
    std::size_t used = 0;
    double number = 0;
    try {
      number = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(number)) {
      throw BadValue(text, "is not 'auto' or a number");
    }
    result.number = number;
  }
  v = result;
}

std::ostream& operator<<(std::ostream& os, const NumberOrAuto& value) { return os << value.text; }

namespace {

// The value of @p values read by @p parse (mcb::parse_duration, mcb::parse_rate), whose refusals
// become BadValue naming the option.
template <typename Parse>
double parse_unit_value(boost::any& v, const std::vector<std::string>& values, Parse parse,
                        std::string& text) {
  po::validators::check_first_occurrence(v);
  text = po::validators::get_single_string(values);
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    // The parsers' messages start with the quoted value; keep only why.
    const std::string why = e.what();
    const std::string quoted = "'" + text + "' ";
    throw BadValue(text, why.rfind(quoted, 0) == 0 ? why.substr(quoted.size()) : why);
  }
}

}  // namespace

void validate(boost::any& v, const std::vector<std::string>& values, Duration*, int) {
  std::string text;
  const double seconds = parse_unit_value(v, values, parse_duration, text);
  v = Duration{seconds, text};
}

std::ostream& operator<<(std::ostream& os, const Duration& value) { return os << value.text; }

void validate(boost::any& v, const std::vector<std::string>& values, Rate*, int) {
  std::string text;
  const double rate = parse_unit_value(v, values, parse_rate, text);
  v = Rate{rate, text};
}

std::ostream& operator<<(std::ostream& os, const Rate& value) { return os << value.text; }

}  // namespace mcb::cli
