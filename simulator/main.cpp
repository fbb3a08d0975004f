/// @file
/// @brief mcb-sim: the trace-driven co-allocation simulator. Checks everything, runs the
/// study's simulations (shared among MPI ranks when started by mpirun), and writes jobs.csv
/// and summary.json (with --schedule, batsim_jobs.csv and schedule.swf too), or sweep.csv and
/// sweep.json, atomically under --output.
#include "common/cli.hpp"
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "simulator/mpi_world.hpp"
#include "simulator/options.hpp"
#include "simulator/recorder.hpp"
#include "simulator/report.hpp"
#include "simulator/study.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

namespace {

using mcb::AtomicFile;
using mcb::sim::Study;

std::string fixed(const nlohmann::json& v, int digits) {
  if (!v.is_number()) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v.get<double>());
  return buf;
}

// One line per run; a stop the user asked for (traces: --max-in-system) is said loudly.
void print_summary_line(const Study& study, const nlohmann::json& doc, const std::string& path) {
  const auto& r = doc["result"];
  const auto& left = doc["left_out"];
  const auto& u = r["utilization"];
  std::cout << "mcb-sim: " << r["jobs"]["measured_completed"] << " measured jobs; mean response "
            << fixed(r["response"]["mean"], 1) << " s; makespan " << fixed(r["makespan"], 0)
            << " s; utilization gross " << fixed(u["gross"], 3) << ", net " << fixed(u["net"], 3)
            << " over the arrivals, gross " << fixed(u["makespan_gross"], 3) << ", net "
            << fixed(u["makespan_net"], 3) << " over the makespan; left out " << left["total"]
            << " (warm-up " << left["warmup"] << ", unfinished " << left["unfinished_at_stop"]
            << ", never arrived " << left["never_arrived"] << ", skipped lines "
            << left["skipped_lines"] << "); "
            << (r["saturated"].get<bool>() ? "SATURATED" : "not saturated") << "; wrote " << path
            << std::endl;
  if (left["stopped_early"].get<bool>() && study.early_stop_requested()) {
    std::cout << "mcb-sim: STOPPED EARLY as asked by --max-in-system "
              << study.options().max_in_system << ": "
              << left["unfinished_at_stop"].get<std::uint64_t>() +
                     left["never_arrived"].get<std::uint64_t>()
              << " jobs of the trace are not in the statistics" << std::endl;
  }
}

int body(mcb::sim::MpiWorld& world, int argc, char** argv) {
  mcb::sim::Options options;
  std::optional<Study> study;
  // Rank 0 parses and checks; the others learn the outcome, then parse the same arguments.
  int status = 0;
  if (world.rank() == 0) {
    try {
      if (!mcb::sim::parse_options(argc, argv, options)) {
        status = -1;
      } else {
        study.emplace(Study::build(options));
      }
    } catch (...) {
      status = world.broadcast(mcb::kUsageExitCode);
      throw;
    }
  }
  status = world.broadcast(status);
  if (status == -1) return 0;
  if (status != 0) return status;
  if (world.rank() != 0) {
    mcb::sim::parse_options(argc, argv, options);
    study.emplace(Study::build(options));
  }

  namespace fs = std::filesystem;
  const fs::path dir(options.output);
  const bool single = !study->sweep();
  std::unique_ptr<AtomicFile> jobs, batsim, swf;
  bool created = false;
  if (world.rank() == 0) {
    std::error_code ec;
    created = !fs::exists(dir, ec);
    fs::create_directories(dir);
    if (single && !options.no_jobs_csv)
      jobs = std::make_unique<AtomicFile>((dir / "jobs.csv").string());
    if (study->schedule_files().batsim)
      batsim = std::make_unique<AtomicFile>((dir / "batsim_jobs.csv").string());
    if (study->schedule_files().swf)
      swf = std::make_unique<AtomicFile>((dir / "schedule.swf").string());
  }
  const auto stream_of = [](const std::unique_ptr<AtomicFile>& f) -> std::ostream* {
    return f ? &f->stream() : nullptr;
  };

  // Items are dealt round-robin; results travel as JSON so they are the same at any rank count.
  nlohmann::json mine = nlohmann::json::array();
  std::string failure;
  try {
    for (size_t i = static_cast<size_t>(world.rank()); i < study->item_count();
         i += static_cast<size_t>(world.size())) {
      Study::ItemFiles files;
      if (i == 0) files = {stream_of(jobs), stream_of(batsim), stream_of(swf)};
      mine.push_back(study->run_item(i, files));
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  const auto gathered = world.gather(failure.empty() ? mine.dump() : "!" + failure);
  if (world.rank() != 0) return 0;

  std::vector<nlohmann::json> results(study->item_count());
  for (const std::string& text : gathered) {
    if (!text.empty() && text.front() == '!') {
      jobs.reset();
      batsim.reset();
      swf.reset();
      if (created) fs::remove(dir);
      throw std::runtime_error(text.substr(1));
    }
    for (const auto& r : nlohmann::json::parse(text)) {
      const size_t index = r["point"].get<size_t>() * static_cast<size_t>(study->replications()) +
                           r["replication"].get<size_t>();
      results[index] = r;
    }
  }
  const nlohmann::json env = mcb::environment_block(argc, argv);
  if (single) {
    const nlohmann::json doc = mcb::sim::summary_document(*study, results, env);
    mcb::write_file_atomically((dir / "summary.json").string(), doc.dump(2) + "\n");
    for (auto* f : {jobs.get(), batsim.get(), swf.get()}) {
      if (f) f->commit();
    }
    print_summary_line(*study, doc, (dir / "summary.json").string());
  } else {
    mcb::write_file_atomically((dir / "sweep.csv").string(), mcb::sim::sweep_csv(*study, results));
    const nlohmann::json doc = mcb::sim::sweep_document(*study, results, env);
    mcb::write_file_atomically((dir / "sweep.json").string(), doc.dump(2) + "\n");
    std::cout << "mcb-sim: " << study->points().size() << " points x " << study->replications()
              << " replications on " << world.size() << " rank(s); wrote "
              << (dir / "sweep.csv").string() << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  mcb::sim::MpiWorld world(argc, argv);
  return mcb::cli::run("mcb-sim", [&] { return body(world, argc, argv); });
}
