/// @file
/// @brief mcb-sim: the trace-driven co-allocation simulator. Checks everything, runs the
/// study's simulations (shared among MPI ranks when started by mpirun: then as mcb-sim-mpi, the
/// same program linked with MPI, see mpi_world.hpp), and writes jobs.csv
/// and summary.json (with --schedule, batsim_jobs.csv and schedule.swf too), or sweep.csv and
/// sweep.json, as one set under --output (common/output_set.hpp).
#include "common/cli.hpp"
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/output_set.hpp"
#include "simulator/mpi_world.hpp"
#include "simulator/options.hpp"
#include "simulator/recorder.hpp"
#include "simulator/report.hpp"
#include "simulator/study.hpp"

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace {

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

  // Every file mcb-sim may write into --output: one set, committed whole (common/output_set.hpp).
  const bool single = !study->sweep();
  std::optional<mcb::OutputSet> outputs;
  std::ostream *jobs = nullptr, *batsim = nullptr, *swf = nullptr;
  if (world.rank() == 0) {
    outputs.emplace(options.output,
                    std::set<std::string>{"jobs.csv", "batsim_jobs.csv", "schedule.swf",
                                          "summary.json", "sweep.csv", "sweep.json"});
    if (single && !options.no_jobs_csv) jobs = &outputs->open("jobs.csv");
    if (study->schedule_files().batsim) batsim = &outputs->open("batsim_jobs.csv");
    if (study->schedule_files().swf) swf = &outputs->open("schedule.swf");
  }

  // Items are dealt round-robin; results travel as JSON so they are the same at any rank count.
  nlohmann::json mine = nlohmann::json::array();
  std::string failure;
  try {
    for (size_t i = static_cast<size_t>(world.rank()); i < study->item_count();
         i += static_cast<size_t>(world.size())) {
      Study::ItemFiles files;
      if (i == 0) files = {jobs, batsim, swf};
      mine.push_back(study->run_item(i, files));
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  const auto gathered = world.gather(failure.empty() ? mine.dump() : "!" + failure);
  if (world.rank() != 0) return 0;

  std::vector<nlohmann::json> results(study->item_count());
  for (const std::string& text : gathered) {
    if (!text.empty() && text.front() == '!') throw std::runtime_error(text.substr(1));
    for (const auto& r : nlohmann::json::parse(text)) {
      const size_t index = r["point"].get<size_t>() * static_cast<size_t>(study->replications()) +
                           r["replication"].get<size_t>();
      results[index] = r;
    }
  }
  const nlohmann::json env = mcb::environment_block(argc, argv);
  if (single) {
    const nlohmann::json doc = mcb::sim::summary_document(*study, results, env);
    outputs->write("summary.json", doc.dump(2) + "\n");
    outputs->commit();
    print_summary_line(*study, doc, outputs->path("summary.json"));
  } else {
    outputs->write("sweep.csv", mcb::sim::sweep_csv(*study, results));
    const nlohmann::json doc = mcb::sim::sweep_document(*study, results, env);
    outputs->write("sweep.json", doc.dump(2) + "\n");
    outputs->commit();
    std::cout << "mcb-sim: " << study->points().size() << " points x " << study->replications()
              << " replications on " << world.size() << " rank(s); wrote "
              << outputs->path("sweep.csv") << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Outlives the run, so that MPI ends after the error message of a failed run.
  std::optional<mcb::sim::MpiWorld> world;
  return mcb::cli::run("mcb-sim", [&] {
    world.emplace(argc, argv);
    return body(*world, argc, argv);
  });
}
