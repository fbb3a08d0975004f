#include "jobscripts/record_book.hpp"

#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/run_record.hpp"
#include "common/text.hpp"

#include <filesystem>
#include <thread>
#include <fstream>
#include <set>
#include <sstream>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

RecordBook RecordBook::read(const std::string& path) {
  RecordBook book;
  book.scan(path, 0);
  return book;
}

void RecordBook::read_more(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  scan(path, ec || size < consumed_ ? 0 : consumed_);
}

void RecordBook::scan(const std::string& path, std::uintmax_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  in.seekg(static_cast<std::streamoff>(offset));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t start = 0;
  int line = 0;
  consumed_ = offset;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string::npos) break;  // torn tail: not a record yet
    const std::string content = text.substr(start, end - start);
    start = end + 1;
    consumed_ = offset + start;
    ++line;
    if (trim(content).empty()) continue;
    json record;
    try {
      record = json::parse(content);
    } catch (const json::exception&) {
      throw UsageError(path + ": " +
                       (offset ? "byte " + std::to_string(consumed_ - content.size() - 1)
                               : "line " + std::to_string(line)) +
                       ": not a JSON record");
    }
    if (!record.is_object() || !record.contains("run_id") || !record["run_id"].is_string()) {
      throw UsageError(path + ": line " + std::to_string(line) + ": record without a run_id");
    }
    RecordEntry entry{record.value("status", ""), record.value("reason", "")};
    entries_.insert_or_assign(record["run_id"].get<std::string>(), std::move(entry));
  }
}

const RecordEntry* RecordBook::find(const std::string& run_id) const {
  const auto it = entries_.find(run_id);
  return it == entries_.end() ? nullptr : &it->second;
}

std::string record_line_for(const std::string& path, const std::string& run_id) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string::npos) break;
    const std::string content = text.substr(start, end - start);
    start = end + 1;
    if (trim(content).empty()) continue;
    try {
      const json record = json::parse(content);
      if (record.is_object() && record.value("run_id", "") == run_id) return content;
    } catch (const json::exception&) {
    }
  }
  return "";
}

json failure_record(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                    const std::string& reason, const json& details,
                    const std::vector<std::string>& command) {
  const Configuration& c = plan.of(run);
  json options = json::object();
  for (const auto& [k, v] : c.values) options[k] = v;
  std::vector<const char*> argv;
  for (const std::string& word : command) argv.push_back(word.c_str());
  json env = environment_block(static_cast<int>(argv.size()), argv.data());
  env["executor"] = spec.executor;
  // The machine's share (docs/records.md): known here only when the run was on this host.
  const unsigned cores = std::thread::hardware_concurrency();
  const bool here = spec.executor == "local" && cores > 0;
  env["cores_available"] = here ? json(cores) : json(nullptr);
  env["ranks_per_core"] = here ? json(static_cast<double>(c.ranks) / cores) : json(nullptr);
  return {{"schema", kRunRecordSchema},
          {"run_id", run.id},
          {"campaign", spec.name},
          {"repetition", run.repetition},
          {"app", spec.app},
          {"status", "failed"},
          {"reason", reason},
          {"config",
           {{"total_size", c.ranks},
            {"components", c.clusters},
            {"campaign_index", c.index},
            {"options", options}}},
          {"env", env},
          {"failure", details}};
}

std::string log_excerpt(const std::string& log_path, const std::string& program) {
  std::ifstream in(log_path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - 16384));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  std::istringstream split(text);
  std::string line;
  while (std::getline(split, line)) {
    line = trim(line);
    if (!line.empty() && line.find_first_not_of("-=*") != std::string::npos) lines.push_back(line);
  }
  // The application's own last word; else the launcher's first note on a failed rank (mpirun's
  // "... exited on signal 11", srun's "error: a1: task 0: Segmentation fault"); else the end.
  std::string chosen;
  for (auto it = lines.rbegin(); it != lines.rend() && chosen.empty(); ++it) {
    if (it->rfind(program + ":", 0) == 0) chosen = *it;
  }
  for (auto it = lines.begin(); it != lines.end() && chosen.empty(); ++it) {
    const bool mpirun_note = it->find("exited on signal") != std::string::npos ||
                             it->find("noticed that process") != std::string::npos;
    const bool srun_note =
        it->rfind("srun: error:", 0) == 0 && it->find(": task") != std::string::npos;
    if (mpirun_note || srun_note) chosen = *it;
  }
  if (chosen.empty() && !lines.empty()) chosen = lines.back();
  if (chosen.size() > 300) chosen = chosen.substr(0, 297) + "...";
  return chosen;
}

Tally tally(const Plan& plan, const RecordBook& book) {
  Tally t;
  for (const PlannedRun& run : plan.runs) {
    const RecordEntry* e = book.find(run.id);
    if (!e) {
      ++t.missing;
    } else if (e->status == "valid") {
      ++t.valid;
    } else {
      (e->status == "invalid" ? t.invalid : t.failed) += 1;
      t.problems.emplace_back(run.id, *e);
    }
  }
  return t;
}

void print_summary(std::ostream& out, const CampaignSpec& spec, const Tally& t,
                   const CampaignFolder& folder) {
  const std::size_t total = t.valid + t.invalid + t.failed + t.missing;
  out << "campaign " << spec.name << ": " << total << " runs: " << t.valid << " valid, "
      << t.invalid << " invalid, " << t.failed << " failed, " << t.missing
      << " without a record; records in " << folder.records() << "\n";
  if (!t.problems.empty()) {
    out << "failures:\n";
    for (const auto& [id, entry] : t.problems) {
      out << "  " << id << "  " << entry.status << ": "
          << (entry.reason.empty() ? "(no reason given)" : entry.reason) << "\n";
    }
  }
  out.flush();
}

std::vector<std::string> drop_failed_records(const Plan& plan, const CampaignFolder& folder) {
  std::set<std::string> ids;
  for (const PlannedRun& run : plan.runs) ids.insert(run.id);
  std::ifstream in(folder.records(), std::ios::binary);
  if (!in) return {};
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string kept;
  std::vector<std::string> moved;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string::npos) break;  // a torn tail is dropped with the rewrite
    const std::string content = text.substr(start, end - start);
    start = end + 1;
    bool drop = false;
    if (!trim(content).empty()) {
      try {
        const json record = json::parse(content);
        const std::string id = record.value("run_id", "");
        drop = record.value("status", "") == "failed" && ids.count(id);
        if (drop) moved.push_back(id);
      } catch (const json::exception&) {
      }
    }
    if (drop) {
      append_line(folder.failed_attempts(), content);
    } else {
      kept += content + "\n";
    }
  }
  if (!moved.empty()) write_file_atomically(folder.records(), kept);
  return moved;
}

}  // namespace mcb::campaign
