#include "batchgrid/commands.hpp"

#include "batchgrid/grid.hpp"
#include "batchgrid/lublin.hpp"
#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "simulator/swf.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

namespace mcb::batchgrid {
namespace {

namespace po = boost::program_options;

std::array<double, kClasses> parse_mix(const std::string& text) {
  // The same m/s/l/n/w weights --queues takes.
  return parse_queues("16:fcfs:" + text).front().mix;
}

std::vector<double> parse_bandwidths(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v)) {
      throw UsageError("--bandwidths: '" + item + "' is not a positive number of Mbit/s");
    }
    out.push_back(v * 1e6);
  }
  if (out.empty()) throw UsageError("--bandwidths: no bandwidth given");
  return out;
}

void positive(const char* option, double v) {
  if (!(v > 0) || !std::isfinite(v)) {
    throw UsageError(std::string("--") + option + ": '" + csv::number(v) + "' is not positive");
  }
}

void add_grid_options(po::options_description& o) {
  o.add_options()("seed", po::value<std::uint64_t>()->default_value(1), "random seed (recorded)")(
      "limit", po::value<double>()->default_value(2 * 86400.0),
      "maximum execution time of every queue, s")(
      "horizon-days", po::value<double>()->default_value(60), "wall-clock days evaluated")(
      "interarrival", po::value<double>()->default_value(3000),
      "mean inter-arrival time of the external jobs, s (seed 003: 3000)")(
      "bandwidths", po::value<std::string>()->default_value("10,100,1000"),
      "inter-site bandwidths, Mbit/s, comma-separated");
}

GridSpec grid_from(const po::variables_map& vm) {
  GridSpec g;
  g.seed = vm["seed"].as<std::uint64_t>();
  g.limit = vm["limit"].as<double>();
  positive("limit", g.limit);
  const double days = vm["horizon-days"].as<double>();
  positive("horizon-days", days);
  g.horizon = days * 86400;
  g.interarrival = vm["interarrival"].as<double>();
  positive("interarrival", g.interarrival);
  g.bandwidths = parse_bandwidths(vm["bandwidths"].as<std::string>());
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

int generate_command(int argc, const char* const* argv) {
  po::options_description o("generate options");
  o.add_options()("size", po::value<int>()->required(), "system size (processors), >= 16")(
      "jobs", po::value<std::uint64_t>()->default_value(10000), "number of jobs")(
      "seed", po::value<std::uint64_t>()->default_value(1), "random seed (recorded)")(
      "mix", po::value<std::string>()->default_value("1/0/0/0/0"),
      "weights of model/short/long/narrow/wide jobs")(
      "interarrival", po::value<double>()->default_value(3000), "mean inter-arrival time, s")(
      "output", po::value<std::string>()->required(), "SWF file to write");
  const auto parsed = cli::parse(argc, argv, o, "mcb-batchgrid generate [options]");
  if (parsed.help_printed) return 0;
  const auto& vm = parsed.vm;
  LublinSpec spec;
  spec.max_size = vm["size"].as<int>();
  spec.seed = vm["seed"].as<std::uint64_t>();
  spec.mix = parse_mix(vm["mix"].as<std::string>());
  spec.mean_interarrival = vm["interarrival"].as<double>();
  positive("interarrival", spec.mean_interarrival);
  const auto jobs = vm["jobs"].as<std::uint64_t>();
  if (jobs == 0) throw UsageError("--jobs: '0' is not positive");
  const std::string out = vm["output"].as<std::string>();
  check_writable_file("output", out);
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
  const auto& m = vm["mix"].as<std::string>();
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

int run_command(int argc, const char* const* argv) {
  po::options_description o("run options");
  o.add_options()("queues", po::value<std::string>()->required(),
                  "SIZE:DISCIPLINE[:m/s/l/n/w|trace=FILE], comma-separated")(
      "request", po::value<int>()->default_value(0),
      "processors the application asks of the largest queue alone (0: its single-system best "
      "schedule there)")("output", po::value<std::string>()->required(),
                         "folder for summary.json and events");
  add_grid_options(o);
  const auto parsed = cli::parse(argc, argv, o, "mcb-batchgrid run [options]");
  if (parsed.help_printed) return 0;
  const auto& vm = parsed.vm;
  GridSpec g = grid_from(vm);
  g.queues = parse_queues(vm["queues"].as<std::string>());
  g.request = vm["request"].as<int>();
  const std::string dir = vm["output"].as<std::string>();
  check_creatable_folder("output", dir);
  std::vector<Event> multi, single;
  const Comparison c = compare(g, &multi, &single);
  const std::string problem = check(g, c, multi);
  std::filesystem::create_directories(dir);
  write_events(dir + "/multi-events.jsonl", multi);
  write_events(dir + "/single-events.jsonl", single);
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
                                {{"queues", vm["queues"].as<std::string>()},
                                 {"request", c.request},
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
  write_file_atomically(dir + "/summary.json", summary.dump(2) + "\n");
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
    sizes += (q ? "/" : "") + std::to_string(g.queues[q].size);
    disciplines += (q ? "/" : "") + g.queues[q].discipline;
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
    shares += (k > 1 ? "/" : "") + csv::number(weights > 0 ? mix[k] / weights : 0);
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

int study_command(int argc, const char* const* argv) {
  po::options_description o("study options");
  o.add_options()("experiments", po::value<int>()->default_value(1000),
                  "random grids (seed 003: 1000)")(
      "threads", po::value<int>()->default_value(0),
      "experiments run at once (0: one per hardware thread); the results do not depend on it")(
      "output", po::value<std::string>()->required(), "folder for study.csv and study.json");
  add_grid_options(o);
  const auto parsed = cli::parse(argc, argv, o, "mcb-batchgrid study [options]");
  if (parsed.help_printed) return 0;
  const auto& vm = parsed.vm;
  const GridSpec defaults = grid_from(vm);
  const int experiments = vm["experiments"].as<int>();
  if (experiments < 1) {
    throw UsageError("--experiments: '" + std::to_string(experiments) + "' is not positive");
  }
  int threads = vm["threads"].as<int>();
  if (threads < 0) throw UsageError("--threads: '" + std::to_string(threads) + "' is negative");
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, experiments);  // a worker without an experiment would only idle
  const std::string dir = vm["output"].as<std::string>();
  check_creatable_folder("output", dir);
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
  std::filesystem::create_directories(dir);
  write_file_atomically(dir + "/study.csv", table.text());
  const nlohmann::json summary{{"schema", "mcb-batchgrid-study/1"},
                               {"config",
                                {{"experiments", experiments},
                                 {"seed", defaults.seed},
                                 {"limit", defaults.limit},
                                 {"horizon", defaults.horizon},
                                 {"interarrival", defaults.interarrival},
                                 {"bandwidths", vm["bandwidths"].as<std::string>()}}},
                               {"environment", environment_block(argc, argv)},
                               {"simulated_jobs", jobs},
                               {"threads", threads},
                               {"wall_seconds", seconds},
                               {"jobs_per_second", jobs / seconds},
                               {"invalid_experiments", invalid},
                               {"verdict", invalid == 0 ? "VALID" : "INVALID"}};
  write_file_atomically(dir + "/study.json", summary.dump(2) + "\n");
  std::cout << experiments << " experiments, " << jobs << " simulated jobs in " << seconds << " s ("
            << jobs / seconds << " jobs/s); " << (invalid == 0 ? "VALID" : "INVALID") << "\n";
  return invalid == 0 ? 0 : 1;
}

}  // namespace mcb::batchgrid
