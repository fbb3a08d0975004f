#pragma once
/// @file
/// @brief Reading run records (docs/records.md) for calibration: JSON Lines files and campaign
/// folders, read with the suite's JSON Lines reader (common/jsonl.hpp: a torn last line is
/// ignored with a notice) and checked line by line, each header through mcb::RunRecord, so that
/// any problem is reported as "<file>:<line>: <what>".

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcb::calib {

/// @brief One record and the place it was read from.
struct Record {
  nlohmann::json doc;    //!< the whole record
  std::string file;      //!< the JSON Lines file
  std::size_t line = 0;  //!< 1-based line number in @ref file

  /// @brief "<file>:<line>", the prefix of every message about this record.
  std::string where() const { return file + ":" + std::to_string(line); }
  std::string run_id() const { return doc.at("run_id").get<std::string>(); }
  std::string app() const { return doc.at("app").get<std::string>(); }
  std::string status() const { return doc.at("status").get<std::string>(); }
  const nlohmann::json& config() const { return doc.at("config"); }
};

/// @brief The value at a dotted @p path ("config.total_size") or nullptr when any part is absent.
const nlohmann::json* lookup(const nlohmann::json& doc, std::string_view path);

/// @name Typed field access for records that passed validation; a field that is absent or of the
/// wrong type throws mcb::UsageError "<file>:<line>: ..." naming the field.
/// @{
const nlohmann::json& field(const Record& record, std::string_view path);
double number_field(const Record& record, std::string_view path);
std::int64_t integer_field(const Record& record, std::string_view path);
std::string string_field(const Record& record, std::string_view path);
bool bool_field(const Record& record, std::string_view path);
/// @}

/// @brief What reading the inputs found, for the summary and the provenance files.
struct LoadSummary {
  std::vector<std::string> files;  //!< every JSON Lines file read, in reading order
  std::size_t lines = 0;           //!< records read (blank lines are not counted)
  /// @brief "<file>:<line> repeats <file>:<line> (<run_id>)" for every identical repeat dropped
  std::vector<std::string> duplicates;
  std::string schema;  //!< the one schema all records carry
  /// @brief the one-line notice for each file whose torn last line was ignored (common/jsonl.hpp)
  std::vector<std::string> torn_tails;
};

/// @brief Records read from the inputs, each run id once, in reading order.
struct RecordSet {
  std::vector<Record> records;
  LoadSummary summary;
};

/// @brief The JSON Lines files named by @p inputs: a file is taken as given; a folder contributes
/// every regular file directly inside it whose name ends in ".jsonl", sorted by name. A file
/// reached twice (a folder and one of its files) is read once.
/// @throws mcb::UsageError "--input: '<path>': ..." for paths that do not exist, and for a
///         folder without any *.jsonl file.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs);

/// @brief Reads and checks every record of @p inputs (see @ref expand_inputs): each line must be
/// a JSON object of the known schema with the fields its status and application need (see
/// @ref validate_record); a run id seen twice must carry identical content (the repeat is then
/// dropped and listed in the summary). Blank lines are skipped; a torn last line is ignored and
/// its notice kept in the summary.
/// @throws mcb::UsageError "<file>:<line>: <what>" on the first problem, or "<inputs>: no
///         records" when nothing was read.
RecordSet load_records(const std::vector<std::string>& inputs);

/// @brief Checks that @p record has the fields calibration reads: for every record `schema`,
/// `run_id`, `app`, `status`; for valid runs also `config` (problem, total_size, components,
/// system), `result` (wall_time, compute_time.avg), `env` (host, date, revision) and `ranks`
/// with their channels; Poisson adds grid, procs, h, v, sync, cluster_map, iterations,
/// comm_time_paper and transfer_rate; link calibration (`app: "links"`) needs config.system and
/// result.classes with points. @throws mcb::UsageError "<file>:<line>: ..." naming the field.
void validate_record(const Record& record);

}  // namespace mcb::calib
