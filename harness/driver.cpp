#include "harness/driver.hpp"

#include "harness/join.hpp"
#include "harness/mpi_program.hpp"
#include "harness/node_load.hpp"
#include "harness/record.hpp"

#include <cstdio>
#include <iostream>

namespace mcb::harness {
namespace {

using nlohmann::json;

// Parses on every rank and agrees on the options, the cluster map (the components' when
// @p joined) and the wide area. False when nothing is to run (--help).
bool set_up(int argc, char** argv, Measurement& m, Run& run, const JoinedWorld* joined) {
  bool proceed = true;
  collective_check(run.world, [&] { proceed = m.parse(argc, argv, run.size, run.root()); });
  if (!proceed) return false;
  const RunOptions& o = m.run_options();
  collective_check(run.world, [&] {
    run.map = joined ? joined_cluster_map(run.world, o, *joined)
                     : resolve_cluster_map(run.world, o, [&](int clusters) {
                         return m.default_cluster_map(run.size, clusters);
                       });
  });
  collective_check(run.world, [&] { run.wide = WideArea::create(run.world, o, *run.map); });
  return true;
}

// The record's fields that close a measured run, on rank 0.
void close_record(json& record, const Judgement& j, json ranks) {
  record["status"] = j.valid ? "valid" : "invalid";
  if (!j.valid) record["reason"] = j.reason;
  record["verdict"] = j.verdict;
  record["verdict"]["valid"] = j.valid;
  record["verdict"]["figure_of_merit"] = {{"value", j.figure}, {"unit", j.unit}};
  record["result"] = j.result;
  record["ranks"] = std::move(ranks);
}

// Sequence after a successful measurement: per-rank blocks, counters, verdict, record, summary.
int finish(const std::string& program, Measurement& m, const Run& run, const Counters& counters,
           json record) {
  json me = m.conclude(run);
  me["rank"] = run.rank;
  me["host"] = run.env["hosts"][static_cast<std::size_t>(run.rank)];
  me["cluster"] = run.map->cluster_of(run.rank);
  const std::string no_counters = m.counters_reason();
  if (no_counters.empty()) me["counters"] = counters.values();
  json ranks = gather_objects(run.world, me);
  if (no_counters.empty()) {
    add_counters(record, run.world, counters);
  } else {
    record["counters"] = nullptr;
    record["counters_reason"] = no_counters;
  }
  if (!run.root()) return 0;

  const Judgement j = m.judge(run);
  close_record(record, j, std::move(ranks));
  const RunOptions& o = m.run_options();
  try {
    write_record(o.output, record);
  } catch (const std::runtime_error& e) {
    // A full disk: one line and exit code 1 (the other ranks are done; no abort of the job).
    std::cerr << program << ": " << e.what() << std::endl;
    return 1;
  }
  if (!o.quiet) {
    m.print_summary(run, record);
    if (writes_records(o)) std::printf("  record %s -> %s\n", run.run_id.c_str(), o.output.c_str());
  }
  return report_verdict(j.valid, j.figure_text, j.meaning, j.reason);
}

// A component whose join failed: the options as the joined run would have had them, and a
// failed record naming the components that came (written by rank 0 of joined.comm()).
int record_join_failure(const JoinedWorld& joined, const std::string& program,
                        const std::string& app, int argc, char** argv, Measurement& m) {
  const MPI_Comm comm = joined.comm();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  bool proceed = true;
  collective_check(comm, [&] { proceed = m.parse(argc, argv, joined.spec().ranks, rank == 0); });
  if (!proceed) return 0;
  const RunOptions& o = m.run_options();
  json record = record_header(app, o, o.run_id.empty() ? default_run_id(app) : o.run_id);
  record["config"] = {{"total_size", joined.spec().ranks},
                      {"components", joined.spec().components}};
  record["env"] = mpi_environment(comm, argc, argv);
  record["env"]["join"] = joined.record();
  return record_failure(comm, program, o.output, record, joined.failure());
}

int drive_on(MPI_Comm world, const std::string& program, const std::string& app, int argc,
             char** argv, Measurement& m, const JoinedWorld* joined) {
  Run run;
  run.world = world;
  MPI_Comm_rank(world, &run.rank);
  MPI_Comm_size(world, &run.size);
  if (!set_up(argc, argv, m, run, joined)) return 0;

  const RunOptions& o = m.run_options();
  run.run_id = o.run_id.empty() ? default_run_id(app) : o.run_id;
  run.env = mpi_environment(world, argc, argv);
  if (joined) run.env["join"] = joined->record();
  json record = record_header(app, o, run.run_id);
  record["config"] = m.config(run);
  record["env"] = run.env;

  record["config"]["node_load"] = format_node_load(o.node_load);

  Counters counters(m.counters_reason().empty() ? split_events(o.counters)
                                                : std::vector<std::string>{});
  std::optional<NodeLoadOnHosts> load;
  if (o.node_load.any()) {
    load.emplace(world, o.node_load, run.env.at("hosts").get<std::vector<std::string>>());
  }
  std::string failure = load ? collective_try(world, [&] { load->check_started(); }) : "";
  if (failure.empty()) failure = collective_try(world, [&] { m.measure(run, counters); });
  if (run.wide) run.wide->finish();  // every measured message is in: stop the relay
  if (load) {
    const std::string ended = collective_try(world, [&] { load->end(); });
    if (failure.empty()) failure = ended;
    if (ended.empty()) record["env"]["node_load"] = load->record();
  }
  if (!failure.empty()) return record_failure(world, program, o.output, record, failure);
  return finish(program, m, run, counters, std::move(record));
}

}  // namespace

int drive(MPI_Comm world, const std::string& program, const std::string& app, int argc, char** argv,
          Measurement& m) {
  return drive_on(world, program, app, argc, argv, m, nullptr);
}

int run_measurement(const std::string& program, const std::string& app, int argc, char** argv,
                    const cli::CheckFunction& check, const MeasurementFactory& make) {
  return mpi_main(program, argc, argv, check, [&](MPI_Comm world) {
    // The components of a co-allocated run join first (harness/join.hpp); the measurement,
    // made after, lets go of its communicators before the joined ones are disconnected.
    const JoinedWorld joined(world, join_spec_from_environment());
    const std::unique_ptr<Measurement> m = make();
    if (!joined.failure().empty()) return record_join_failure(joined, program, app, argc, argv, *m);
    return drive_on(joined.comm(), program, app, argc, argv, *m,
                    joined.joining() ? &joined : nullptr);
  });
}

}  // namespace mcb::harness
