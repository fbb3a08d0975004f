#pragma once
/// @file
/// @brief The run-record contract's version, shared by the programs that write records, the
/// campaign executor that writes failure records, and the calibration that reads them all.
/// The fields each record carries are documented in docs/records.md.

namespace mcb {

/// @brief Value of every record's `schema` field. A change that makes old records unreadable
/// (a field renamed or its meaning changed) bumps the number.
inline constexpr const char* kRunRecordSchema = "mcb-run/1";

}  // namespace mcb
