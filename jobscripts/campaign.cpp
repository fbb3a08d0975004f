#include "jobscripts/campaign.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/option_types.hpp"
#include "common/subcommand.hpp"
#include "jobscripts/app_check.hpp"
#include "jobscripts/batch.hpp"
#include "jobscripts/campaign_folder.hpp"
#include "jobscripts/coalloc_executor.hpp"
#include "jobscripts/estimate.hpp"
#include "jobscripts/expansion.hpp"
#include "jobscripts/local_executor.hpp"
#include "jobscripts/record_book.hpp"
#include "jobscripts/shell.hpp"
#include "jobscripts/spec.hpp"
#include "jobscripts/status_table.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <utility>
#include <vector>

namespace mcb::campaign {
namespace {

namespace po = boost::program_options;
constexpr const char* kProgram = "mcb-campaign";

constexpr const char* kUsage = "mcb-campaign COMMAND SPEC [options]";

constexpr const char* kDetails =
    "SPEC is the campaign file (jobscripts/README.md describes it).\n\nOptions:\n"
    "  --folder DIR           campaign folder (default: the spec's 'folder', else\n"
    "                         campaigns/<name> beside the spec)\n"
    "  --executor NAME        local, smpi, slurm, pbs or coalloc instead of the spec's\n"
    "  --json                 dry-run: print the plan as JSON; status: the per-run\n"
    "                         table as JSON\n"
    "  --history PATH         dry-run: estimate also from these records (a JSON Lines\n"
    "                         file or a folder of them); repeatable\n"
    "  --retry-failed         run: run again the runs recorded as failed\n"
    "  --wait                 collect: wait until no job of the campaign is queued\n"
    "  --wait-limit DURATION  collect --wait: give up after this long (exit 1)\n"
    "  --poll DURATION        collect --wait: queue polling interval (default 2s)\n"
    "  --progress auto|live|lines  run (local): redraw one line, or a line per run\n"
    "  --config FILE          these options from an INI file";

}  // namespace

// The option types' readers and spellings, found by Boost through the types' namespace.
void validate(boost::any& v, const std::vector<std::string>& values, Progress*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& text = po::validators::get_single_string(values);
  if (text == "auto") {
    v = Progress::automatic;
  } else if (text == "live") {
    v = Progress::live;
  } else if (text == "lines") {
    v = Progress::lines;
  } else {
    throw cli::BadValue(text, "is not one of auto, live, lines");
  }
}

std::ostream& operator<<(std::ostream& os, Progress p) {
  return os << (p == Progress::automatic ? "auto" : p == Progress::live ? "live" : "lines");
}

void validate(boost::any& v, const std::vector<std::string>& values, Seconds*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& text = po::validators::get_single_string(values);
  double seconds = 0;
  try {
    seconds = parse_seconds(text);
  } catch (const std::invalid_argument& e) {
    throw cli::BadValue(text, std::string("is not a duration: ") + e.what());
  }
  if (!(seconds > 0)) throw cli::BadValue(text, "must be positive");
  v = Seconds{seconds, text};
}

std::ostream& operator<<(std::ostream& os, const Seconds& s) { return os << s.text; }

namespace {

void print_dry_run(const CampaignSpec& spec, const Plan& plan, const CampaignEstimate& estimate,
                   std::ostream& out) {
  std::size_t valid = plan.configurations.size() - plan.invalid_count();
  out << "campaign " << spec.name << ": app " << spec.app << " (" << spec.binary << "), executor "
      << spec.executor << ", folder " << spec.folder << "\n"
      << plan.configurations.size() << " configuration(s), " << plan.invalid_count() << " invalid ("
      << (spec.on_invalid == OnInvalid::skip ? "skipped" : "refused") << "), " << valid << " x "
      << spec.repetitions << " repetition(s) = " << plan.runs.size() << " run(s), timeout "
      << static_cast<long>(spec.timeout) << " s each\n";
  if (plan.invalid_count() > 0) {
    out << "\ninvalid combinations:\n";
    for (const Configuration& c : plan.configurations) {
      if (c.invalid.empty()) continue;
      out << "  #" << c.index << " " << c.describe() << ": " << c.invalid << "\n";
    }
  }
  out << "\nruns (in the order they run):\n";
  std::size_t width = 0;
  for (const PlannedRun& r : plan.runs) width = std::max(width, r.id.size());
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const PlannedRun& r = plan.runs[i];
    const Configuration& c = plan.of(r);
    out << "  " << std::left << std::setw(static_cast<int>(width)) << r.id << std::right << "  "
        << estimate_text(estimate.runs[i]) << "; ranks " << c.ranks << ", clusters " << c.clusters
        << ":";
    if (c.app_args.empty()) out << " (application defaults)";
    for (const std::string& a : c.app_args) out << " " << display_word(a);
    out << "\n";
  }
  print_estimate_total(out, estimate);
  out.flush();
}

// Whether an executor holds the folder's lock now, and its pid.
std::string running_executor(const CampaignFolder& folder) {
  const int fd = ::open(folder.lock_file().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string pid;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    char buf[32] = {};
    [[maybe_unused]] ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    const std::string text(buf);
    pid = text.empty() ? std::string("?") : text.substr(0, text.find('\n'));
  }
  ::close(fd);
  return pid;
}

int local_status(const CampaignSpec& spec, const Plan& plan, std::ostream& out, bool as_json) {
  const CampaignFolder folder{spec.folder};
  const bool started = std::filesystem::exists(folder.root);
  const std::string pid = started ? running_executor(folder) : "";
  // While an executor runs, a last line without its newline may be a record being appended.
  const RecordBook book =
      started ? RecordBook::read(folder.records(), pid.empty() ? &std::cerr : nullptr)
              : RecordBook{};
  StatusReport report{spec.name, spec.executor, "records", {}};
  for (const PlannedRun& run : plan.runs) {
    StatusRow row{run.id, "not run", "", "", std::nullopt, ""};
    if (const RecordEntry* e = book.find(run.id)) {
      row = {run.id, "recorded", e->batch_job_id, e->nodes, e->wall_time, e->status};
    }
    report.runs.push_back(std::move(row));
  }
  if (as_json) {
    out << status_json(report).dump(1) << "\n";
    return 0;
  }
  if (!started) {
    out << "campaign " << spec.name << ": not started (no folder " << folder.root << ")\n";
    return 0;
  }
  out << "campaign " << spec.name << " (local): "
      << (pid.empty() ? "no executor running" : "running (mcb-campaign pid " + pid + ")") << "\n";
  print_status_table(out, report);
  print_summary(out, spec, tally(plan, book), folder);
  return 0;
}

// The checks dry-run, run and scripts all make before anything is written: a plan that can
// run, a folder that can be created, jobscripts that render, a launcher that will start.
void preflight(const CampaignSpec& spec, const Plan& plan) {
  if (const std::string refused = refusal(spec, plan); !refused.empty()) throw UsageError(refused);
  try {
    check_creatable_folder("folder", spec.folder);
  } catch (const UsageError& e) {
    const std::string why = e.what();
    throw UsageError(spec.where("", "folder") + ": folder" + why.substr(why.find(':')));
  }
  if (spec.executor == "local" || spec.executor == "smpi") {
    check_local_launcher(spec);
  } else if (spec.executor == "coalloc") {
    check_coalloc_launcher(spec);
  } else {
    check_jobscripts(spec, plan);
  }
}

// One command on one spec: argv[0] is the command, argv[1] the spec, then the options.
int campaign_command(int argc, const char* const* argv) {
  CommandLine line;
  if (!parse_command_line(argc, argv, line)) return 0;
  const std::string& command = line.command;
  const Options& o = line.options;
  BatchOptions batch;
  batch.wait = o.wait;
  batch.poll_seconds = o.poll.value;
  if (o.wait_limit_given) batch.wait_limit = o.wait_limit.value;
  batch.retry_failed = o.retry_failed;

  const CampaignSpec spec = load_spec(line.spec, {o.folder, o.executor});
  // Every configuration is checked by the application before anything is written or run.
  const Checker checker = application_checker(spec);
  const Checker named_checker = [&](const auto& values, std::optional<int> ranks) {
    try {
      return checker(values, ranks);
    } catch (const UsageError& e) {
      const bool named = spec.where("", "binary") != spec.file.path;
      throw UsageError(spec.where("", named ? "binary" : "app") + ": binary: " + e.what());
    }
  };
  const Plan plan = expand(spec, named_checker);

  if (command == "dry-run") {
    // The campaign's own earlier records first, then those given with --history.
    std::vector<std::string> sources{CampaignFolder{spec.folder}.records()};
    sources.insert(sources.end(), o.history.begin(), o.history.end());
    for (const std::string& h : o.history) {
      if (!std::filesystem::exists(h)) throw UsageError("--history: '" + h + "' does not exist");
    }
    const CampaignEstimate estimate = estimate_campaign(spec, plan, sources, &std::cerr);
    if (o.json) {
      nlohmann::json doc = plan.to_json(spec);
      doc["estimate"] = estimate_json(estimate);
      std::cout << doc.dump(1) << std::endl;
    } else {
      print_dry_run(spec, plan, estimate, std::cout);
    }
    preflight(spec, plan);
    return 0;
  }
  if (command == "run" || command == "scripts") preflight(spec, plan);
  if (command == "cancel" && spec.executor != "coalloc") {
    throw UsageError(spec.where("", "executor") + ": executor: '" + spec.executor +
                     "' has no pilots to cancel (cancel is for coalloc)");
  }

  if (spec.executor == "local" || spec.executor == "smpi" || spec.executor == "coalloc") {
    if (command == "scripts") {
      throw UsageError(spec.where("", "executor") + ": executor: '" + spec.executor +
                       "' writes no jobscripts "
                       "(scripts is for slurm and pbs)");
    }
    if (command == "run" && spec.executor == "coalloc") return run_coalloc(spec, plan, std::cout);
    if (command == "cancel") return cancel_coalloc(spec, std::cout);
    if (command == "run") {
      LocalRunOptions local;
      local.retry_failed = o.retry_failed;
      local.live_progress =
          o.progress == Progress::live || (o.progress == Progress::automatic && ::isatty(1));
      return run_local(spec, plan, local, std::cout);
    }
    if (command == "status") return local_status(spec, plan, std::cout, o.json);
    const CampaignFolder folder{spec.folder};
    const Tally t = tally(plan, RecordBook::read(folder.records(), &std::cerr));
    print_summary(std::cout, spec, t, folder);
    return t.invalid + t.failed + t.missing == 0 ? 0 : 1;
  }
  if (command == "run" || command == "scripts") {
    batch.submit = command == "run";
    return submit_campaign(spec, plan, batch, std::cout);
  }
  if (command == "status") return batch_status(spec, plan, std::cout, o.json);
  return collect_campaign(spec, plan, batch, std::cout);
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& commands() {
  static const std::vector<std::pair<std::string, std::string>> table = {
      {"dry-run", "expand SPEC and print every run with its id; invalid combinations with why"},
      {"run",
       "run the campaign with its executor: local, smpi and coalloc run now (coalloc\n"
       "co-allocates each run over separate batch systems); slurm and pbs write a\n"
       "jobscript per run (or group) and submit it. Runs that already have a record\n"
       "are skipped, so running it again goes on where it stopped"},
      {"scripts", "write the slurm or pbs jobscripts without submitting them"},
      {"status",
       "a row per run (id, state, batch job id, node list, elapsed, verdict) and the\n"
       "failures; --json gives the rows as JSON"},
      {"collect",
       "gather the records of finished batch jobs into the campaign folder, record a\n"
       "failure for each run whose job ended without one, print the summary"},
      {"cancel",
       "coalloc: cancel every pilot the journal says is still queued, holding or running,\n"
       "in every batch system, and give its runs up (after a coordinator died, or to\n"
       "abandon a campaign); submits nothing"}};
  return table;
}

bool parse_command_line(int argc, const char* const* argv, CommandLine& line) {
  line.command = argv[0];
  if (argc < 2 || argv[1][0] == '-') {
    throw UsageError(line.command + ": missing the campaign SPEC file");
  }
  line.spec = argv[1];
  Options& o = line.options;
  po::options_description desc("mcb-campaign options");
  desc.add_options()("folder", po::value(&o.folder)->value_name("DIR"), "campaign folder")(
      "executor", po::value(&o.executor)->value_name("NAME"), "local, smpi, slurm, pbs or coalloc")(
      "history", po::value(&o.history)->composing()->value_name("PATH"),
      "dry-run: earlier records to estimate from")(
      "json", po::bool_switch(&o.json),
      "dry-run: the plan as JSON; status: the per-run table as JSON")(
      "retry-failed", po::bool_switch(&o.retry_failed), "run: run failed runs again")(
      "wait", po::bool_switch(&o.wait), "collect: wait for the queue to empty")(
      "wait-limit", po::value(&o.wait_limit)->value_name("DURATION"), "collect --wait: limit")(
      "poll", po::value(&o.poll)->default_value(o.poll)->value_name("DURATION"),
      "collect --wait: polling interval")(
      "progress", po::value(&o.progress)->default_value(o.progress)->value_name("auto|live|lines"),
      "run: progress display");
  std::vector<const char*> rest{kProgram};
  for (int i = 2; i < argc; ++i) rest.push_back(argv[i]);
  const auto parsed = cli::parse(static_cast<int>(rest.size()), rest.data(), desc, kUsage);
  if (parsed.help_printed) return false;
  o.wait_limit_given = parsed.vm.count("wait-limit") > 0;
  return true;
}

int run_program(int argc, char** argv) {
  std::vector<cli::Subcommand> table;
  for (const auto& [name, summary] : commands()) table.push_back({name, summary, campaign_command});
  return cli::run(kProgram,
                  [&] { return cli::run_subcommand(argc, argv, table, kUsage, kDetails); });
}

}  // namespace mcb::campaign
