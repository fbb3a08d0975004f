#include "jobscripts/coalloc_launch.hpp"

#include "common/files.hpp"
#include "common/jsonl.hpp"
#include "common/run_record.hpp"
#include "jobscripts/local_executor.hpp"
#include "jobscripts/record_book.hpp"
#include "jobscripts/shell.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mcb::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kServerStartSeconds = 30;

bool alive_server(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cmdline.find("ompi-server") != std::string::npos;
}

bool uri_written(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  return std::getline(in, line) && !line.empty();
}

// ompi-server in its own session (it outlives a killed coordinator, for components that are
// joining through it), its output in a log.
pid_t spawn_server(const std::vector<std::string>& argv, const std::string& log,
                   const std::vector<std::pair<std::string, std::string>>& env) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("ompi-server: fork failed");
  if (pid == 0) {
    ::setsid();
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (null >= 0) ::dup2(null, 0);
    // Nothing else of the coordinator: the campaign folder's lock above all, which a server
    // outliving a killed coordinator would otherwise keep.
    for (int other = 3; other < 1024; ++other) ::close(other);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

double join_joined(const json& join, int k) {
  if (!join.is_object() || !join.contains("components")) return 0;
  for (const json& c : join.at("components")) {
    if (c.value("component", -1) == k) return c.value("joined_unix", 0.0);
  }
  return 0;
}

}  // namespace

RendezvousServer::RendezvousServer(const CampaignSpec& spec, const CoallocJournal& journal,
                                   std::string dir)
    : RendezvousServer(spec.coalloc.ompi_server, spec.env, journal, std::move(dir)) {}

RendezvousServer::RendezvousServer(std::string program,
                                   std::vector<std::pair<std::string, std::string>> env,
                                   const CoallocJournal& journal, std::string dir)
    : program_(std::move(program)), env_(std::move(env)), journal_(journal), dir_(std::move(dir)) {
  // The last server the journal names, if it still runs.
  for (const json& e : journal_.replay()) {
    if (e.value("event", "") == "server") {
      pid_ = e.at("pid").get<pid_t>();
      uri_file_ = e.at("uri").get<std::string>();
    } else if (e.value("event", "") == "server-stopped") {
      pid_ = -1;
      uri_file_.clear();
    }
  }
  if (!alive_server(pid_) || !uri_written(uri_file_)) {
    pid_ = -1;
    uri_file_.clear();
  }
}

RendezvousServer::~RendezvousServer() {
  // Only a server this process started and did not stop; an error path must not leave it.
  if (child_ && pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
}

const std::string& RendezvousServer::uri_file() {
  if (pid_ > 0) return uri_file_;
  const std::string uri = dir_ + "/ompi-server." + random_token() + ".uri";
  pid_ = spawn_server({program_, "--no-daemonize", "--report-uri", uri}, dir_ + "/ompi-server.log",
                      env_);
  child_ = true;
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(kServerStartSeconds);
  while (!uri_written(uri)) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_ || std::chrono::steady_clock::now() > end) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
      throw std::runtime_error("ompi-server did not start (its log: " + dir_ + "/ompi-server.log)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  uri_file_ = uri;
  journal_.append({{"event", "server"}, {"pid", pid_}, {"uri", uri_file_}});
  return uri_file_;
}

void RendezvousServer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  if (child_) {
    ::waitpid(pid_, nullptr, 0);
  } else {
    for (int i = 0; i < 100 && alive_server(pid_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (alive_server(pid_)) ::kill(pid_, SIGKILL);
  }
  journal_.append({{"event", "server-stopped"}, {"pid", pid_}});
  pid_ = -1;
  child_ = false;
}

std::string join_name(const RequestState& r) { return "mcb." + plain_name(r.request.id, 90); }

std::string join_exports(const std::string& name, int k, int components, int ranks,
                         double timeout) {
  std::ostringstream line;
  line << "export MCB_JOIN=" << shell_quote(name) << " MCB_JOIN_COMPONENT=" << k
       << " MCB_JOIN_COMPONENTS=" << components << " MCB_JOIN_RANKS=" << ranks
       << " MCB_JOIN_TIMEOUT=" << static_cast<long>(timeout) << "s\n";
  return line.str();
}

std::string request_record_file(const std::string& dir, const RequestState& r) {
  return dir + "/" + r.request.id + ".record.jsonl";
}

namespace {

// Component k's launch: its own launcher, the MCB_JOIN variables, the run's command line.
std::string launch_script(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                          const CampaignFolder& folder, const RequestState& r, int k,
                          const std::string& where, const std::string& dir,
                          RendezvousServer& server) {
  const Configuration& c = plan.of(run);
  const int components = static_cast<int>(r.request.ranks.size());
  std::ostringstream go;
  go << "#!/bin/bash\n# Component " << k << " of " << run.id << " (request " << r.request.id
     << "), " << where << "; written by mcb-campaign.\n";
  for (const auto& [name, value] : spec.env)
    go << "export " << name << "=" << shell_quote(value) << "\n";
  go << "export MCB_CAMPAIGN_RUN=" << shell_quote(run.id) << "\n";
  go << "export MCB_CLUSTER=" << shell_quote(spec.coalloc.clusters.at(static_cast<std::size_t>(k)))
     << "\n";
  std::vector<std::string> argv = spec.coalloc.launcher;
  if (components > 1) {
    // Ranks started with their allocation wait for their peers as long as the co-allocation
    // may take, then as long as a join may.
    double timeout = spec.coalloc.join_timeout;
    if (spec.coalloc.launch == Launch::at_start) timeout += spec.coalloc.timeout;
    go << join_exports(join_name(r), k, components, c.ranks, timeout);
    argv.insert(argv.end(), {"--ompi-server", "file:" + server.uri_file()});
  }
  if (!spec.coalloc.np_flag.empty()) {
    argv.push_back(spec.coalloc.np_flag);
    argv.push_back(std::to_string(r.request.ranks.at(static_cast<std::size_t>(k))));
  }
  argv.push_back(spec.binary);
  argv.insert(argv.end(), c.app_args.begin(), c.app_args.end());
  argv.insert(argv.end(), {"--cluster-map", "env:MCB_CLUSTER"});
  append_run_identity(argv, spec, run, folder);
  // The application's record goes to the request's own file; the executor adds the timeline.
  argv.back() = request_record_file(dir, r);
  go << "exec " << shell_words(argv) << "\n";
  return go.str();
}

}  // namespace

void write_go_scripts(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                      const CampaignFolder& folder, const RequestState& r, const std::string& dir,
                      RendezvousServer& server) {
  for (int k = 0; k < static_cast<int>(r.request.ranks.size()); ++k) {
    const CopyState& copy = *r.bound(k);
    if (copy.launched_at_start) continue;  // its ranks wait in the rendezvous already
    write_file_atomically(
        dir + "/" + copy.tag + ".go",
        launch_script(spec, plan, run, folder, r, k, "bound to " + copy.system + " job " + copy.job,
                      dir, server));
  }
}

void write_launch_script(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                         const CampaignFolder& folder, const RequestState& r, const CopyState& copy,
                         const std::string& dir, RendezvousServer& server) {
  write_file_atomically(dir + "/" + copy.tag + ".launch",
                        launch_script(spec, plan, run, folder, r, copy.component,
                                      "copy " + copy.tag + " on " + copy.system +
                                          ", run at its start if it claims the component",
                                      dir, server));
}

json coalloc_timeline(const CampaignSpec& spec, const RequestState& r, const json& join) {
  const CoallocSettings& s = spec.coalloc;
  const int components = static_cast<int>(r.request.ranks.size());
  json comps = json::array();
  // When the last component started: with launch = at-start, an allocation waits for that
  // (its ranks wait in the rendezvous); with at-go, for the coordinator's go.
  double last_bound_start = 0;
  for (int k = 0; k < components; ++k) {
    const CopyState* b = r.bound(k);
    if (b && b->started) last_bound_start = std::max(last_bound_start, *b->started);
  }
  double last_start = 0;
  double joint = 0;
  double idle = 0;
  for (int k = 0; k < components; ++k) {
    const CopyState* b = r.bound(k);
    double submitted = 0;
    for (const CopyState& c : r.copies) {
      if (c.component == k && (submitted == 0 || c.submitted < submitted)) submitted = c.submitted;
    }
    const double joined = join_joined(join, k);
    json row = {{"component", k},
                {"cluster", s.clusters.at(static_cast<std::size_t>(k))},
                {"processors", r.request.ranks.at(static_cast<std::size_t>(k))},
                {"submitted", submitted},
                {"system", b ? json(b->system) : json(nullptr)},
                {"batch_job_id", b ? json(b->job) : json(nullptr)},
                {"nodes", b ? json(b->nodes) : json(nullptr)},
                {"started", b && b->started ? json(*b->started) : json(nullptr)},
                {"held_idle_seconds", nullptr},
                {"joined", joined > 0 ? json(joined) : json(nullptr)},
                {"exit_code", b && b->exit_code ? json(*b->exit_code) : json(nullptr)}};
    if (b && b->started && r.go) {
      const double held =
          std::max(0.0, (b->launched_at_start ? last_bound_start : *r.go) - *b->started);
      row["held_idle_seconds"] = held;
      idle += held * r.request.ranks.at(static_cast<std::size_t>(k));
      last_start = std::max(last_start, *b->started);
    }
    joint = std::max(joint, joined);
    comps.push_back(std::move(row));
  }
  json copies = json::array();
  for (const CopyState& c : r.copies) {
    copies.push_back({{"tag", c.tag},
                      {"component", c.component},
                      {"system", c.system},
                      {"batch_job_id", c.job.empty() ? json(nullptr) : json(c.job)},
                      {"submitted", c.submitted},
                      {"started", c.started ? json(*c.started) : json(nullptr)},
                      {"bound", c.bound},
                      {"ended", c.gone ? json(c.gone_at) : json(nullptr)},
                      {"why", c.gone ? json(c.gone_why) : json(nullptr)}});
  }
  const bool joined = joint > 0 && last_start > 0;
  return {{"request", r.request.id},
          {"join", components > 1 ? json(join_name(r)) : json(nullptr)},
          {"systems_file", s.systems_file},
          {"duplicates", s.duplicates},
          {"ranking", to_string(s.ranking)},
          {"synchronization", to_string(s.synchronization)},
          {"launch", to_string(s.launch)},
          {"timeout", s.timeout},
          {"first_submitted", r.first_submitted},
          {"go", r.go ? json(*r.go) : json(nullptr)},
          {"coallocation_seconds", r.go ? json(*r.go - r.first_submitted) : json(nullptr)},
          {"joint_start", joined ? json(joint) : json(nullptr)},
          // The coordinator's overhead: from the last component's start to the joint start.
          {"overhead_seconds", joined ? json(joint - last_start) : json(nullptr)},
          {"held_idle_processor_seconds", idle},
          {"components", comps},
          {"copies", copies}};
}

std::string write_coalloc_record(const CampaignSpec& spec, const Plan& plan, const PlannedRun& run,
                                 const CampaignFolder& folder, const RequestState& r,
                                 const std::string& dir) {
  if (!record_line_for(folder.records(), run.id).empty()) return "";
  // The application's record: the one that is not "failed" if any (every component that gave
  // up on a join writes its own failed one), else the first.
  std::optional<RunRecord> found;
  for (const jsonl::Line& line : jsonl::read(request_record_file(dir, r), {}, true).lines) {
    RunRecord rec = RunRecord::from_json(line.doc);
    if (rec.run_id != run.id) continue;
    if (!found || (found->status == "failed" && rec.status != "failed")) found = std::move(rec);
  }
  const std::string failure = r.failure;
  if (!found) {
    std::string reason = failure;
    json details = {{"request", r.request.id}};
    if (reason.empty()) {
      std::string codes;
      for (const CopyState& c : r.copies) {
        if (!c.bound) continue;
        codes += (codes.empty() ? "" : ", ") + std::string("component ") +
                 std::to_string(c.component) + " exit code " +
                 std::to_string(c.exit_code.value_or(-1));
        const std::string excerpt =
            log_excerpt(dir + "/" + c.tag + ".out", fs::path(spec.binary).filename().string());
        if (!excerpt.empty() && reason.empty()) reason = excerpt;
      }
      reason = "ended without a record (" + codes + ")" + (reason.empty() ? "" : ": " + reason);
    }
    found = RunRecord::from_json(failure_record(spec, plan, run, reason, details, {}));
  }
  if (!found->env) found->env = json::object();
  const json join = found->env->value("join", json(nullptr));
  (*found->env)["coalloc"] = coalloc_timeline(spec, r, join);
  append_line(folder.records(), found->line());
  return found->status;
}

}  // namespace mcb::campaign
