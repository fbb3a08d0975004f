#include "jobscripts/estimate.hpp"

#include "common/errors.hpp"
#include "common/jsonl.hpp"
#include "common/run_record.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Options = std::vector<std::pair<std::string, std::string>>;

// The runs of one configuration: app, processes, clusters, options.
struct Key {
  std::string app;
  long long ranks = 0;
  long long clusters = 0;
  Options options;
  bool operator<(const Key& o) const {
    return std::tie(app, ranks, clusters, options) <
           std::tie(o.app, o.ranks, o.clusters, o.options);
  }
};

struct Times {
  double sum = 0;
  std::size_t n = 0;
};

std::vector<std::string> files_of(const std::string& source) {
  std::error_code ec;
  if (!fs::is_directory(source, ec)) return {source};
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(source, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".jsonl")
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The key of a valid record with a wall time; none for any other record.
std::optional<std::pair<Key, double>> key_of(const RunRecord& r) {
  if (r.status != "valid" || !r.config || !r.env || !r.result) return std::nullopt;
  const json& config = *r.config;
  const auto size = config.find("total_size");
  const auto components = config.find("components");
  const auto command = r.env->find("command_line");
  const auto wall = r.result->find("wall_time");
  if (size == config.end() || !size->is_number_integer() || components == config.end() ||
      !components->is_number_integer() || command == r.env->end() || !command->is_array() ||
      command->empty() || wall == r.result->end() || !wall->is_number()) {
    return std::nullopt;
  }
  std::vector<std::string> words;
  for (std::size_t i = 1; i < command->size(); ++i) {
    if (!(*command)[i].is_string()) return std::nullopt;
    words.push_back((*command)[i].get<std::string>());
  }
  return std::make_pair(
      Key{r.app, size->get<long long>(), components->get<long long>(), compared_options(words)},
      wall->get<double>());
}

std::string seconds_text(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

}  // namespace

const std::set<std::string>& run_options_ignored() {
  static const std::set<std::string> names = {"--run-id", "--campaign", "--repetition",
                                              "--output", "--seed",     "--cluster-map"};
  return names;
}

std::vector<std::pair<std::string, std::string>> compared_options(
    const std::vector<std::string>& words) {
  Options options;
  bool awaiting = false;  // the last option has no value yet
  for (const std::string& word : words) {
    if (word.rfind("--", 0) == 0) {
      const auto eq = word.find('=');
      options.emplace_back(word.substr(0, eq), eq == std::string::npos ? "" : word.substr(eq + 1));
      awaiting = eq == std::string::npos;
    } else if (awaiting) {
      options.back().second = word;
      awaiting = false;
    } else if (!options.empty()) {
      options.emplace_back(options.back().first, word);  // another value of a multi-value option
    }
  }
  std::erase_if(options, [](const auto& o) { return run_options_ignored().count(o.first) > 0; });
  std::sort(options.begin(), options.end());
  return options;
}

CampaignEstimate estimate_campaign(const CampaignSpec& spec, const Plan& plan,
                                   const std::vector<std::string>& sources, std::ostream* notices) {
  CampaignEstimate estimate;
  estimate.timeout = spec.timeout;
  std::map<Key, Times> times;
  std::set<std::string> seen;
  for (const std::string& source : sources) {
    for (const std::string& file : files_of(source)) {
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) continue;
      const jsonl::Contents contents = jsonl::read(file, {}, /*missing_ok=*/true);
      if (notices) jsonl::report_torn(*notices, "mcb-campaign", contents);
      estimate.sources.push_back(file);
      for (const jsonl::Line& line : contents.lines) {
        const RunRecord record = RunRecord::from_stored(line, file);
        if (!seen.insert(record.run_id).second) continue;
        if (const auto keyed = key_of(record)) {
          ++estimate.valid_records;
          Times& t = times[keyed->first];
          t.sum += keyed->second;
          ++t.n;
        }
      }
    }
  }
  for (const PlannedRun& run : plan.runs) {
    const Configuration& c = plan.of(run);
    RunEstimate e{run.id, std::nullopt, 0};
    const auto it = times.find(Key{spec.app, c.ranks, c.clusters, compared_options(c.app_args)});
    if (it != times.end()) {
      e.seconds = it->second.sum / static_cast<double>(it->second.n);
      e.records = it->second.n;
      estimate.total += *e.seconds;
    } else {
      ++estimate.without;
    }
    estimate.runs.push_back(e);
  }
  return estimate;
}

std::string estimate_text(const RunEstimate& e) {
  if (!e.seconds) return "no earlier record";
  return "est. " + seconds_text(*e.seconds) + " (" + std::to_string(e.records) +
         (e.records == 1 ? " record)" : " records)");
}

void print_estimate_total(std::ostream& out, const CampaignEstimate& e) {
  const std::size_t with = e.runs.size() - e.without;
  out << "\nestimate: " << seconds_text(e.total) << " of timed run time for " << with << " of "
      << e.runs.size() << " run(s) (each run's launch and start-up come on top), the mean wall "
      << "time of earlier valid runs of the same configuration (" << e.valid_records
      << " valid record(s) in " << e.sources.size() << " file(s))\n";
  if (e.without > 0) {
    out << e.without << " run(s) without an earlier record (each up to its timeout, "
        << seconds_text(e.timeout) << "):";
    for (const RunEstimate& r : e.runs) {
      if (!r.seconds) out << " " << r.id;
    }
    out << "\n";
  }
  for (const std::string& s : e.sources) out << "  records from " << s << "\n";
}

json estimate_json(const CampaignEstimate& e) {
  json runs = json::array();
  json without = json::array();
  for (const RunEstimate& r : e.runs) {
    runs.push_back({{"id", r.id},
                    {"estimate_s", r.seconds ? json(*r.seconds) : json(nullptr)},
                    {"records", r.records}});
    if (!r.seconds) without.push_back(r.id);
  }
  return {{"total_s", e.total},      {"runs_with_estimate", e.runs.size() - e.without},
          {"runs_without", without}, {"timeout_s", e.timeout},
          {"sources", e.sources},    {"runs", runs}};
}

}  // namespace mcb::campaign
