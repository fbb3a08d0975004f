#include "jobscripts/ensemble_program.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/text.hpp"
#include "jobscripts/app_check.hpp"
#include "jobscripts/campaign_folder.hpp"
#include "jobscripts/ensemble_coordinator.hpp"
#include "jobscripts/ensemble_spec.hpp"
#include "jobscripts/process.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace mcb::campaign {
namespace fs = std::filesystem;
namespace po = cli::po;

namespace {

struct Options {
  std::string spec;
  std::string state;
  bool check = false;
};

// mcb-ensflow --check at every queue's process count: the spec's [options] are refused before
// anything is submitted, with the application's own line.
void check_application(const EnsembleSpec& spec) {
  const std::string config =
      (fs::temp_directory_path() / ("mcb-ensemble-check-" + std::to_string(::getpid()) + ".ini"))
          .string();
  write_file_atomically(config, config_text(spec.options));
  const struct Remove {
    std::string path;
    ~Remove() {
      std::error_code ec;
      fs::remove(path, ec);
    }
  } remove{config};
  std::set<int> counts;
  for (const EnsembleQueue& q : spec.queues) counts.insert(q.processors);
  for (const int p : counts) {
    const std::vector<std::string> argv = {spec.binary, "--check",
                                           "--ranks",   std::to_string(p),
                                           "--days",    std::to_string(spec.horizon),
                                           "--config",  config,
                                           "--output",  "none"};
    const Captured r = capture(argv, fs::path(spec.path).parent_path().string());
    if (r.status.success()) continue;
    std::string last;
    std::istringstream err(r.err);
    for (std::string line; std::getline(err, line);) {
      if (!trim(line).empty()) last = trim(line);
    }
    throw UsageError("--spec: " + spec.path + ": [options] at " + std::to_string(p) +
                     " processes: " + (last.empty() ? r.status.describe() : last));
  }
}

}  // namespace

int run_ensemble_program(int argc, char** argv) {
  Options o;
  po::options_description d("Options");
  // clang-format off
  d.add_options()
      ("spec", po::value(&o.spec)->required()->value_name("FILE"),
       "the run: queues, link, horizon, checkpoint interval, mcb-ensflow's [options]")
      ("state", po::value(&o.state)->required()->value_name("DIR"),
       "the runner's folder: its event log, pilots, restart files and records; started again "
       "on the same folder, it carries on")
      ("check", po::bool_switch(&o.check), "check the spec and mcb-ensflow's options, then exit");
  // clang-format on
  const auto parsed = cli::parse(argc, argv, d, "mcb-ensemble --spec FILE --state DIR");
  if (parsed.help_printed) return 0;
  const EnsembleSpec spec = read_ensemble_spec(o.spec);
  check_application(spec);
  if (o.check) {
    std::cout << "mcb-ensemble: " << spec.path << ": " << spec.queues.size() << " queues, "
              << spec.horizon << " model days, a checkpoint every " << spec.checkpoint_every
              << "; split over several active queues: " << (spec.split ? "auto" : "never") << "\n";
    for (const EnsembleQueue& q : spec.queues) {
      std::cout << "mcb-ensemble: [queue." << q.name << "] " << q.a << " + " << q.b << "/"
                << q.processors << " = " << q.seconds_per_day() << " s per model day (from "
                << q.model << ")\n";
    }
    return 0;
  }
  if (fs::exists(o.state) && !fs::is_directory(o.state)) {
    throw UsageError("--state: '" + o.state + "' is not a folder");
  }
  fs::create_directories(o.state);
  const std::string dir = fs::absolute(o.state).lexically_normal().string();
  const CampaignFolder folder{dir};
  const FolderLock lock(folder);  // one runner per folder; the kernel releases it on a kill
  EnsembleCoordinator coordinator(spec, dir);
  while (!coordinator.done()) {
    coordinator.step();
    std::this_thread::sleep_for(std::chrono::duration<double>(spec.poll));
  }
  coordinator.finish();
  coordinator.summary(std::cout);
  return coordinator.state().gave_up.empty() ? 0 : 1;
}

}  // namespace mcb::campaign
