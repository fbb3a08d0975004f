#include "apps/poisson/app.hpp"

#include "apps/poisson/options.hpp"
#include "apps/poisson/problem.hpp"
#include "common/units.hpp"
#include "harness/driver.hpp"
#include "harness/record.hpp"

#include <cstdio>
#include <memory>
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
          {"halo", name_of(o.halo)},
          {"sync", o.sync},
          {"omega", c.solver.omega},
          {"tolerance", o.tolerance},
          {"max_iterations", c.solver.max_iterations},
          {"fixed_iterations", c.solver.fixed_iterations},
          {"sample", o.sample},
          {"sweep_rate", o.sweep_rate},
          {"kernel", name_of(o.kernel)},
          {"instrumented", c.solver.instrumented},
          {"seed", o.run.seed},
          {"wan", wide ? wide->wan_json() : json(nullptr)},
          {"relay", wide ? wide->relay_json() : json(nullptr)}};
}

// One mcb-poisson run: the manufactured problem solved on the process grid, verified against
// its exact solution.
class PoissonRun : public harness::Measurement {
 public:
  bool parse(int argc, char** argv, int ranks, bool is_root) override {
    return parse_options(argc, argv, ranks, is_root, config_);
  }
  const harness::RunOptions& run_options() const override { return config_.options.run; }
  harness::ClusterMap default_cluster_map(int /*ranks*/, int clusters) const override {
    return harness::ClusterMap::strips(config_.grid, clusters);
  }
  json config(const harness::Run& run) const override {
    return config_json(config_, run.clusters(), run.wide.get());
  }

  void measure(harness::Run& run, harness::Counters& counters) override {
    const harness::ClusterMap& map = run.clusters();
    problem_ =
        LocalProblem::manufactured(Subdomain::of(config_.options.grid, config_.grid, run.rank));
    halo_.emplace(problem_->sub, config_.grid, run.rank);
    comm_.emplace(run.world, map, std::vector<std::string>{"top", "bottom", "left", "right"},
                  config_.solver.instrumented, run.wide);
    // Initial halos come from the neighbours (the paper's start-up broadcast of the data).
    harness::InstrumentedComm setup(run.world, map, comm_->channel_names(), false);
    halo_->exchange_all(setup, problem_->u);
    counters.start();
    outcome_ = solve(*problem_, *halo_, *comm_, config_.solver);
    counters.stop();
  }

  json conclude(const harness::Run& run) override {
    check_ = verify(*problem_, *halo_, run.world, run.clusters());
    const double clock_offset = harness::estimate_clock_offset(run.world);
    paper_comm_ = outcome_.timeline.paper_time(run.world, clock_offset);
    const double my_comm = comm_->total_time();
    std::uint64_t my_bytes = 0;
    for (int d = 0; d < harness::kDirections; ++d) my_bytes += comm_->stats(d).total_bytes();
    const unsigned long long mine = my_bytes;
    MPI_Allreduce(&mine, &max_bytes_, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, run.world);
    wall_ = harness::spread(run.world, outcome_.wall_time);
    compute_ = harness::spread(run.world, outcome_.compute_time);
    comm_spread_ = harness::spread(run.world, my_comm);
    allreduce_ = harness::spread(run.world, outcome_.allreduce_time);
    return {{"compute_time", outcome_.compute_time},
            {"comm_time", my_comm},
            {"sync_time", outcome_.sync_time},
            {"allreduce_time", outcome_.allreduce_time},
            {"channels", comm_->stats_json()}};
  }

  harness::Judgement judge(const harness::Run& /*run*/) override {
    const PoissonOptions& o = config_.options;
    const double wall_time = wall_["max"].get<double>();
    const double sites = static_cast<double>(o.grid) * o.grid;
    lups_ = wall_time > 0 ? sites * outcome_.iterations / wall_time : 0.0;
    residual_limit_ = kResidualSlack * o.tolerance * ManufacturedSolution::rhs_max();
    harness::Judgement j;
    if (!check_.finite) {
      j.reason = "the solution holds non-finite values";
    } else if (config_.solver.fixed_iterations && outcome_.iterations != o.iterations) {
      j.reason = "ran " + std::to_string(outcome_.iterations) + " of the " +
                 std::to_string(o.iterations) + " iterations asked for";
    } else if (!config_.solver.fixed_iterations && !outcome_.converged) {
      j.reason = "did not converge in " + std::to_string(outcome_.iterations) + " iterations";
    } else if (!config_.solver.fixed_iterations && check_.residual > residual_limit_) {
      j.reason = "final residual above its limit";
    } else if (check_.error > check_.error_bound) {
      j.reason = "error against the manufactured solution above its bound";
    }
    j.valid = j.reason.empty();
    j.verdict = {{"residual", check_.residual},
                 {"residual_limit", residual_limit_},
                 {"error", check_.error},
                 {"error_bound", check_.error_bound}};
    j.result = {
        {"iterations", outcome_.iterations},
        {"converged", outcome_.converged},
        {"global_error", outcome_.global_error},
        {"wall_time", wall_time},
        {"compute_time", compute_},
        {"comm_time", comm_spread_},
        {"allreduce_time", allreduce_},
        {"comm_time_paper", paper_comm_},
        {"transfer_rate", megabytes_per_second(paper_comm_ > 0 ? max_bytes_ / paper_comm_ : 0.0)},
        {"site_updates_per_second", lups_}};
    j.figure = lups_;
    j.unit = "LUP/s";
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.4g LUP/s", lups_);
    j.figure_text = figure;
    j.meaning = "lattice-site updates per second";
    return j;
  }

  void print_summary(const harness::Run& run, const json& record) const override {
    const PoissonOptions& o = config_.options;
    std::printf("%s: grid %dx%d, procs %s on %d cluster(s), halo %s, %s, omega %.6g, %s kernel\n",
                kProgram, o.grid, o.grid, config_.grid.to_string().c_str(),
                run.clusters().clusters(), name_of(o.halo),
                o.sync ? "synchronized" : "non-synchronized", config_.solver.omega,
                name_of(o.kernel));
    if (run.wide) {
      std::printf("  wide area: %s%s\n", record["config"]["system"].get<std::string>().c_str(),
                  run.wide->relays() ? " (inter-cluster messages through the gateway ranks)" : "");
    }
    std::printf(
        "  iterations %ld (%s), wall %.6g s, compute %.6g s, border exchange %.6g s "
        "(paper definition %.6g s)\n",
        outcome_.iterations, outcome_.converged ? "converged" : "not converged",
        wall_["max"].get<double>(), compute_["max"].get<double>(),
        comm_spread_["max"].get<double>(), paper_comm_);
    std::printf("  residual %.3e (limit %.3e), error %.3e (bound %.3e)\n", check_.residual,
                residual_limit_, check_.error, check_.error_bound);
    if (record["counters"].is_null()) {
      std::printf("  counters unavailable: %s\n",
                  record["counters_reason"].get<std::string>().c_str());
    }
  }

 private:
  PoissonConfig config_;
  std::optional<LocalProblem> problem_;
  std::optional<HaloExchange> halo_;
  std::optional<harness::InstrumentedComm> comm_;
  SolverOutcome outcome_;
  Verification check_;
  double paper_comm_ = 0;
  unsigned long long max_bytes_ = 0;
  json wall_, compute_, comm_spread_, allreduce_;
  double lups_ = 0;
  double residual_limit_ = 0;
};

}  // namespace

int run_program(int argc, char** argv) {
  return harness::run_measurement(kProgram, "poisson", argc, argv, check_options,
                                  [] { return std::make_unique<PoissonRun>(); });
}

}  // namespace mcb::poisson
