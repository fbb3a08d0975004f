#include "apps/poisson/app.hpp"

#include "apps/poisson/options.hpp"
#include "apps/poisson/problem.hpp"
#include "harness/counters.hpp"
#include "harness/mpi_program.hpp"
#include "harness/record.hpp"
#include "harness/wide_area.hpp"

#include <unistd.h>

#include <cstdio>
#include <optional>

namespace mcb::poisson {
namespace {

using nlohmann::json;

constexpr const char* kProgram = "mcb-poisson";
// The final true residual may exceed the sweeps' estimate a little (over-relaxation moves
// points after their residual was measured); a wrong solution misses it by orders of magnitude.
constexpr double kResidualSlack = 10.0;

json config_json(const PoissonConfig& c, const harness::ClusterMap& map,
                 const harness::WideArea* wide) {
  const PoissonOptions& o = c.options;
  json names = map.names();
  return {{"problem", std::to_string(o.grid) + "x" + std::to_string(o.grid)},
          {"grid", o.grid},
          {"procs", c.grid.to_string()},
          {"h", c.grid.h()},
          {"v", c.grid.v()},
          {"total_size", c.grid.size()},
          {"clusters", map.clusters()},
          {"components", map.clusters()},
          {"cluster_map", map.as_vector()},
          {"cluster_names", names},
          {"system", harness::system_label(o.run, wide)},
          {"halo", o.halo},
          {"sync", o.sync},
          {"omega", c.solver.omega},
          {"tolerance", o.tolerance},
          {"max_iterations", o.max_iterations},
          {"kernel", o.kernel},
          {"instrumented", c.solver.instrumented},
          {"seed", o.run.seed},
          {"wan", wide ? wide->wan_json() : json(nullptr)},
          {"relay", wide ? wide->relay_json() : json(nullptr)}};
}

}  // namespace

int run_program(int argc, char** argv) {
  return harness::mpi_main(kProgram, argc, argv, check_options, [&](MPI_Comm world) -> int {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    const bool root = rank == 0;

    PoissonConfig config;
    bool proceed = true;
    std::optional<harness::ClusterMap> map;
    harness::collective_check(world,
                              [&] { proceed = parse_options(argc, argv, size, root, config); });
    if (!proceed) return 0;
    harness::collective_check(world, [&] {
      const auto& grid = config.grid;
      map = harness::resolve_cluster_map(world, config.options.run, [&](int clusters) {
        return harness::ClusterMap::strips(grid, clusters);
      });
    });
    // Emulated links and/or the gateway relay between clusters; nullptr when not asked for.
    std::shared_ptr<harness::WideArea> wide;
    harness::collective_check(
        world, [&] { wide = harness::WideArea::create(world, config.options.run, *map); });

    const PoissonOptions& o = config.options;
    const std::string run_id =
        o.run.run_id.empty() ? harness::default_run_id("poisson") : o.run.run_id;
    const json env = harness::mpi_environment(world, argc, argv);
    json record = harness::record_header("poisson", o.run, run_id);
    record["config"] = config_json(config, *map, wide.get());
    record["env"] = env;

    harness::Counters counters(harness::split_events(o.run.counters));
    std::optional<LocalProblem> problem;
    std::optional<HaloExchange> halo;
    std::optional<harness::InstrumentedComm> comm;
    SolverOutcome outcome;
    const std::string failure = harness::collective_try(world, [&] {
      problem = LocalProblem::manufactured(Subdomain::of(o.grid, config.grid, rank));
      halo.emplace(problem->sub, config.grid, rank);
      comm.emplace(world, *map, std::vector<std::string>{"top", "bottom", "left", "right"},
                   config.solver.instrumented, wide);
      // Initial halos come from the neighbours (the paper's start-up broadcast of the data).
      harness::InstrumentedComm setup(world, *map, comm->channel_names(), false);
      halo->exchange_all(setup, problem->u);
      counters.start();
      outcome = solve(*problem, *halo, *comm, config.solver);
      counters.stop();
    });
    if (wide) wide->finish();  // the solver's messages are all in: stop the relay
    if (!failure.empty()) {
      return harness::record_failure(world, kProgram, o.run.output, record, failure);
    }

    const Verification check = verify(*problem, *halo, world, *map);
    const double clock_offset = harness::estimate_clock_offset(world);
    const double paper_comm = outcome.timeline.paper_time(world, clock_offset);

    // Per-rank book, gathered to rank 0.
    const double my_comm = comm->total_time();
    std::uint64_t my_bytes = 0;
    for (int d = 0; d < harness::kDirections; ++d) my_bytes += comm->stats(d).total_bytes();
    unsigned long long max_bytes = 0;
    const unsigned long long mine = my_bytes;
    MPI_Allreduce(&mine, &max_bytes, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, world);
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    json me = {{"rank", rank},
               {"host", host},
               {"cluster", map->cluster_of(rank)},
               {"compute_time", outcome.compute_time},
               {"comm_time", my_comm},
               {"sync_time", outcome.sync_time},
               {"allreduce_time", outcome.allreduce_time},
               {"channels", comm->stats_json()},
               {"counters", counters.values()}};
    const json ranks = harness::gather_objects(world, me);
    const json wall = harness::spread(world, outcome.wall_time);
    const json compute = harness::spread(world, outcome.compute_time);
    const json comm_spread = harness::spread(world, my_comm);
    const json allreduce = harness::spread(world, outcome.allreduce_time);
    harness::add_counters(record, world, counters);
    if (!root) return 0;

    const double wall_time = wall["max"].get<double>();
    const double sites = static_cast<double>(o.grid) * o.grid;
    const double lups = wall_time > 0 ? sites * outcome.iterations / wall_time : 0.0;
    const double residual_limit = kResidualSlack * o.tolerance * ManufacturedSolution::rhs_max();
    std::string reason;
    if (!check.finite) {
      reason = "the solution holds non-finite values";
    } else if (!outcome.converged) {
      reason = "did not converge in " + std::to_string(outcome.iterations) + " iterations";
    } else if (check.residual > residual_limit) {
      reason = "final residual above its limit";
    } else if (check.error > check.error_bound) {
      reason = "error against the manufactured solution above its bound";
    }
    const bool valid = reason.empty();

    record["status"] = valid ? "valid" : "invalid";
    if (!valid) record["reason"] = reason;
    record["verdict"] = {{"valid", valid},
                         {"residual", check.residual},
                         {"residual_limit", residual_limit},
                         {"error", check.error},
                         {"error_bound", check.error_bound},
                         {"figure_of_merit", {{"value", lups}, {"unit", "LUP/s"}}}};
    record["result"] = {{"iterations", outcome.iterations},
                        {"converged", outcome.converged},
                        {"global_error", outcome.global_error},
                        {"wall_time", wall_time},
                        {"compute_time", compute},
                        {"comm_time", comm_spread},
                        {"allreduce_time", allreduce},
                        {"comm_time_paper", paper_comm},
                        {"transfer_rate", paper_comm > 0 ? max_bytes / paper_comm : 0.0},
                        {"site_updates_per_second", lups}};
    record["ranks"] = ranks;
    harness::write_record(o.run.output, record);

    if (!o.run.quiet) {
      std::printf("%s: grid %dx%d, procs %s on %d cluster(s), halo %s, %s, omega %.6g, %s kernel\n",
                  kProgram, o.grid, o.grid, config.grid.to_string().c_str(), map->clusters(),
                  o.halo.c_str(), o.sync ? "synchronized" : "non-synchronized", config.solver.omega,
                  o.kernel.c_str());
      if (wide) {
        std::printf("  wide area: %s%s\n", record["config"]["system"].get<std::string>().c_str(),
                    wide->relays() ? " (inter-cluster messages through the gateway ranks)" : "");
      }
      std::printf(
          "  iterations %ld (%s), wall %.6g s, compute %.6g s, border exchange %.6g s "
          "(paper definition %.6g s)\n",
          outcome.iterations, outcome.converged ? "converged" : "not converged", wall_time,
          compute["max"].get<double>(), comm_spread["max"].get<double>(), paper_comm);
      std::printf("  residual %.3e (limit %.3e), error %.3e (bound %.3e)\n", check.residual,
                  residual_limit, check.error, check.error_bound);
      if (!counters.available()) {
        std::printf("  counters unavailable: %s\n", counters.reason().c_str());
      }
      if (o.run.output != "none")
        std::printf("  record %s -> %s\n", run_id.c_str(), o.run.output.c_str());
    }
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.4g LUP/s", lups);
    return harness::report_verdict(valid, figure, "lattice-site updates per second", reason);
  });
}

}  // namespace mcb::poisson
