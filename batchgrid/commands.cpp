#include "batchgrid/commands.hpp"

#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/output_set.hpp"
#include "simulator/swf.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

namespace mcb::batchgrid {
namespace {

namespace po = boost::program_options;

std::array<double, kClasses> parse_mix(const std::string& text) {
  // The same m/s/l/n/w weights --queues takes; its refusal names --mix.
  try {
    return parse_queues("16:fcfs:" + text).front().mix;
  } catch (const UsageError& e) {
    const std::string why = e.what();
    const std::string prefix = "--queues: ";
    throw cli::ValueError(
        "mix", "--mix: " + (why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why));
  }
}

std::vector<double> parse_bandwidths(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v)) {
      throw cli::ValueError("bandwidths",
                            "--bandwidths: '" + item + "' is not a positive number of Mbit/s");
    }
    out.push_back(v * 1e6);
  }
  if (out.empty()) throw cli::ValueError("bandwidths", "--bandwidths: no bandwidth given");
  return out;
}

// A notifier refusing a value that is not a finite number > 0 or is above @p cap, naming the
// option.
std::function<void(const double&)> positive(const std::string& option,
                                            double cap = cli::kMaxSeconds) {
  return [option, cap](double v) {
    cli::require_positive_finite(option, v);
    cli::require_at_most(option, v, cap);
  };
}

// A seed option: read signed, so that "-1" is refused rather than wrapped to 2^64 - 1.
po::typed_value<std::int64_t>* seed_value(std::uint64_t& seed) {
  return po::value<std::int64_t>()
      ->default_value(static_cast<std::int64_t>(seed))
      ->notifier([&seed](std::int64_t v) {
        cli::require_non_negative("seed", static_cast<double>(v));
        seed = static_cast<std::uint64_t>(v);
      });
}

// The longest horizon: 100 years of a grid is a million external jobs at seed 003's arrival rate.
constexpr double kMaxHorizonDays = 36500;

void add_grid_options(po::options_description& d, GridOptions& o) {
  GridSpec& g = o.grid;
  // One option per line, as --help prints them.
  // clang-format off
  d.add_options()
      ("seed", seed_value(g.seed), "random seed (recorded)")
      ("limit", po::value(&g.limit)->default_value(g.limit)->notifier(positive("limit")),
       "maximum execution time of every queue, s")
      ("horizon-days",
       po::value(&o.horizon_days)->default_value(o.horizon_days)
           ->notifier(positive("horizon-days", kMaxHorizonDays)),
       "wall-clock days evaluated (at most 36500)")
      ("interarrival",
       po::value(&g.interarrival)->default_value(g.interarrival)
           ->notifier(positive("interarrival")),
       "mean inter-arrival time of the external jobs, s (seed 003: 3000)")
      ("bandwidths", po::value(&o.bandwidths)->default_value(o.bandwidths)
                         ->notifier([&g](const std::string& text) {
                           g.bandwidths = parse_bandwidths(text);
                         }),
       "inter-site bandwidths, Mbit/s, comma-separated");
  // clang-format on
}

// The grid's horizon from the days given; the values themselves were checked while parsing.
GridSpec grid_from(const GridOptions& o) {
  GridSpec g = o.grid;
  g.horizon = o.horizon_days * 86400;
  return g;
}

// Checks a comparison's own consistency; an empty string means VALID.
std::string check(const GridSpec& g, const Comparison& c, const std::vector<Event>& events) {
  for (size_t i = 1; i < events.size(); ++i) {
    if (events[i].t < events[i - 1].t) return "events out of time order";
  }
  for (const Event& e : events) {
    if (e.event == "activate" && e.detail.value("wait", -1.0) < 0) return "a negative wait";
  }
  int total = 0;
  for (int r : c.requests) total += r;
  for (const Outcome& o : c.outcomes) {
    if (o.multi.rar > total + 1e-9 || o.single.rar > c.request + 1e-9) return "RAR above requests";
    if (o.multi.simulated_days < 0 || o.single.simulated_days < 0) return "negative progress";
    if (o.multi.active_seconds > g.horizon + 1e-6) return "active longer than the horizon";
  }
  return "";
}

}  // namespace

bool parse_generate(int argc, const char* const* argv, GenerateOptions& o) {
  LublinSpec& spec = o.spec;
  po::options_description d("generate options");
  // clang-format off
  d.add_options()
      ("size", po::value(&spec.max_size)->required(), "system size (processors), >= 16")
      ("jobs", po::value(&o.jobs)->default_value(o.jobs)->notifier([](long long n) {
         cli::require_positive("jobs", n);
         cli::require_at_most("jobs", static_cast<double>(n), cli::kMaxCount);
       }),
       "number of jobs (at most 1e9)")
      ("seed", seed_value(spec.seed), "random seed (recorded)")
      ("mix", po::value(&o.mix)->default_value(o.mix)->notifier([&spec](const std::string& text) {
         spec.mix = parse_mix(text);
       }),
       "weights of model/short/long/narrow/wide jobs")
      ("interarrival", po::value(&spec.mean_interarrival)->default_value(3000)
                           ->notifier(positive("interarrival")),
       "mean inter-arrival time, s")
      ("output", po::value(&o.output)->required(), "SWF file to write");
  // clang-format on
  if (cli::parse(argc, argv, d, "mcb-batchgrid generate [options]").help_printed) return false;
  check_writable_file("output", o.output);
  return true;
}

int generate_command(int argc, const char* const* argv) {
  GenerateOptions o;
  if (!parse_generate(argc, argv, o)) return 0;
  const LublinSpec& spec = o.spec;
  const auto jobs = static_cast<std::uint64_t>(o.jobs);
  const std::string& out = o.output;
  LublinGenerator gen(spec);
  std::string body;
  for (std::uint64_t i = 0; i < jobs; ++i) {
    const LublinJob j = gen.next();
    sim::SwfRecord r;
    r.job = static_cast<std::int64_t>(i) + 1;
    r.submit = std::round(j.submit);
    r.run = std::max(1.0, std::round(j.runtime));
    r.procs = r.req_procs = j.size;
    r.status = 1;
    r.queue =
        static_cast<int>(j.cls);  // the job's class: 0 model, 1 short, 2 long, 3 narrow, 4 wide
    body += sim::swf_line(r) + "\n";
  }
  const std::string& m = o.mix;
  const std::string header = sim::swf_header({
      {"Version", "2.2"},
      {"Computer", "mcb-batchgrid generate (Lublin-Feitelson 2003 model)"},
      {"Acknowledge", "Lublin and Feitelson, JPDC 63(11) 2003; classes as Sundari et al. 2011"},
      {"MaxJobs", std::to_string(jobs)},
      {"MaxRecords", std::to_string(jobs)},
      {"MaxProcs", std::to_string(spec.max_size)},
      {"MaxNodes", std::to_string(spec.max_size)},
      {"MaxRuntime", csv::number(spec.max_runtime)},
      {"Queues", "field 15 is the job class: 0 model, 1 short, 2 long, 3 narrow, 4 wide"},
      {"Note", "seed " + std::to_string(spec.seed) + ", mix m/s/l/n/w " + m +
                   ", mean inter-arrival " + csv::number(spec.mean_interarrival) + " s"},
  });
  write_file_atomically(out, header + body);
  std::cout << "wrote " << jobs << " jobs to " << out << " (seed " << spec.seed << ")\n";
  return 0;
}

bool parse_run(int argc, const char* const* argv, RunOptions& r) {
  GridOptions& o = r.grid;
  double restart_overhead = -1;  // applied after --app, whichever came first
  po::options_description d("run options");
  // clang-format off
  d.add_options()
      ("queues", po::value(&r.queues)->required()->notifier([&o](const std::string& text) {
         o.grid.queues = parse_queues(text);
       }),
       "SIZE:DISCIPLINE[:m/s/l/n/w|trace=FILE][:limit=S], comma-separated")
      ("request", po::value(&o.grid.request)->default_value(o.grid.request),
       "processors the application asks of the largest queue alone (0: its single-system best "
       "schedule there)")
      ("app", po::value(&r.app)->notifier([&o](const std::string& text) {
         o.grid.model = parse_app(text);
       }),
       "A:B:BYTES: one component of a + b/P s per simulated day and a restart file of BYTES "
       "(default: CCSM's four components)")
      ("requests", po::value(&r.requests),
       "P,P,...: processors of each queue's submission in the multiple batch execution "
       "(default: the base allocation split over the queues)")
      ("restart-overhead", po::value<double>()->notifier([&restart_overhead](double v) {
         cli::require_non_negative("restart-overhead", v);
         cli::require_at_most("restart-overhead", v, cli::kMaxSeconds);
         restart_overhead = v;
       }),
       "seconds to dump and restart at each rescheduling (default 60)")
      ("output", po::value(&r.output)->required(), "folder for summary.json and events");
  // clang-format on
  add_grid_options(d, o);
  if (cli::parse(argc, argv, d, "mcb-batchgrid run [options]").help_printed) return false;
  if (restart_overhead >= 0) o.grid.model.restart_overhead = restart_overhead;
  if (!r.requests.empty()) o.grid.requests = parse_requests(r.requests, o.grid.queues);
  check_creatable_folder("output", r.output);
  return true;
}

int run_command(int argc, const char* const* argv) {
  RunOptions r;
  if (!parse_run(argc, argv, r)) return 0;
  const std::string& queues = r.queues;
  const std::string& dir = r.output;
  const GridOptions& o = r.grid;
  const GridSpec g = grid_from(o);
  std::vector<Event> multi, single;
  const Comparison c = compare(g, &multi, &single);
  const std::string problem = check(g, c, multi);
  OutputSet outputs(dir, {"multi-events.jsonl", "single-events.jsonl", "summary.json"});
  outputs.write("multi-events.jsonl", events_text(multi));
  outputs.write("single-events.jsonl", events_text(single));
  nlohmann::json outcomes = nlohmann::json::array();
  std::cout << "bandwidth_mbps  single_days_per_day  multi_days_per_day  single_rar  multi_rar\n";
  for (const Outcome& out : c.outcomes) {
    outcomes.push_back({{"bandwidth_mbps", out.bandwidth / 1e6},
                        {"single_days_per_day", out.single.days_per_day},
                        {"multi_days_per_day", out.multi.days_per_day},
                        {"single_rar", out.single.rar},
                        {"multi_rar", out.multi.rar},
                        {"multi_reschedulings", out.multi.reschedulings},
                        {"multi_restart_seconds", out.multi.restart_seconds}});
    std::cout << out.bandwidth / 1e6 << "  " << out.single.days_per_day << "  "
              << out.multi.days_per_day << "  " << out.single.rar << "  " << out.multi.rar << "\n";
  }
  const nlohmann::json summary{{"schema", "mcb-batchgrid-run/1"},
                               {"config",
                                {{"queues", queues},
                                 {"request", c.request},
                                 {"app", r.app.empty() ? "ccsm" : r.app},
                                 {"restart_overhead", g.model.restart_overhead},
                                 {"limit", g.limit},
                                 {"horizon", g.horizon},
                                 {"seed", g.seed},
                                 {"interarrival", g.interarrival}}},
                               {"environment", environment_block(argc, argv)},
                               {"requests", c.requests},
                               {"base", c.base},
                               {"single_wait", c.single_wait},
                               {"multi_wait", c.multi_wait},
                               {"outcomes", outcomes},
                               {"verdict", problem.empty() ? "VALID" : "INVALID: " + problem}};
  outputs.write("summary.json", summary.dump(2) + "\n");
  outputs.commit();
  std::cout << "waits in the largest queue: single " << c.single_wait << " s, multiple "
            << c.multi_wait << " s\n"
            << (problem.empty() ? "VALID" : "INVALID: " + problem) << "\n";
  return problem.empty() ? 0 : 1;
}

namespace {

// One experiment of the study, run on a worker thread.
struct Experiment {
  GridSpec grid;
  Comparison result;
  bool valid = false;
};

// Runs the experiments on @p threads workers; the results are in experiment order, so the
// table does not depend on the number of threads.
std::vector<Experiment> run_experiments(const GridSpec& defaults, int experiments, int threads) {
  std::vector<Experiment> out(static_cast<size_t>(experiments));
  std::atomic<int> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  auto work = [&] {
    for (int e = next++; e < experiments; e = next++) {
      try {
        Experiment& x = out[static_cast<size_t>(e)];
        x.grid = random_grid(derive_seed(defaults.seed, static_cast<std::uint64_t>(e)), defaults);
        std::vector<Event> events;
        x.result = compare(x.grid, &events, nullptr);
        x.valid = check(x.grid, x.result, events).empty();
      } catch (...) {
        const std::lock_guard<std::mutex> hold(failure_lock);
        if (!failure) failure = std::current_exception();
        next = experiments;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return out;
}

// The study's rows of one experiment, one per bandwidth.
void add_rows(csv::Writer& table, int e, const GridSpec& g, const Comparison& c) {
  std::string sizes, disciplines;
  double mean_size = 0, mean_request = 0;
  int submitted = 0;
  for (size_t q = 0; q < g.queues.size(); ++q) {
    if (q > 0) {
      sizes += '/';
      disciplines += '/';
    }
    sizes += std::to_string(g.queues[q].size);
    disciplines += sim::discipline_name(g.queues[q].discipline);
    mean_size += g.queues[q].size / static_cast<double>(g.queues.size());
    mean_request += c.requests[q];
    submitted += c.requests[q] > 0;
  }
  const int largest = g.queues[static_cast<size_t>(c.largest)].size;
  // The largest queue's share of short, long, narrow and wide jobs (section 4.1's classes).
  const auto& mix = g.queues[static_cast<size_t>(c.largest)].mix;
  const double weights = mix[1] + mix[2] + mix[3] + mix[4];
  std::string shares;
  for (int k = 1; k < kClasses; ++k) {
    if (k > 1) shares += '/';
    shares += csv::number(weights > 0 ? mix[k] / weights : 0);
  }
  for (const Outcome& out : c.outcomes) {
    const double gain = out.single.days_per_day > 0
                            ? 100 * (out.multi.days_per_day / out.single.days_per_day - 1)
                            : NAN;
    table.row({std::to_string(e), csv::number(out.bandwidth / 1e6), sizes, disciplines,
               std::to_string(largest), std::to_string(c.request),
               std::to_string(c.requests[static_cast<size_t>(c.largest)]),
               csv::number(static_cast<double>(c.request) / largest), csv::number(mean_size),
               csv::number(mean_request / submitted), csv::number(c.single_wait),
               csv::number(c.multi_wait), csv::number(out.single.rar), csv::number(out.multi.rar),
               csv::number(out.single.days_per_day), csv::number(out.multi.days_per_day),
               std::isfinite(gain) ? csv::number(gain) : "", shares});
  }
}

}  // namespace

bool parse_study(int argc, const char* const* argv, StudyOptions& s) {
  GridOptions& o = s.grid;
  po::options_description d("study options");
  // clang-format off
  d.add_options()
      ("experiments", po::value(&s.experiments)->default_value(s.experiments)->notifier([](int n) {
         cli::require_positive("experiments", n);
       }),
       "random grids (seed 003: 1000)")
      ("threads", po::value(&s.threads)->default_value(s.threads)->notifier([](int n) {
         cli::require_non_negative("threads", n);
       }),
       "experiments run at once (0: one per hardware thread); the results do not depend on it")
      ("output", po::value(&s.output)->required(), "folder for study.csv and study.json");
  // clang-format on
  add_grid_options(d, o);
  if (cli::parse(argc, argv, d, "mcb-batchgrid study [options]").help_printed) return false;
  check_creatable_folder("output", s.output);
  return true;
}

int study_command(int argc, const char* const* argv) {
  StudyOptions s;
  if (!parse_study(argc, argv, s)) return 0;
  const GridOptions& o = s.grid;
  const int experiments = s.experiments;
  int threads = s.threads;
  const std::string& dir = s.output;
  const GridSpec defaults = grid_from(o);
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, experiments);  // a worker without an experiment would only idle
  csv::Writer table({"experiment", "bandwidth_mbps", "queue_sizes", "disciplines", "largest_size",
                     "request", "largest_request", "request_ratio", "mean_queue_size",
                     "mean_request", "single_wait", "multi_wait", "single_rar", "multi_rar",
                     "single_days_per_day", "multi_days_per_day", "throughput_gain_pct",
                     "largest_mix"});
  std::uint64_t jobs = 0;
  int invalid = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Experiment> runs = run_experiments(defaults, experiments, threads);
  for (int e = 0; e < experiments; ++e) {
    const GridSpec& g = runs[static_cast<size_t>(e)].grid;
    const Comparison& c = runs[static_cast<size_t>(e)].result;
    jobs += c.simulated_jobs;
    if (!runs[static_cast<size_t>(e)].valid) {
      ++invalid;  // left out of the table
      continue;
    }
    add_rows(table, e, g, c);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  OutputSet outputs(dir, {"study.csv", "study.json"});
  outputs.write("study.csv", table.text());
  const nlohmann::json summary{{"schema", "mcb-batchgrid-study/1"},
                               {"config",
                                {{"experiments", experiments},
                                 {"seed", defaults.seed},
                                 {"limit", defaults.limit},
                                 {"horizon", defaults.horizon},
                                 {"interarrival", defaults.interarrival},
                                 {"bandwidths", o.bandwidths}}},
                               {"environment", environment_block(argc, argv)},
                               {"simulated_jobs", jobs},
                               {"threads", threads},
                               {"wall_seconds", seconds},
                               {"jobs_per_second", jobs / seconds},
                               {"invalid_experiments", invalid},
                               {"verdict", invalid == 0 ? "VALID" : "INVALID"}};
  outputs.write("study.json", summary.dump(2) + "\n");
  outputs.commit();
  std::cout << experiments << " experiments, " << jobs << " simulated jobs in " << seconds << " s ("
            << jobs / seconds << " jobs/s); " << (invalid == 0 ? "VALID" : "INVALID") << "\n";
  return invalid == 0 ? 0 : 1;
}

}  // namespace mcb::batchgrid
