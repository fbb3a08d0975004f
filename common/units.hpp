#pragma once
/// @file
/// @brief Quantities written with their unit ("1ms", "100Mbit/s") and parsed back to SI values.

#include <string>
#include <string_view>

namespace mcb {

/// @brief The longest duration any input may give (s): past about 1e12 s a double stops
/// resolving seconds once a time is added to it, and no run of the suite needs more
/// (docs/DEVELOPING.md, "Hostile input").
constexpr double kLongestDuration = 1e12;

/// @brief Parses a duration: a number followed by s, ms, us (or µs), ns, min or h; a bare number
/// is seconds. Returns seconds. Throws std::invalid_argument with a reason on anything else,
/// including negative values and durations above kLongestDuration.
double parse_duration(std::string_view text);

/// @brief Parses a data rate: bit/s, kbit/s, Mbit/s, Gbit/s (decimal prefixes, as links are
/// specified) or B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s. Returns bytes per second.
/// Throws std::invalid_argument with a reason on anything else or on values <= 0.
double parse_rate(std::string_view text);

/// @brief Parses a byte count: a number with optional B, kB, MB, GB, KiB, MiB, GiB. Returns bytes.
double parse_bytes(std::string_view text);

/// @brief Writes seconds with a readable unit ("250us", "1.5ms", "3s").
std::string format_duration(double seconds);

/// @brief Writes bytes per second as bit/s with a decimal prefix ("100Mbit/s"), as link options
/// are given (--wan-bandwidth 100Mbit/s).
std::string format_rate(double bytes_per_second);

/// @brief Bytes per second in the unit the suite reports bandwidth in: MB/s (10^6 bytes per
/// second, OSU's unit), as a plain number ("12.5").
double megabytes_per_second(double bytes_per_second);

/// @brief The same with its unit ("12.5 MB/s"), 6 significant digits.
std::string format_bandwidth(double bytes_per_second);

}  // namespace mcb
