#pragma once
/// @file
/// @brief Small text helpers shared by the readers of the suite's line-oriented inputs
/// (traces, specs, tables, INI files, job lists).

#include <optional>
#include <string>
#include <string_view>

namespace mcb {

/// @brief @p text without spaces, tabs and carriage returns (files saved with CRLF endings) at
/// either end.
std::string trim(std::string_view text);

/// @brief Why @p text is not plain text: "a NUL byte at column N", "a byte 0xFF that is not
/// UTF-8 at column N" or "a byte-order mark (U+FEFF) at column N; ..."; empty when it is valid
/// UTF-8 without NUL bytes or byte-order marks. Readers call it on every line so that names read
/// from a file can later be written to JSON records and CSV tables, and so that every input
/// keeps one rule for a byte-order mark (docs/input.md).
std::string text_problem(std::string_view text);

/// @brief @p text as a whole decimal number in long's range, all of it read (std::stol's
/// syntax: "12", "+12", "-3"); nothing when it is not one ("", "12x", "1.5", or out of range).
std::optional<long> whole_number(const std::string& text);

/// @brief Reads @p text when it is up to 15 digits after an optional '-' (not "-0"), as nearly
/// every number of a trace or job list is, into @p value: the value std::from_chars gives it
/// (exact below 2^53), several times faster. False for any other text, which the caller reads
/// with std::from_chars.
bool read_plain_whole(std::string_view text, double& value);

}  // namespace mcb
