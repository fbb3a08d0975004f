#include "jobscripts/batch.hpp"

#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/text.hpp"
#include "jobscripts/process.hpp"
#include "jobscripts/record_book.hpp"
#include "jobscripts/shell.hpp"
#include "jobscripts/status_table.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// jobs.txt: one line per submitted jobscript, "<job id>\t<script>\t<key>,<key>...".
struct JobsList {
  std::map<std::string, std::string> job_of_key;  // the latest job each run went into
};

JobsList read_jobs(const CampaignFolder& folder) {
  JobsList list;
  std::ifstream in(folder.jobs_list());
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id;
    std::string script;
    std::string keys;
    if (!std::getline(fields, id, '\t') || !std::getline(fields, script, '\t') ||
        !std::getline(fields, keys)) {
      continue;
    }
    std::istringstream split(keys);
    std::string key;
    while (std::getline(split, key, ',')) list.job_of_key[key] = id;
  }
  return list;
}

// runs/<key>.status, written by mcb_run when the run's launcher ended.
struct RunStatus {
  int exit_code = 0;
  long seconds = 0;
  std::string ended;  // exit, timeout, lingered
  int launches = 1;   // 2 when the first launch's tasks died on a signal before any record
};

std::optional<RunStatus> read_status(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  RunStatus s;
  std::string word;
  bool complete = false;
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = word.substr(0, eq);
    const std::string value = word.substr(eq + 1);
    try {
      if (name == "exit") s.exit_code = std::stoi(value);
      if (name == "seconds") s.seconds = std::stol(value);
      if (name == "launches") s.launches = std::stoi(value);
    } catch (const std::exception&) {
    }
    if (name == "ended") {
      s.ended = value;
      complete = true;
    }
  }
  if (!complete) return std::nullopt;
  return s;
}

// A job in the queue listing; PBS lists "123.server" possibly shortened, so the number counts too.
const JobState* queue_state(const std::map<std::string, JobState>& active, const std::string& id) {
  if (const auto it = active.find(id); it != active.end()) return &it->second;
  if (const auto it = active.find(id.substr(0, id.find('.'))); it != active.end())
    return &it->second;
  return nullptr;
}

std::string failure_reason(const CampaignSpec& spec, const RunStatus& s, const std::string& log) {
  const std::string launcher = fs::path(spec.batch().launcher.front()).filename().string();
  const std::string excerpt = log_excerpt(log, fs::path(spec.binary).filename().string());
  std::string tail = excerpt.empty() ? "" : ": " + excerpt;
  if (s.launches > 1)
    tail += " (launched twice: the first launch died on a signal, its log " + log + ".1)";
  if (s.ended == "timeout") {
    return "timed out after " + std::to_string(static_cast<long>(spec.timeout)) + " s" + tail;
  }
  if (s.ended == "lingered" && s.exit_code != 0) {
    return launcher + " exit code " + std::to_string(s.exit_code) + " (its tasks' code; " +
           launcher + " did not end after them)" + tail;
  }
  if (s.ended == "lingered") return launcher + " did not end after its run" + tail;
  if (s.exit_code > 128) {
    return launcher + " exit code " + std::to_string(s.exit_code) + " (signal " +
           std::to_string(s.exit_code - 128) + ")" + tail;
  }
  return launcher + " exit code " + std::to_string(s.exit_code) +
         (s.exit_code == 0 ? " without a record" : "") + tail;
}

// One collection pass; the queue is read before the files, so a job missing from the queue
// has finished writing everything it will write.
struct CollectPass {
  std::size_t merged = 0;
  std::size_t failed = 0;
  std::size_t queued = 0;
  std::size_t unsubmitted = 0;
  std::map<std::string, std::size_t> states;  // queue state -> runs
};

CollectPass collect_once(const CampaignSpec& spec, const Plan& plan, const BatchSystem& system,
                         const CampaignFolder& folder) {
  const std::map<std::string, JobState> active = system.active_jobs();
  const JobsList jobs = read_jobs(folder);
  RecordBook book = RecordBook::read(folder.records());
  CollectPass pass;
  for (const PlannedRun& run : plan.runs) {
    if (book.find(run.id)) continue;
    const std::string line = record_line_for(folder.run_file(run.key, ".jsonl"), run.id);
    if (!line.empty()) {
      append_line(folder.records(), line);
      ++pass.merged;
      continue;
    }
    const auto job = jobs.job_of_key.find(run.key);
    const std::string log = folder.run_file(run.key, ".log");
    json details = {{"log", log}, {"timeout", spec.timeout}};
    if (job != jobs.job_of_key.end()) details["job_id"] = job->second;
    if (const auto status = read_status(folder.run_file(run.key, ".status"))) {
      details["exit_code"] = status->exit_code;
      details["seconds"] = status->seconds;
      details["ended"] = status->ended;
      details["launches"] = status->launches;
      append_line(folder.records(),
                  failure_record(spec, plan, run, failure_reason(spec, *status, log), details,
                                 {folder.run_file(run.key, ".log")})
                      .dump());
      ++pass.failed;
      continue;
    }
    if (job == jobs.job_of_key.end()) {
      ++pass.unsubmitted;
      continue;
    }
    if (const JobState* state = queue_state(active, job->second)) {
      ++pass.queued;
      ++pass.states[state->state];
      continue;
    }
    const std::string final_state = system.final_state(job->second);
    const std::string reason = "job " + job->second + " ended before this run finished" +
                               (final_state.empty() ? "" : " (" + final_state + ")") +
                               "; its output is in " + folder.jobs_dir();
    details["job_state"] = final_state;
    append_line(folder.records(),
                failure_record(spec, plan, run, reason, details, {folder.run_file(run.key, ".log")})
                    .dump());
    ++pass.failed;
  }
  return pass;
}

std::string state_counts(const CollectPass& pass) {
  std::string text;
  for (const auto& [state, n] : pass.states) {
    text += text.empty() ? "" : ", ";
    text += std::to_string(n) + " " + state;
  }
  return text;
}

// Consecutive runs of the same shape, at most group_size per jobscript.
std::vector<JobBatch> make_batches(const Plan& plan, const std::vector<const PlannedRun*>& runs,
                                   int group_size) {
  std::vector<JobBatch> batches;
  for (const PlannedRun* run : runs) {
    const Configuration& c = plan.of(*run);
    if (batches.empty() || batches.back().ranks != c.ranks ||
        batches.back().clusters != c.clusters ||
        static_cast<int>(batches.back().runs.size()) >= group_size) {
      batches.push_back({"", {}, c.ranks, c.clusters});
    }
    batches.back().runs.push_back(run);
  }
  for (JobBatch& b : batches) {
    b.name = b.runs.front()->key;
    if (b.runs.size() > 1) {
      b.name += '+';
      b.name += std::to_string(b.runs.size() - 1);
    }
  }
  return batches;
}

void remove_run_files(const CampaignFolder& folder, const std::string& key) {
  std::error_code ec;
  for (const char* ext : {".jsonl", ".status", ".lingered", ".log", ".log.1", ".map"}) {
    fs::remove(folder.run_file(key, ext), ec);
  }
  // The tasks' exit codes, runs/<key>.task.<rank>.
  const fs::path runs = fs::path(folder.run_file(key, ".log")).parent_path();
  const std::string prefix = key + ".task.";
  for (const auto& entry : fs::directory_iterator(runs, ec)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) fs::remove(entry.path(), ec);
  }
}

}  // namespace

std::unique_ptr<BatchSystem> make_batch_system(const CampaignSpec& spec, const Plan& plan,
                                               const CampaignFolder& folder) {
  if (spec.executor == "slurm") return make_slurm_system(spec, plan, folder);
  if (spec.executor == "pbs") return make_pbs_system(spec, plan, folder);
  throw std::logic_error("no batch system for executor " + spec.executor);
}

std::string BatchSystem::render(const JobBatch& batch) const {
  std::string directive_lines = directives(batch);
  directive_lines.pop_back();
  std::string keys;
  std::string runs;
  for (const PlannedRun* run : batch.runs) {
    keys += keys.empty() ? "" : " ";
    keys += run->key;
    runs += run_lines(batch, *run);
  }
  std::string environment;
  for (const auto& [name, value] : spec_.env)
    environment += "export " + name + "=" + shell_quote(value) + "\n";
  environment = environment.empty() ? "# (no environment settings in the spec)"
                                    : environment.substr(0, environment.size() - 1);
  const std::string& setup = spec_.batch().setup;
  std::string run_section = fill_template(
      run_section_template(),
      {{"FOLDER", shell_quote(folder_.root)},
       {"ENVIRONMENT", environment},
       {"SETUP", setup.empty() ? "# (no setup file in the spec)" : ". " + shell_quote(setup)},
       {"RUNS", runs}});
  run_section.pop_back();  // its last newline: the system's template ends the line
  return fill_template(jobscript_template(), {{"CAMPAIGN", plain_name(spec_.name, 80)},
                                              {"KEYS", keys},
                                              {"SCRIPT", "jobs/" + batch.name + script_extension()},
                                              {"DIRECTIVES", directive_lines},
                                              {"RUN_SECTION", run_section}});
}

std::vector<std::string> BatchSystem::app_command(const PlannedRun& run,
                                                  const std::vector<std::string>& extra) const {
  std::vector<std::string> words{spec_.binary};
  const Configuration& c = plan_.of(run);
  words.insert(words.end(), c.app_args.begin(), c.app_args.end());
  words.insert(words.end(), extra.begin(), extra.end());
  for (const std::string& w :
       {std::string("--run-id"), run.id, std::string("--campaign"), spec_.name,
        std::string("--repetition"), std::to_string(run.repetition), std::string("--output"),
        folder_.run_file(run.key, ".jsonl")}) {
    words.push_back(w);
  }
  return words;
}

std::string BatchSystem::run_prefix(const PlannedRun& run, int tasks) const {
  return "mcb_run " + shell_quote(run.key) + " " +
         std::to_string(static_cast<long>(std::ceil(spec_.timeout))) + " " +
         std::to_string(static_cast<long>(std::ceil(spec_.batch().linger))) + " " +
         std::to_string(tasks);
}

double BatchSystem::job_seconds(const JobBatch& batch) const {
  // Per run: its timeout, the linger allowance, the kill grace; per job: start-up margin.
  return static_cast<double>(batch.runs.size()) * (spec_.timeout + spec_.batch().linger + 20) + 120;
}

std::string BatchSystem::queue_command(const std::vector<std::string>& argv, const std::string& cwd,
                                       const std::string& failure) {
  const Captured r = capture(argv, cwd, 120);
  if (!r.start_error.empty()) throw std::runtime_error("cannot run " + r.start_error);
  if (r.timed_out) throw std::runtime_error(failure + ": no answer in 120 s");
  if (!r.status.success()) {
    throw std::runtime_error(failure + ": " + r.status.describe() + ": " + first_line(r.err));
  }
  return r.out;
}

std::string BatchSystem::first_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (!line.empty()) return line;
  }
  return "";
}

void check_jobscripts(const CampaignSpec& spec, const Plan& plan) {
  const CampaignFolder folder{spec.folder};
  const auto system = make_batch_system(spec, plan, folder);
  std::vector<const PlannedRun*> all;
  for (const PlannedRun& run : plan.runs) all.push_back(&run);
  for (const JobBatch& b : make_batches(plan, all, system->group_size())) (void)system->render(b);
}

int submit_campaign(const CampaignSpec& spec, const Plan& plan, const BatchOptions& options,
                    std::ostream& out) {
  // Every jobscript must render before anything is written or submitted.
  check_jobscripts(spec, plan);
  const CampaignFolder folder{spec.folder};
  prepare_folder(spec, plan, folder);
  std::filesystem::create_directories(folder.jobs_dir());
  const FolderLock lock(folder);
  guard_plan(spec, plan, folder);
  const auto system = make_batch_system(spec, plan, folder);

  if (options.retry_failed) {
    const auto moved = drop_failed_records(plan, folder);
    const std::set<std::string> ids(moved.begin(), moved.end());
    for (const PlannedRun& run : plan.runs) {
      if (ids.count(run.id)) remove_run_files(folder, run.key);
    }
    if (!moved.empty()) {
      out << "submitting " << moved.size() << " failed run(s) again; their old records are in "
          << folder.failed_attempts() << "\n";
    }
  }

  std::map<std::string, JobState> active;
  if (options.submit) {
    const CollectPass pass = collect_once(spec, plan, *system, folder);
    if (pass.merged + pass.failed > 0) {
      out << "collected " << pass.merged << " record(s), " << pass.failed << " failure(s)\n";
    }
    active = system->active_jobs();
  }
  const RecordBook book = RecordBook::read(folder.records());
  const JobsList jobs = read_jobs(folder);
  std::vector<const PlannedRun*> pending;
  std::size_t queued = 0;
  for (const PlannedRun& run : plan.runs) {
    if (book.find(run.id)) continue;
    const auto job = jobs.job_of_key.find(run.key);
    if (options.submit && job != jobs.job_of_key.end() && queue_state(active, job->second)) {
      ++queued;
      continue;
    }
    pending.push_back(&run);
  }

  const std::vector<JobBatch> batches = make_batches(plan, pending, system->group_size());
  std::vector<std::string> scripts;
  for (const JobBatch& b : batches) {
    const std::string script = folder.jobs_dir() + "/" + b.name + system->script_extension();
    write_file_atomically(script, system->render(b));
    ::chmod(script.c_str(), 0755);
    scripts.push_back(script);
  }
  if (!options.submit) {
    out << "wrote " << scripts.size() << " " << system->name() << " jobscript(s) for "
        << pending.size() << " run(s) in " << folder.jobs_dir() << "\n";
    for (const std::string& s : scripts) out << "  " << s << "\n";
    return 0;
  }
  std::size_t submitted_runs = 0;
  for (std::size_t i = 0; i < batches.size(); ++i) {
    for (const PlannedRun* run : batches[i].runs) remove_run_files(folder, run->key);
    std::string id;
    try {
      id = system->submit(scripts[i]);
    } catch (const std::exception& e) {
      out << "campaign " << spec.name << ": submitted " << i << " of " << batches.size()
          << " jobscript(s); " << scripts[i] << " failed: " << e.what() << "\n";
      out.flush();
      return 1;
    }
    std::string keys;
    for (const PlannedRun* run : batches[i].runs) {
      keys += keys.empty() ? "" : ",";
      keys += run->key;
    }
    append_line(folder.jobs_list(),
                id + "\t" + fs::path(scripts[i]).filename().string() + "\t" + keys);
    submitted_runs += batches[i].runs.size();
  }
  out << "campaign " << spec.name << ": submitted " << batches.size() << " " << system->name()
      << " job(s) for " << submitted_runs << " run(s); " << queued << " run(s) already queued, "
      << book.size() << " recorded. "
      << "'mcb-campaign status' shows progress, 'mcb-campaign collect' gathers the records\n";
  out.flush();
  return 0;
}

int collect_campaign(const CampaignSpec& spec, const Plan& plan, const BatchOptions& options,
                     std::ostream& out) {
  const CampaignFolder folder{spec.folder};
  prepare_folder(spec, plan, folder);
  const auto system = make_batch_system(spec, plan, folder);
  const auto start = std::chrono::steady_clock::now();
  std::string last_note;
  CollectPass pass;
  while (true) {
    {
      const FolderLock lock(folder);
      guard_plan(spec, plan, folder);
      pass = collect_once(spec, plan, *system, folder);
    }
    if (pass.merged + pass.failed > 0) {
      out << "collected " << pass.merged << " record(s), " << pass.failed << " failure(s)\n";
      out.flush();
    }
    if (!options.wait || pass.queued == 0) break;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.wait_limit > 0 && waited > options.wait_limit) {
      out << "campaign " << spec.name << ": still " << pass.queued << " run(s) in the queue ("
          << state_counts(pass) << ") after waiting " << static_cast<long>(waited) << " s\n";
      return 1;
    }
    const std::string note =
        "waiting for " + std::to_string(pass.queued) + " run(s): " + state_counts(pass);
    if (note != last_note) {
      out << note << "\n";
      out.flush();
      last_note = note;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(options.poll_seconds));
  }
  const Tally t = tally(plan, RecordBook::read(folder.records()));
  print_summary(out, spec, t, folder);
  if (pass.queued + pass.unsubmitted > 0) {
    out << "  of the runs without a record: " << pass.queued << " in the queue"
        << (pass.queued ? " (" + state_counts(pass) + ")" : "") << ", " << pass.unsubmitted
        << " not submitted\n";
  }
  return t.invalid + t.failed + t.missing == 0 ? 0 : 1;
}

std::map<std::string, JobState> BatchSystem::accounted_jobs(
    const std::vector<std::string>& /*ids*/) const {
  throw std::runtime_error(name() + " has no accounting command this executor reads");
}

namespace {

// The states status shows, from the first source that answers: the queue, the accounting, or
// none (then the records and the jobs list alone).
struct QueueStates {
  std::map<std::string, JobState> jobs;
  bool known = true;
  std::string source;
};

QueueStates read_states(const BatchSystem& system, const JobsList& list) {
  const std::string queue = system.name() == "slurm" ? "squeue" : "qstat";
  try {
    return {system.active_jobs(), true, queue};
  } catch (const std::exception& e) {
    const std::string unreachable = queue + " is unreachable: " + e.what();
    std::set<std::string> ids;
    for (const auto& [key, id] : list.job_of_key) ids.insert(id);
    if (ids.empty()) return {{}, false, "records and the jobs list (" + unreachable + ")"};
    try {
      return {system.accounted_jobs({ids.begin(), ids.end()}), true, "sacct (" + unreachable + ")"};
    } catch (const std::exception& a) {
      return {{}, false, "records and the jobs list (" + unreachable + "; " + a.what() + ")"};
    }
  }
}

}  // namespace

int batch_status(const CampaignSpec& spec, const Plan& plan, std::ostream& out, bool as_json) {
  const CampaignFolder folder{spec.folder};
  const auto system = make_batch_system(spec, plan, folder);
  const JobsList jobs = read_jobs(folder);
  const QueueStates queue = read_states(*system, jobs);
  StatusReport report{spec.name, system->name(), queue.source, {}};
  const RecordBook book = RecordBook::read(folder.records());
  std::size_t recorded = 0, queued = 0, ended = 0, unsubmitted = 0, unknown = 0;
  std::map<std::string, std::size_t> states;
  for (const PlannedRun& run : plan.runs) {
    StatusRow row{run.id, "", "", "", std::nullopt, ""};
    const auto job = jobs.job_of_key.find(run.key);
    if (job != jobs.job_of_key.end()) row.job_id = job->second;
    const JobState* listed =
        job == jobs.job_of_key.end() ? nullptr : queue_state(queue.jobs, job->second);
    if (const RecordEntry* e = book.find(run.id)) {
      ++recorded;
      row.state = "recorded";
      row.verdict = e->status;
      row.nodes = e->nodes;
      row.elapsed = e->wall_time;
      if (!e->batch_job_id.empty()) row.job_id = e->batch_job_id;
    } else if (job == jobs.job_of_key.end()) {
      ++unsubmitted;
      row.state = "not submitted";
    } else if (!queue.known) {
      ++unknown;
      row.state = "unknown";
    } else if (listed && listed->active) {
      ++queued;
      ++states[listed->state];
      row.state = listed->state;
      row.nodes = listed->nodes;
      row.elapsed = listed->elapsed;
    } else {
      ++ended;
      row.state = listed ? "ended (" + listed->state + ")" : "ended";
      if (listed) row.nodes = listed->nodes;
    }
    if (!row.elapsed && row.state != "not submitted") {
      if (const auto s = read_status(folder.run_file(run.key, ".status")))
        row.elapsed = static_cast<double>(s->seconds);
    }
    report.runs.push_back(std::move(row));
  }
  if (as_json) {
    out << status_json(report).dump(1) << "\n";
    return 0;
  }
  std::string state_text;
  for (const auto& [state, n] : states) state_text += ", " + std::to_string(n) + " " + state;
  out << "campaign " << spec.name << " (" << system->name() << "): " << plan.runs.size()
      << " runs: " << recorded << " recorded, " << queued << " in the queue" << state_text << ", "
      << ended << " ended and not collected yet, " << unsubmitted << " not submitted";
  if (!queue.known) out << ", " << unknown << " unknown";
  out << "\nstates from " << report.queue_source << "\n";
  print_status_table(out, report);
  print_summary(out, spec, tally(plan, book), folder);
  return 0;
}

}  // namespace mcb::campaign
