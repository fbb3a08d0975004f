#include "jobscripts/load_output.hpp"

#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>

namespace mcb::load {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Times to the millisecond: the stamps' resolution that matters on a batch system.
double ms(double seconds) { return std::round(seconds * 1000) / 1000; }

std::optional<double> when(double t) {
  return t >= 0 ? std::optional<double>(ms(t)) : std::nullopt;
}

std::string utc(long long unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string swf_text(const LoadSpec& spec, const LoadedSystem& system, int partition,
                     const RunResult& result, const std::vector<sim::SwfRecord>& records) {
  std::string text = sim::swf_header({
      {"Version", "2.2"},
      {"Computer", system.name + " (" + system.kind + "), background load of mcb-load"},
      {"Installation", system.name},
      {"Information", "load " + load_id(spec) +
                          "; jobs as they ran, times in real seconds "
                          "(the trace's compressed " +
                          csv::exact(spec.factor) + " times)"},
      {"Note",
       "submit = when the load asked; start and end = the job's own stamps; "
       "status 1 completed, 0 failed, 5 cancelled by the load"},
      {"UnixStartTime", std::to_string(result.origin)},
      {"StartTime", utc(result.origin)},
      {"MaxJobs", std::to_string(records.size())},
      {"MaxRecords", std::to_string(records.size())},
      {"Preemption", "No"},
      {"MaxProcs", std::to_string(system.processors)},
      {"MaxPartitions", "1"},
      {"Partition", std::to_string(partition) + " " + system.name},
  });
  for (const sim::SwfRecord& r : records) text += sim::swf_line(r) + "\n";
  return text;
}

const std::vector<std::string> kColumns = {
    "seq",          "system",        "batch_id",    "trace_job", "trace_line",
    "trace_submit", "trace_runtime", "trace_procs", "procs",     "runtime",
    "time_limit",   "planned",       "issued",      "submitted", "started",
    "ended",        "lag",           "outcome",     "stamped",   "note"};

std::string jobs_csv(const std::vector<LoadedSystem>& systems, const RunResult& result) {
  csv::Writer w(kColumns);
  for (const RanJob& j : result.jobs) {
    const PlannedJob& p = j.plan;
    w.row({std::to_string(p.seq + 1),
           systems[p.system].name,
           j.id,
           std::to_string(p.trace_job),
           std::to_string(p.trace_line),
           csv::exact(p.trace_submit),
           csv::exact(p.trace_runtime),
           std::to_string(p.trace_procs),
           std::to_string(p.procs),
           csv::exact(ms(p.runtime)),
           csv::exact(ms(p.time_limit)),
           csv::exact(ms(j.planned)),
           csv::optional_number(when(j.issued)),
           csv::optional_number(when(j.submitted)),
           csv::optional_number(when(j.started)),
           csv::optional_number(when(j.ended)),
           j.issued >= 0 ? csv::exact(ms(j.issued - j.planned)) : "",
           to_string(j.outcome),
           j.stamped ? "yes" : "no",
           j.note});
  }
  return w.text();
}

json summary_of(const std::vector<double>& values) {
  if (values.empty()) return nullptr;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const Summary s = summarize(values);
  const auto p95 = sorted[static_cast<std::size_t>(std::ceil(0.95 * sorted.size())) - 1];
  return {{"n", s.n},       {"min", ms(s.min)}, {"mean", ms(s.avg)}, {"median", ms(s.median)},
          {"p95", ms(p95)}, {"max", ms(s.max)}};
}

json system_block(const LoadSpec& spec, const TraceExcerpt& excerpt, const LoadedSystem& system,
                  std::size_t index, const RunResult& result) {
  long long planned = 0;  // submitted to this system
  std::map<std::string, long long> outcomes{{"completed", 0}, {"cancelled", 0}, {"failed", 0}};
  double offered = 0, used = 0;
  for (const RanJob& j : result.jobs) {
    if (j.plan.system != index) continue;
    ++planned;
    ++outcomes[to_string(j.outcome)];
    offered += j.plan.procs * j.plan.runtime;
    if (j.started >= 0 && j.ended >= 0) used += j.plan.procs * (j.ended - j.started);
  }
  const double compressed_span = excerpt.span / spec.factor;
  const double capacity = system.processors;
  return {{"name", system.name},
          {"kind", system.kind},
          {"partition", index + 1},
          {"file", system.name + ".swf"},
          {"processors", system.processors},
          {"procs_scale", system.scale},
          {"submitted", planned},
          {"outcomes", outcomes},
          // Processor-seconds the submitted jobs ask, per processor-second of the window.
          {"offered_load",
           compressed_span > 0 ? json(offered / (capacity * compressed_span)) : json(nullptr)},
          // What they held, per processor-second of the whole load.
          {"utilization", result.wall_seconds > 0 ? json(used / (capacity * result.wall_seconds))
                                                  : json(nullptr)}};
}

json summary_json(const LoadSpec& spec, const TraceExcerpt& excerpt,
                  const std::vector<LoadedSystem>& systems, const RunResult& result) {
  json window;
  if (spec.window.time) {
    window = {{"start", spec.window.time->first}, {"end", spec.window.time->second}};
  } else {
    window = {{"from", spec.window.from},
              {"count", spec.window.count ? json(*spec.window.count) : json(nullptr)}};
  }
  std::vector<double> issue_lag, submit_lag;
  for (const RanJob& j : result.jobs) {
    issue_lag.push_back(j.issued - j.planned);
    if (j.submitted >= 0) submit_lag.push_back(j.submitted - j.planned);
  }
  json out = {
      {"schema", kLoadSchema},
      {"id", load_id(spec)},
      {"trace",
       {{"path", fs::absolute(spec.trace).lexically_normal().string()},
        {"header", excerpt.header.fields},
        {"job_lines_read", excerpt.job_lines},
        {"jobs", excerpt.jobs.size()},
        {"skipped", excerpt.skipped}}},
      {"window", window},
      {"window_trace_seconds", excerpt.span},
      {"factor", spec.factor},
      {"procs_scale", spec.procs_scale ? json(*spec.procs_scale) : json("auto")},
      {"max_procs", spec.max_procs > 0 ? json(spec.max_procs) : json(nullptr)},
      {"assign", to_string(spec.assign)},
      {"seed", spec.seed},
      {"time_limit_slack", spec.slack},
      {"origin_unix", result.origin},
      {"started", utc(result.origin)},
      {"wall_seconds", ms(result.wall_seconds)},
      {"ended_by", result.ended_by},
      {"submitted", result.jobs.size()},
      {"not_submitted", result.not_submitted},
      {"unconfirmed_cancellations", result.unconfirmed},
      {"lag", {{"issue", summary_of(issue_lag)}, {"submit", summary_of(submit_lag)}}},
  };
  json blocks = json::array();
  for (std::size_t i = 0; i < systems.size(); ++i) {
    blocks.push_back(system_block(spec, excerpt, systems[i], i, result));
  }
  out["systems"] = blocks;
  return out;
}

}  // namespace

std::vector<sim::SwfRecord> ran_records(const RunResult& result, std::size_t system,
                                        int partition) {
  std::vector<sim::SwfRecord> records;
  for (const RanJob& j : result.jobs) {
    if (j.plan.system != system || j.id.empty()) continue;
    sim::SwfRecord r;
    r.job = static_cast<std::int64_t>(records.size()) + 1;
    r.submit = ms(j.issued);
    const bool ran = j.started >= 0;
    r.wait = ran ? std::max(0.0, ms(ms(j.started) - r.submit)) : -1;
    r.run = ran && j.ended >= 0 ? ms(ms(j.ended) - ms(j.started)) : -1;
    r.procs = ran ? j.plan.procs : -1;
    r.req_procs = j.plan.procs;
    r.req_time = ms(j.plan.time_limit);
    r.status = j.outcome == Outcome::completed ? 1 : j.outcome == Outcome::cancelled ? 5 : 0;
    r.partition = partition;
    records.push_back(r);
  }
  return records;
}

void write_outputs(const std::string& dir, const LoadSpec& spec, const TraceExcerpt& excerpt,
                   const std::vector<LoadedSystem>& systems, const RunResult& result,
                   const nlohmann::json& env) {
  std::vector<std::unique_ptr<AtomicFile>> files;
  const auto add = [&](const std::string& name, const std::string& text) {
    files.push_back(std::make_unique<AtomicFile>((fs::path(dir) / name).string()));
    files.back()->stream() << text;
    files.back()->finish();
  };
  for (std::size_t i = 0; i < systems.size(); ++i) {
    const int partition = static_cast<int>(i) + 1;
    add(systems[i].name + ".swf",
        swf_text(spec, systems[i], partition, result, ran_records(result, i, partition)));
  }
  add("jobs.csv", jobs_csv(systems, result));
  json summary = summary_json(spec, excerpt, systems, result);
  summary["env"] = env;
  add("load.json", summary.dump(2) + "\n");
  for (auto& f : files) f->commit();
}

json cite_load(const std::string& summary) {
  std::ifstream in(summary);
  if (!in) throw UsageError("--load: cannot read '" + summary + "'");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw UsageError("--load: '" + summary + "' is not JSON: " + e.what());
  }
  if (!doc.is_object() || doc.value("schema", "") != kLoadSchema) {
    throw UsageError("--load: '" + summary + "' is not a load summary (schema " + kLoadSchema +
                     ")");
  }
  try {
    json systems = json::array();
    for (const json& s : doc.value("systems", json::array())) {
      systems.push_back(s.value("name", ""));
    }
    return {{"id", doc.value("id", "")},
            {"summary", fs::absolute(summary).lexically_normal().string()},
            {"trace", doc.value("trace", json::object()).value("path", "")},
            {"window", doc.value("window", json::object())},
            {"factor", doc.value("factor", 0.0)},
            {"assign", doc.value("assign", "")},
            {"seed", doc.value("seed", std::uint64_t{0})},
            {"systems", systems}};
  } catch (const json::exception& e) {
    throw UsageError("--load: '" + summary + "' is not a load summary: " + e.what());
  }
}

}  // namespace mcb::load
