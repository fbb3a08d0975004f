#include "jobscripts/load_program.hpp"

#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/environment.hpp"
#include "common/files.hpp"
#include "common/option_types.hpp"
#include "common/text.hpp"
#include "jobscripts/load_output.hpp"
#include "jobscripts/load_run.hpp"
#include "jobscripts/queue.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

namespace mcb::load {
namespace fs = std::filesystem;
namespace po = cli::po;
using cli::ValueError;

// Boost finds these through the enum's namespace.
void validate(boost::any& v, const std::vector<std::string>& values, Assign*, int) {
  cli::validate_choice(v, values, {Assign::random, Assign::every},
                       [](Assign a) { return to_string(a); });
}
std::ostream& operator<<(std::ostream& os, Assign assign) { return os << to_string(assign); }

namespace {

std::pair<double, double> parse_window(const std::string& text) {
  const auto colon = text.find(':');
  const auto number = [&](const std::string& part) {
    std::size_t used = 0;
    double v = -1;
    try {
      v = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || !std::isfinite(v) || v < 0) {
      throw ValueError("window", "--window: '" + text + "' is not START:END, seconds of the trace");
    }
    return v;
  };
  if (colon == std::string::npos) number("");
  const double start = number(text.substr(0, colon)), end = number(text.substr(colon + 1));
  if (!(end > start)) throw ValueError("window", "--window: '" + text + "' is an empty window");
  return {start, end};
}

void add_options(po::options_description& d, ProgramOptions& o) {
  LoadSpec& s = o.spec;
  // clang-format off
  d.add_options()
      ("systems", po::value(&o.systems)->required()->value_name("FILE"),
       "systems file: one [section] per batch system (the rig's DIR/rig.env)")
      ("select", po::value(&o.select)->value_name("NAMES"),
       "systems to load, comma-separated (default: every system of the file)")
      ("trace", po::value(&s.trace)->required()->value_name("FILE"),
       "SWF workload: a real trace or mcb-batchgrid generate's output")
      ("from", po::value(&s.window.from)->default_value(s.window.from)
                   ->notifier([](long long v) { cli::require_positive("from", v); }),
       "first job line of the trace (1-based)")
      ("count", po::value<long long>()->notifier([&s](long long v) {
         cli::require_positive("count", v);
         s.window.count = v;
       }), "jobs to replay from there (default: to the end)")
      ("window", po::value<std::string>()->value_name("START:END")
                     ->notifier([&s](const std::string& t) { s.window.time = parse_window(t); }),
       "instead of --from/--count: the jobs submitted in [START, END) s of the trace")
      ("factor", po::value(&s.factor)->required()
                     ->notifier([](double v) { cli::require_positive_finite("factor", v); }),
       "time compression: arrivals and runtimes are divided by it")
      ("procs-scale", po::value<cli::NumberOrAuto>()->default_value(cli::NumberOrAuto{1.0, "1"})
                          ->notifier([&s](const cli::NumberOrAuto& v) {
                            if (v.number) cli::require_positive_finite("procs-scale", *v.number);
                            s.procs_scale = v.number;
                          }),
       "a job's processors are multiplied by it (auto: system size / the trace's MaxProcs), "
       "rounded, at least 1")
      ("max-procs", po::value(&s.max_procs)
                        ->notifier([](int v) { cli::require_positive("max-procs", v); }),
       "cap on a job's processors (default and at most: the system's size)")
      ("assign", po::value(&s.assign)->default_value(s.assign),
       "random: each job to one system drawn from --seed; every: each system gets every job")
      ("seed", po::value<long long>()->default_value(1)->notifier([&s](long long v) {
         cli::require_non_negative("seed", static_cast<double>(v));
         s.seed = static_cast<std::uint64_t>(v);
       }), "seed of the random assignment (recorded)")
      ("slack", po::value<cli::Duration>()->default_value(cli::Duration{5, "5s"})
                    ->notifier([&s](const cli::Duration& v) { s.slack = v.seconds; }),
       "added to each job's time limit (the larger of its runtime and requested time, "
       "compressed)")
      ("duration", po::value<cli::Duration>()->notifier([&o](const cli::Duration& v) {
         cli::require_positive_real("duration", v.seconds);
         o.duration = v.seconds;
       }), "end the load after this long, cancelling what is left (default: when all ended)")
      ("poll", po::value<cli::Duration>()->default_value(cli::Duration{1, "1s"})
                   ->notifier([&o](const cli::Duration& v) {
                     cli::require_positive_real("poll", v.seconds);
                     o.poll = v.seconds;
                   }),
       "how often a job not yet stamped as started or ended is asked about")
      ("output", po::value(&o.output)->required()->value_name("DIR"),
       "folder for <system>.swf, jobs.csv and load.json");
  // clang-format on
}

// The systems of the file named by --select, in its order.
std::vector<campaign::QueueConfig> selected_systems(const ProgramOptions& o) {
  std::vector<campaign::QueueConfig> all;
  try {
    all = campaign::read_queue_configs(o.systems);
  } catch (const UsageError& e) {
    throw UsageError(std::string("--systems: ") + e.what());
  }
  if (o.select.empty()) return all;
  std::string names;
  for (const auto& c : all) names += (names.empty() ? "" : ", ") + c.name;
  std::vector<campaign::QueueConfig> chosen;
  std::set<std::string> seen;
  std::istringstream in(o.select);
  std::string word;
  while (std::getline(in, word, ',')) {
    const std::string name = trim(word);
    const auto it =
        std::find_if(all.begin(), all.end(), [&](const auto& c) { return c.name == name; });
    if (it == all.end()) {
      throw UsageError("--select: '" + name + "' is not a system of " + o.systems + " (" + names +
                       ")");
    }
    if (!seen.insert(name).second) throw UsageError("--select: '" + name + "' is named twice");
    chosen.push_back(*it);
  }
  return chosen;
}

void check_names(const std::vector<campaign::QueueConfig>& systems) {
  for (const auto& c : systems) {
    if (c.name.empty() ||
        c.name.find_first_not_of(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
            std::string::npos ||
        c.name.front() == '.') {
      throw UsageError("--systems: system name '" + c.name +
                       "' cannot name an output file (letters, digits, '.', '_', '-')");
    }
  }
}

}  // namespace

bool parse_options(int argc, const char* const* argv, ProgramOptions& o) {
  po::options_description d("Options");
  add_options(d, o);
  const auto parsed = cli::parse(argc, argv, d,
                                 "mcb-load --systems FILE --trace FILE.swf "
                                 "--factor F --output DIR [options]");
  if (parsed.help_printed) return false;
  const auto& vm = parsed.vm;
  if (vm.count("window") && (!vm["from"].defaulted() || vm.count("count"))) {
    throw UsageError("--window: '" + vm["window"].as<std::string>() +
                     "' cannot go with --from or --count");
  }
  check_creatable_folder("output", o.output);
  if (fs::exists(fs::path(o.output) / "load.json")) {
    throw UsageError("--output: '" + o.output + "' holds an earlier load (load.json); " +
                     "give a fresh folder");
  }
  return true;
}

namespace {

// What the load is about to do, in one line.
std::string announce(const LoadSpec& spec, const std::vector<PlannedJob>& plan,
                     const std::vector<LoadedSystem>& systems) {
  std::vector<int> jobs(systems.size(), 0);
  double last = 0;
  for (const PlannedJob& p : plan) {
    ++jobs[p.system];
    last = std::max(last, p.at);
  }
  std::string text = "mcb-load: " + load_id(spec) + ": " + std::to_string(plan.size()) + " jobs";
  for (std::size_t i = 0; i < systems.size(); ++i) {
    text += (i == 0 ? " (" : ", ") + systems[i].name + " " + std::to_string(jobs[i]);
  }
  return text + "), submitted over " + csv::number(std::round(last * 10) / 10) + " s";
}

std::string conclude(const RunResult& r) {
  std::map<Outcome, int> n;
  double worst = 0, total = 0;
  for (const RanJob& j : r.jobs) {
    ++n[j.outcome];
    worst = std::max(worst, j.issued - j.planned);
    total += j.issued - j.planned;
  }
  const double mean = r.jobs.empty() ? 0 : total / static_cast<double>(r.jobs.size());
  return "mcb-load: ended (" + r.ended_by + ") after " + csv::number(std::round(r.wall_seconds)) +
         " s: " + std::to_string(n[Outcome::completed]) + " completed, " +
         std::to_string(n[Outcome::cancelled]) + " cancelled, " +
         std::to_string(n[Outcome::failed]) + " failed, " + std::to_string(r.not_submitted) +
         " not submitted; submission lag mean " + csv::number(std::round(mean * 1000)) +
         " ms, max " + csv::number(std::round(worst * 1000)) + " ms";
}

}  // namespace

int run_program(int argc, const char* const* argv) {
  ProgramOptions o;
  if (!parse_options(argc, argv, o)) return 0;
  const std::vector<campaign::QueueConfig> configs = selected_systems(o);
  check_names(configs);
  const TraceExcerpt excerpt = read_excerpt(o.spec);
  processor_scale(o.spec, excerpt.header, 1);  // auto without MaxProcs is refused here
  std::vector<std::unique_ptr<campaign::BatchQueue>> queues;
  std::vector<LoadedSystem> systems;
  std::vector<int> sizes;
  for (const auto& c : configs) {
    queues.push_back(campaign::make_queue(c));
    int size = queues.back()->queue_state().total_processors;
    if (size <= 0 && o.spec.max_procs <= 0) {
      throw UsageError("--max-procs: system '" + c.name + "' reports no processor count; give one");
    }
    if (size <= 0) size = o.spec.max_procs;
    sizes.push_back(size);
    systems.push_back({c.name, c.kind, size, processor_scale(o.spec, excerpt.header, size)});
  }
  const std::vector<PlannedJob> plan = plan_load(excerpt, o.spec, sizes);
  const fs::path work = fs::absolute(fs::path(o.output) / "work");
  fs::create_directories(work);
  std::cout << announce(o.spec, plan, systems) << std::endl;
  RunSettings settings;
  settings.duration = o.duration;
  settings.poll = o.poll;
  settings.work = work.string();
  settings.log = &std::cerr;
  const RunResult result = run_load(plan, queues, settings);
  write_outputs(o.output, o.spec, excerpt, systems, result, environment_block(argc, argv));
  std::cout << conclude(result) << "\nwrote " << (fs::path(o.output) / "load.json").string()
            << std::endl;
  bool failed = false;
  for (const RanJob& j : result.jobs) failed = failed || j.outcome == Outcome::failed;
  if (!result.unconfirmed.empty()) {
    std::cerr << "mcb-load: error: cancellations not confirmed by their systems: "
              << result.unconfirmed.size() << " (first " << result.unconfirmed.front() << ")"
              << std::endl;
  } else if (!failed) {
    std::error_code ec;
    fs::remove_all(work, ec);  // every job ended: nothing writes there any more
  }
  if (result.signal != 0) return 130;
  return failed || !result.unconfirmed.empty() ? 1 : 0;
}

}  // namespace mcb::load
