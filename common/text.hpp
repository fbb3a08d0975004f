#pragma once
/// @file
/// @brief Small text helpers shared by the readers of the suite's line-oriented inputs
/// (traces, specs, tables, INI files, job lists).

#include <string>
#include <string_view>

namespace mcb {

/// @brief @p text without spaces, tabs and carriage returns (files saved with CRLF endings) at
/// either end.
std::string trim(std::string_view text);

}  // namespace mcb
