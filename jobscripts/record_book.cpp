#include "jobscripts/record_book.hpp"

#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/jsonl.hpp"
#include "common/run_record.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

RecordBook RecordBook::read(const std::string& path, std::ostream* notices) {
  RecordBook book;
  const jsonl::Contents contents = book.scan(path, {});
  if (notices) jsonl::report_torn(*notices, "mcb-campaign", contents);
  return book;
}

void RecordBook::read_more(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec || size < consumed_.offset) consumed_ = {};  // rewritten shorter: read it all again
  scan(path, consumed_);
}

namespace {

// What status shows of a record: its verdict and where, in which batch job and how long it ran.
RecordEntry entry_of(const RunRecord& record) {
  RecordEntry e{record.status, record.reason.value_or(""), "", "", std::nullopt};
  if (record.env) {
    const nlohmann::json& env = *record.env;
    if (const auto id = env.find("batch_job_id"); id != env.end() && id->is_string())
      e.batch_job_id = id->get<std::string>();
    std::vector<std::string> hosts;
    if (const auto h = env.find("hosts"); h != env.end() && h->is_array()) {
      for (const auto& host : *h) {
        if (host.is_string() && std::find(hosts.begin(), hosts.end(), host) == hosts.end())
          hosts.push_back(host.get<std::string>());
      }
    } else if (const auto one = env.find("host"); one != env.end() && one->is_string()) {
      hosts.push_back(one->get<std::string>());
    }
    for (const auto& host : hosts) e.nodes += (e.nodes.empty() ? "" : ",") + host;
  }
  if (record.result) {
    if (const auto w = record.result->find("wall_time");
        w != record.result->end() && w->is_number())
      e.wall_time = w->get<double>();
  }
  return e;
}

}  // namespace

// A torn tail is not read: while runs go on it may be a record still being appended, and after
// a crash the next append cuts it off. read() reports it (see common/jsonl.hpp).
jsonl::Contents RecordBook::scan(const std::string& path, jsonl::From from) {
  jsonl::Contents contents = jsonl::read(path, from, /*missing_ok=*/true);
  for (const jsonl::Line& line : contents.lines) {
    const RunRecord record = RunRecord::from_stored(line, path);
    entries_.insert_or_assign(record.run_id, entry_of(record));
  }
  consumed_ = {contents.end_of_whole, contents.last_line};
  return contents;
}

const RecordEntry* RecordBook::find(const std::string& run_id) const {
  const auto it = entries_.find(run_id);
  return it == entries_.end() ? nullptr : &it->second;
}

std::string record_line_for(const std::string& path, const std::string& run_id) {
  for (const jsonl::Line& line : jsonl::read(path, {}, /*missing_ok=*/true).lines) {
    if (line.doc.is_object() && line.doc.value("run_id", "") == run_id) return line.text;
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
  RunRecord record;
  record.run_id = run.id;
  record.campaign = spec.name;
  record.repetition = run.repetition;
  record.app = spec.app;
  record.status = "failed";
  record.reason = reason;
  record.config = json{{"total_size", c.ranks},
                       {"components", c.clusters},
                       {"campaign_index", c.index},
                       {"options", options}};
  record.env = environment_block(static_cast<int>(argv.size()), argv.data());
  (*record.env)["executor"] = spec.executor;
  // The machine's share (docs/records.md): known here only when the run was on this host.
  const unsigned cores = std::thread::hardware_concurrency();
  const bool here = spec.executor == "local" && cores > 0;
  (*record.env)["cores_available"] = here ? json(cores) : json(nullptr);
  (*record.env)["ranks_per_core"] =
      here ? json(static_cast<double>(c.ranks) / cores) : json(nullptr);
  record.extra["failure"] = details;
  return record.to_json();
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
  // Whole lines are kept as written; a torn tail is dropped with the rewrite.
  std::string kept;
  std::vector<std::string> moved;
  const jsonl::Contents contents = jsonl::read(folder.records(), {}, /*missing_ok=*/true);
  std::size_t previous = 0;
  for (const jsonl::Line& line : contents.lines) {
    kept.append(line.number - previous - 1, '\n');  // blank lines stay where they were
    previous = line.number;
    const std::string id = line.doc.is_object() ? line.doc.value("run_id", "") : "";
    if (line.doc.is_object() && line.doc.value("status", "") == "failed" && ids.count(id)) {
      moved.push_back(id);
      append_line(folder.failed_attempts(), line.text);
    } else {
      kept += line.text + "\n";
    }
  }
  kept.append(contents.last_line - previous, '\n');
  if (!moved.empty()) write_file_atomically(folder.records(), kept);
  return moved;
}

}  // namespace mcb::campaign
