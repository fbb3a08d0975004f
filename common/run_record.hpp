#pragma once
/// @file
/// @brief The run-record contract (docs/records.md): one JSON object per run, written by the
/// measurement programs (harness) and by the campaign executor for runs that ended without one,
/// read by the campaign, the calibration and the tests. Its fields are typed here, once.

#include "common/jsonl.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace mcb {

/// @brief How a JSON value's type is named in messages ("a string", "an array", "null", ...).
std::string json_type_name(const nlohmann::json& value);

/// @brief Value of every record's `schema` field. A change that makes old records unreadable
/// (a field renamed or its meaning changed) bumps the number, and current_record() learns to
/// bring the old version up to date. Version 2 gives bandwidths in MB/s (10^6 bytes per second);
/// version 1 gave them in bytes per second.
inline constexpr const char* kRunRecordSchema = "mcb-run/2";
/// @brief The earlier version current_record() still reads.
inline constexpr const char* kRunRecordSchemaV1 = "mcb-run/1";

/// @brief Throws std::invalid_argument "unknown schema 'mcb-run/3' (records are mcb-run/2, or
/// mcb-run/1 brought up to date)" unless @p schema is one this suite reads. A reader that acts on
/// records (which runs are done, what they measured) calls it: a record of another version may
/// mean something else.
void require_known_schema(const std::string& schema);

/// @brief @p doc in the current schema: a version-1 record gets its bandwidths (the fields
/// docs/records.md lists under "Versions") divided by 10^6 and schema kRunRecordSchema; any
/// other document is returned as it is (readers refuse a schema they do not know). Every reader
/// of records calls this first, so old campaign folders read as new ones.
nlohmann::json current_record(nlohmann::json doc);

/// @brief One run record. The header fields are typed; the four blocks a run carries keep their
/// JSON (their fields belong to each application and are documented in docs/records.md);
/// anything else at the top level (verdict, counters, failure, ...) is kept in @ref extra, so
/// reading and writing a record gives back the same text.
struct RunRecord {
  std::string schema = kRunRecordSchema;
  std::string run_id;
  std::optional<std::string> campaign;  //!< written as null when run outside a campaign
  std::optional<long long> repetition;
  std::string app;
  std::string status;                               //!< valid, invalid or failed
  std::optional<std::string> reason;                //!< why a run is invalid or failed
  std::optional<nlohmann::json> config;             //!< object: what the run was given
  std::optional<nlohmann::json> env;                //!< object: where and with what it ran
  std::optional<nlohmann::json> result;             //!< object: what it measured
  std::optional<nlohmann::json> ranks;              //!< array: one object per rank, in rank order
  nlohmann::json extra = nlohmann::json::object();  //!< the other top-level fields

  /// @brief Reads @p doc. Checks the header: an object with string `schema`, `run_id`, `app`,
  /// `status` (valid, invalid or failed; `run_id` and `app` not empty), `campaign` a string or
  /// null, `repetition` an integer, `reason` a string, `config`/`env`/`result` objects, `ranks`
  /// an array. A version-1 record is brought up to date first (current_record()); the schema
  /// version is not compared here (see @ref kRunRecordSchema).
  /// @throws std::invalid_argument naming the field ("field 'status' is 'done'; ...").
  static RunRecord from_json(const nlohmann::json& doc);
  /// @brief The record on @p line of the records file @p file, for a reader that acts on it:
  /// from_json, then require_known_schema.
  /// @throws UsageError "FILE:LINE: what is wrong" (exit 2).
  static RunRecord from_stored(const jsonl::Line& line, const std::string& file);
  /// @brief The record as written.
  nlohmann::json to_json() const;
  /// @brief to_json() as one line (what is appended to a records file).
  std::string line() const { return to_json().dump(); }
};

}  // namespace mcb
