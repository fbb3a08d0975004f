#include "calibration/records.hpp"

#include "calibration/grouping.hpp"
#include "common/errors.hpp"
#include "common/jsonl.hpp"
#include "common/run_record.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace mcb::calib {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

[[noreturn]] void fail(const Record& record, const std::string& what) {
  throw UsageError(record.where() + ": " + what);
}

[[noreturn]] void wrong_type(const Record& record, std::string_view path, const char* wanted,
                             const json& value) {
  fail(record,
       "field '" + std::string(path) + "' must be " + wanted + ", not " + json_type_name(value));
}

// Checks of the parts of a record; each names the full dotted path of what is wrong.
void need_number(const Record& r, const std::string& path, bool non_negative = true) {
  const double v = number_field(r, path);
  if (non_negative && v < 0) fail(r, "field '" + path + "' must be >= 0");
}

void need_positive_integer(const Record& r, const std::string& path) {
  if (integer_field(r, path) <= 0) fail(r, "field '" + path + "' must be positive");
}

void need_traffic(const Record& r, const std::string& path) {
  for (const char* cls : {"intra", "inter"}) {
    for (const char* what : {"messages", "bytes"}) {
      const std::string p = path + "." + cls + "." + what;
      if (integer_field(r, p) < 0) fail(r, "field '" + p + "' must be >= 0");
    }
  }
}

void validate_ranks(const Record& r, std::int64_t total_size) {
  const json& ranks = field(r, "ranks");
  if (!ranks.is_array()) wrong_type(r, "ranks", "an array", ranks);
  if (static_cast<std::int64_t>(ranks.size()) != total_size) {
    fail(r, "field 'ranks' has " + std::to_string(ranks.size()) +
                " entries but config.total_size is " + std::to_string(total_size));
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string base = "ranks." + std::to_string(i);
    if (integer_field(r, base + ".rank") != static_cast<std::int64_t>(i)) {
      fail(r, "field '" + base + ".rank' must be " + std::to_string(i) + " (ranks in rank order)");
    }
    const json& channels = field(r, base + ".channels");
    if (!channels.is_object()) wrong_type(r, base + ".channels", "an object", channels);
    for (const auto& [name, channel] : channels.items()) {
      const std::string c = base + ".channels." + name;
      need_number(r, c + ".time.intra");
      need_number(r, c + ".time.inter");
      need_traffic(r, c + ".received");
    }
  }
}

void validate_links(const Record& r) {
  if (string_field(r, "config.system").empty()) fail(r, "field 'config.system' is empty");
  const json& classes = field(r, "result.classes");
  if (!classes.is_object()) wrong_type(r, "result.classes", "an object", classes);
  for (const auto& [name, cls] : classes.items()) {
    const std::string base = "result.classes." + name + ".points";
    const json& points = field(r, base);
    if (!points.is_array()) wrong_type(r, base, "an array", points);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::string p = base + "." + std::to_string(i);
      need_number(r, p + ".bytes");
      need_number(r, p + ".avg");
    }
  }
}

void validate_poisson(const Record& r, std::int64_t total_size) {
  need_positive_integer(r, "config.grid");
  string_field(r, "config.procs");
  need_positive_integer(r, "config.h");
  need_positive_integer(r, "config.v");
  if (integer_field(r, "config.h") * integer_field(r, "config.v") != total_size) {
    fail(r, "config.h x config.v is not config.total_size (" + std::to_string(total_size) + ")");
  }
  bool_field(r, "config.sync");
  const json& map = field(r, "config.cluster_map");
  if (!map.is_array() || static_cast<std::int64_t>(map.size()) != total_size) {
    fail(r, "field 'config.cluster_map' must be an array with one cluster per rank");
  }
  if (integer_field(r, "result.iterations") < 0) fail(r, "field 'result.iterations' must be >= 0");
  need_number(r, "result.comm_time_paper");
  need_number(r, "result.transfer_rate");
}

}  // namespace

const json* lookup(const json& doc, std::string_view path) {
  const json* node = &doc;
  while (!path.empty()) {
    const auto dot = path.find('.');
    const std::string_view part = path.substr(0, dot);
    if (node->is_object()) {
      const auto it = node->find(std::string(part));
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array() && !part.empty() &&
               std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      const std::size_t index = std::stoul(std::string(part));
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return node;
}

const json& field(const Record& record, std::string_view path) {
  const json* value = lookup(record.doc, path);
  if (value == nullptr) fail(record, "missing field '" + std::string(path) + "'");
  return *value;
}

double number_field(const Record& record, std::string_view path) {
  const json& value = field(record, path);
  if (!value.is_number()) wrong_type(record, path, "a number", value);
  return value.get<double>();
}

std::int64_t integer_field(const Record& record, std::string_view path) {
  const json& value = field(record, path);
  if (!value.is_number_integer()) wrong_type(record, path, "an integer", value);
  return value.get<std::int64_t>();
}

std::string string_field(const Record& record, std::string_view path) {
  const json& value = field(record, path);
  if (!value.is_string()) wrong_type(record, path, "a string", value);
  return value.get<std::string>();
}

bool bool_field(const Record& record, std::string_view path) {
  const json& value = field(record, path);
  if (!value.is_boolean()) wrong_type(record, path, "a boolean", value);
  return value.get<bool>();
}

void validate_record(const Record& r) {
  try {
    RunRecord::from_json(r.doc);  // schema, run_id, app, status, reason and the blocks' types
  } catch (const std::invalid_argument& e) {
    fail(r, e.what());
  }
  const std::string app = string_field(r, "app");
  if (string_field(r, "status") != "valid") return;
  for (const char* path : {"env.host", "env.date", "env.revision"}) string_field(r, path);
  if (!field(r, "config").is_object()) wrong_type(r, "config", "an object", field(r, "config"));
  if (app == "links") {
    validate_links(r);
    return;
  }
  if (string_field(r, "config.problem").empty()) fail(r, "field 'config.problem' is empty");
  need_positive_integer(r, "config.total_size");
  need_positive_integer(r, "config.components");
  const std::int64_t total_size = integer_field(r, "config.total_size");
  if (integer_field(r, "config.components") > total_size) {
    fail(r, "config.components exceeds config.total_size");
  }
  if (string_field(r, "config.system").empty()) fail(r, "field 'config.system' is empty");
  need_number(r, "result.wall_time");
  need_number(r, "result.compute_time.avg");
  validate_ranks(r, total_size);
  if (app == "poisson") validate_poisson(r, total_size);
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  std::set<fs::path> seen;
  auto add = [&](const fs::path& path) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    if (ec) canonical = path;
    if (seen.insert(canonical).second) files.push_back(path.string());
  };
  for (const std::string& input : inputs) {
    std::error_code ec;
    const fs::path path(input);
    if (fs::is_directory(path, ec)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::directory_iterator(path, ec)) {
        if (entry.is_regular_file() && entry.path().extension() == ".jsonl") {
          found.push_back(entry.path());
        }
      }
      if (ec) throw UsageError("--input: '" + input + "': " + ec.message());
      if (found.empty()) throw UsageError("--input: '" + input + "': folder has no *.jsonl files");
      std::sort(found.begin(), found.end());
      for (const auto& f : found) add(f);
    } else if (fs::is_regular_file(path, ec)) {
      add(path);
    } else {
      throw UsageError("--input: '" + input + "': no such file or folder");
    }
  }
  return files;
}

RecordSet load_records(const std::vector<std::string>& inputs) {
  RecordSet set;
  set.summary.files = expand_inputs(inputs);
  std::map<std::string, std::size_t> index_of_run;  // run id -> index in set.records
  for (const std::string& file : set.summary.files) {
    jsonl::Contents contents = jsonl::read(file);
    if (contents.torn) set.summary.torn_tails.push_back(jsonl::torn_notice(contents));
    for (jsonl::Line& line : contents.lines) {
      ++set.summary.lines;
      // The header every record carries and a schema this suite reads, checked by the record
      // contract's owner (FILE:LINE: what is wrong); a version-1 record reads as the current
      // version (bandwidths in MB/s).
      set.summary.schema = RunRecord::from_stored(line, file).schema;
      Record record{current_record(std::move(line.doc)), file, line.number};
      const std::string run_id = record.run_id();
      if (const auto it = index_of_run.find(run_id); it != index_of_run.end()) {
        const Record& first = set.records[it->second];
        if (first.doc != record.doc) {
          fail(record, "run_id '" + run_id + "' was read before from " + first.where() +
                           " with different content (first difference: " +
                           first_difference(first.doc, record.doc) + ")");
        }
        set.summary.duplicates.push_back(record.where() + " repeats " + first.where() + " (" +
                                         run_id + ")");
        continue;
      }
      validate_record(record);
      index_of_run.emplace(run_id, set.records.size());
      set.records.push_back(std::move(record));
    }
  }
  if (set.summary.lines == 0) {
    std::string names;
    for (const std::string& input : inputs) names += (names.empty() ? "" : ", ") + input;
    throw UsageError(names + ": no records (empty input)");
  }
  return set;
}

}  // namespace mcb::calib
