#include "common/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace mcb {
namespace {

struct Unit {
  std::string_view suffix;
  double factor;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "12.5MB/s" into the number and the rest; the number must be a finite decimal.
std::pair<double, std::string_view> split_number(std::string_view text) {
  text = trim(text);
  double value = 0.0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) {
    throw std::invalid_argument("'" + std::string(text) + "' does not start with a number");
  }
  if (!std::isfinite(value)) {
    throw std::invalid_argument("'" + std::string(text) + "' is not a finite number");
  }
  return {value, trim(std::string_view(ptr, static_cast<size_t>(end - ptr)))};
}

template <size_t N>
double parse_with(std::string_view text, const std::array<Unit, N>& units, std::string_view kind,
                  bool allow_bare, bool allow_zero) {
  auto [value, suffix] = split_number(text);
  if (value < 0 || (!allow_zero && value == 0)) {
    throw std::invalid_argument("'" + std::string(trim(text)) + "' must be " +
                                (allow_zero ? "non-negative" : "positive"));
  }
  if (suffix.empty()) {
    if (allow_bare) return value;
    throw std::invalid_argument("'" + std::string(trim(text)) + "' needs a unit for a " +
                                std::string(kind));
  }
  for (const Unit& u : units) {
    if (suffix == u.suffix) return value * u.factor;
  }
  throw std::invalid_argument("'" + std::string(trim(text)) + "' has an unknown " +
                              std::string(kind) + " unit '" + std::string(suffix) + "'");
}

}  // namespace

double parse_duration(std::string_view text) {
  static constexpr std::array<Unit, 7> kUnits{{{"s", 1.0},
                                               {"ms", 1e-3},
                                               {"us", 1e-6},
                                               {"\xC2\xB5s", 1e-6},
                                               {"ns", 1e-9},
                                               {"min", 60.0},
                                               {"h", 3600.0}}};
  const double seconds =
      parse_with(text, kUnits, "duration", /*allow_bare=*/true, /*allow_zero=*/true);
  // One cap for every duration an input gives: options, platform lines, campaign specs.
  if (seconds > kLongestDuration) {
    throw std::invalid_argument("'" + std::string(trim(text)) + "' is above the cap of 1e12 s");
  }
  return seconds;
}

double parse_rate(std::string_view text) {
  static constexpr std::array<Unit, 11> kUnits{{{"bit/s", 1.0 / 8},
                                                {"kbit/s", 1e3 / 8},
                                                {"Mbit/s", 1e6 / 8},
                                                {"Gbit/s", 1e9 / 8},
                                                {"B/s", 1.0},
                                                {"kB/s", 1e3},
                                                {"MB/s", 1e6},
                                                {"GB/s", 1e9},
                                                {"KiB/s", 1024.0},
                                                {"MiB/s", 1024.0 * 1024},
                                                {"GiB/s", 1024.0 * 1024 * 1024}}};
  return parse_with(text, kUnits, "rate", /*allow_bare=*/false, /*allow_zero=*/false);
}

double parse_bytes(std::string_view text) {
  static constexpr std::array<Unit, 7> kUnits{{{"B", 1.0},
                                               {"kB", 1e3},
                                               {"MB", 1e6},
                                               {"GB", 1e9},
                                               {"KiB", 1024.0},
                                               {"MiB", 1024.0 * 1024},
                                               {"GiB", 1024.0 * 1024 * 1024}}};
  return parse_with(text, kUnits, "size", /*allow_bare=*/true, /*allow_zero=*/true);
}

std::string format_duration(double seconds) {
  char buf[64];
  if (seconds != 0 && std::fabs(seconds) < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.6gus", seconds * 1e6);
  } else if (seconds != 0 && std::fabs(seconds) < 1.0) {
    std::snprintf(buf, sizeof buf, "%.6gms", seconds * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.6gs", seconds);
  }
  return buf;
}

std::string format_rate(double bytes_per_second) {
  const double bits = bytes_per_second * 8;
  char buf[64];
  if (bits >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.6gGbit/s", bits / 1e9);
  } else if (bits >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.6gMbit/s", bits / 1e6);
  } else if (bits >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.6gkbit/s", bits / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.6gbit/s", bits);
  }
  return buf;
}

double megabytes_per_second(double bytes_per_second) { return bytes_per_second / 1e6; }

std::string format_bandwidth(double bytes_per_second) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g MB/s", megabytes_per_second(bytes_per_second));
  return buf;
}

}  // namespace mcb
