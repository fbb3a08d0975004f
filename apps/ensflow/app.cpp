#include "apps/ensflow/app.hpp"

#include "apps/ensflow/experiment.hpp"
#include "apps/ensflow/layout.hpp"
#include "apps/ensflow/options.hpp"
#include "apps/ensflow/verdict.hpp"
#include "common/errors.hpp"
#include "harness/driver.hpp"
#include "harness/record.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

namespace mcb::ensflow {
namespace {

std::string equation_name(const ModelParameters& m) {
  if (m.layers() == 2) return "two-layer quasi-geostrophic";
  return m.deformation_radius_km > 0 ? "1.5-layer quasi-geostrophic" : "barotropic vorticity";
}

using nlohmann::json;

constexpr const char* kProgram = "mcb-ensflow";
constexpr const char* kFigureUnit = "member-days/s";

json config_json(const EnsflowConfig& c, const harness::ClusterMap& map, int ranks,
                 const harness::WideArea* wide) {
  const EnsflowOptions& o = c.options;
  const ExperimentSettings& s = c.settings;
  const ModelParameters& m = s.model;
  json names = map.names();
  const bool regional = analysis_layout(s, ranks).is_regional();
  const std::size_t block_rows = regional ? static_cast<std::size_t>(m.grid) : kBlockRows;
  const std::string layout = regional ? "regional" : "gathered";
  return {{"problem", problem_label(s)},
          {"total_size", ranks},
          {"components", map.clusters()},
          {"clusters", map.clusters()},
          {"cluster_map", map.as_vector()},
          {"cluster_names", names},
          {"system", harness::system_label(o.run, wide)},
          {"seed", s.seed},
          {"truth_seed", s.truth_seed},
          {"wan", wide ? wide->wan_json() : json(nullptr)},
          {"relay", wide ? wide->relay_json() : json(nullptr)},
          {"members", s.members},
          {"members_per_process", s.members / ranks},
          {"days", s.days},
          {"analysis_every", s.analysis_every},
          {"analyses", s.analyses()},
          {"grid", m.grid},
          {"state_size", static_cast<std::size_t>(m.layers()) * m.points()},
          {"block_rows", block_rows},
          {"analysis_layout", layout},
          {"analysis_layout_option", layout_name(s.layout)},
          {"observations", s.observations},
          {"obs_variance", s.analysis.observation_variance},
          {"filter", filter_name(s.analysis.filter)},
          {"inflation", s.analysis.inflation},
          {"localisation_km", s.analysis.localisation_km},
          {"relaxation", s.analysis.relaxation},
          {"initial_spread", s.initial_spread_m},
          {"initial_length_km", s.initial_length_km},
          {"spinup_days", s.spinup_days},
          {"spinup_seed", s.spinup_seed},
          {"free_run", s.free_run},
          {"model",
           {{"equation", equation_name(m)},
            {"basin_km", m.basin_km},
            {"depth_m", m.depth_m},
            {"lower_depth_m", m.lower_depth_m},
            {"latitude_deg", m.latitude_deg},
            {"wind_stress", m.wind_stress},
            {"deformation_radius_km", m.deformation_radius_km},
            {"drag_days", m.drag_days},
            {"walls", walls_name(o.walls)},
            {"viscosity", m.viscosity},
            {"viscosity_option", o.viscosity.text},
            {"steps_per_day", m.steps_per_day},
            {"steps_per_day_option", o.steps_per_day.text},
            {"time_step_s", m.time_step()},
            {"spacing_m", m.spacing()},
            {"coriolis", m.coriolis()},
            {"beta", m.beta()}}}};
}

json innovations_json(const std::vector<InnovationStatistics>& innovations) {
  json out = json::array();
  for (const auto& s : innovations) {
    out.push_back({{"day", s.day},
                   {"observations", s.observations},
                   {"chi_square", s.chi_square},
                   {"error_consistency", s.error_consistency},
                   {"rank_histogram", s.rank_counts}});
  }
  return out;
}

json points_json(const std::vector<DiagnosticPoint>& points) {
  json out = json::array();
  for (const auto& p : points) {
    out.push_back({{"kind", p.kind}, {"day", p.day}, {"rmse", p.rmse}, {"spread", p.spread}});
  }
  return out;
}

// {name: seconds} of this rank's phases: computation phases and the channels.
json phase_json(const PhaseTimes& t, const harness::InstrumentedComm& comm) {
  json out = {{"forecast", t.forecast}, {"observe", t.observe}, {"transform", t.transform},
              {"apply", t.apply},       {"restore", t.restore}, {"diagnostics", t.diagnostics}};
  for (const auto& name : comm.channel_names())
    out[name] = comm.stats(comm.channel(name)).total_time();
  return out;
}

void print_restart(const CheckpointBook& book, const std::string& checkpoint_file) {
  if (!book.restart_file.empty()) {
    std::printf("  restart: '%s', day %d, %zu bytes, read and checked %.3g s, distributed %.3g s\n",
                book.restart_file.c_str(), book.restart_day, book.restart_bytes, book.read_time,
                book.distribute_time);
  }
  if (!book.writes.empty()) {
    std::printf("  checkpoints: %zu to '%s' (last: day %d, %zu bytes, %.3g s), %.3g s in all\n",
                book.writes.size(), checkpoint_file.c_str(), book.writes.back().day,
                book.writes.back().bytes, book.writes.back().seconds, book.write_time());
  }
  if (book.stopped_at > 0)
    std::printf("  stopped at day %d (%s)\n", book.stopped_at, book.stopped_by.c_str());
}

// The verdict's checks (a stopped run's: over the days it reached).
void print_checks(const json& verdict) {
  if (!verdict.contains("checks")) return;
  const json& checks = verdict["checks"];
  const auto value_of = [&](const char* check) {
    return checks.contains(check) ? checks[check]["value"].get<double>() : -1.0;
  };
  std::printf(
      "  spread/RMSE forecast %.3g, analysis %.3g; innovation chi-square %.3g; "
      "Desroziers %.3g; rank-histogram outer bins %.3g x expected\n",
      value_of("spread_skill_forecast"), value_of("spread_skill_analysis"), value_of("chi_square"),
      value_of("error_consistency"), value_of("rank_outer_ratio"));
}

void print_summary(const EnsflowConfig& config, const harness::ClusterMap& map, int ranks,
                   const harness::WideArea* wide, const json& record,
                   const ExperimentOutcome& outcome) {
  const ExperimentSettings& s = config.settings;
  const json& result = record["result"];
  std::printf(
      "%s: %d members x %d days on a %dx%d grid (%s), %d processes on %d cluster(s), "
      "%s EnKF, %zu observations every %d days\n",
      kProgram, s.members, s.days, s.model.grid, s.model.grid, equation_name(s.model).c_str(),
      ranks, map.clusters(), filter_name(s.analysis.filter).c_str(), s.observations,
      s.analysis_every);
  if (wide) {
    std::printf("  wide area: %s%s\n", record["config"]["system"].get<std::string>().c_str(),
                wide->relays() ? " (inter-cluster messages through the gateway ranks)" : "");
  }
  for (const auto& p : outcome.points) {
    if (p.kind != "analysis") continue;
    double f = 0, fs = 0, free = -1;
    for (const auto& q : outcome.points) {
      if (q.day != p.day) continue;
      if (q.kind == "forecast") f = q.rmse, fs = q.spread;
      if (q.kind == "free") free = q.rmse;
    }
    std::printf("  day %3d: forecast RMSE %.4f m (spread %.4f), analysis %.4f m (spread %.4f)",
                p.day, f, fs, p.rmse, p.spread);
    if (free >= 0) std::printf(", free run %.4f m", free);
    std::printf("\n");
  }
  for (const auto& p : outcome.points) {
    if (p.kind != "final") continue;
    std::printf("  end, day %d: RMSE %.4f m (spread %.4f)", p.day, p.rmse, p.spread);
    for (const auto& q : outcome.points) {
      if (q.kind == "free" && q.day == p.day) {
        std::printf("; free run %.4f m (spread %.4f)", q.rmse, q.spread);
      }
    }
    std::printf("\n");
  }
  print_checks(record["verdict"]);
  const auto max_of = [&](const char* phase) {
    return result["phase_times"][phase]["max"].get<double>();
  };
  std::printf(
      "  wall %.4g s: forecast %.4g s, analysis %.4g s (%.2f%%; observe %.3g, gather %.3g, "
      "transform %.3g, transpose %.3g, halo %.3g, apply %.3g, update %.3g, restore %.3g s)\n",
      result["wall_time"].get<double>(), max_of("forecast"),
      result["analysis_time"]["max"].get<double>(), 100 * result["analysis_share"].get<double>(),
      max_of("observe"), max_of("gather"), max_of("transform"), max_of("transpose"), max_of("halo"),
      max_of("apply"), max_of("update"), max_of("restore"));
  const CheckpointBook& book = outcome.checkpoints;
  if (book.restart_file.empty()) {
    std::printf("  untimed: setup %.3g s (spin-up %d days, truth, initial ensemble)",
                result["setup_time"].get<double>(), s.spinup_days);
  } else {
    std::printf("  untimed: setup %.3g s (restart from day %d)", result["setup_time"].get<double>(),
                book.restart_day);
  }
  if (s.free_run && book.stopped_at == 0)
    std::printf(", free run %.3g s", result["free_run_time"].get<double>());
  std::printf("\n");
  print_restart(book, config.checkpoints.file);
}

// One mcb-ensflow run: the ensemble Kalman filter's twin experiment, judged by its
// consistency checks.
class EnsflowRun : public harness::Measurement {
 public:
  bool parse(int argc, char** argv, int ranks, bool is_root) override {
    return parse_options(argc, argv, ranks, is_root, config_);
  }
  const harness::RunOptions& run_options() const override { return config_.options.run; }
  harness::ClusterMap default_cluster_map(int ranks, int clusters) const override {
    return ensflow::default_cluster_map(ranks, clusters);
  }
  json config(const harness::Run& run) const override {
    return config_json(config_, run.clusters(), run.size, run.wide.get());
  }

  void measure(harness::Run& run, harness::Counters& counters) override {
    comm_.emplace(run.world, run.clusters(), channel_names(), true, run.wide);
    outcome_ = run_experiment(config_.settings, *comm_, &counters, config_.checkpoints,
                              config_.restart.file.empty() ? nullptr : &config_.restart);
  }

  json conclude(const harness::Run& run) override {
    const ExperimentSettings& s = config_.settings;
    const double clock_offset = harness::estimate_clock_offset(run.world);
    paper_comm_ = outcome_.timeline.paper_time(run.world, clock_offset);
    const PhaseTimes& t = outcome_.times;
    const double my_comm = comm_->total_time();
    const double my_analysis = t.analysis_compute() + my_comm;
    const EnsembleLayout layout = analysis_layout(s, run.size);
    const json my_phases = phase_json(t, *comm_);
    const int rank = run.rank;
    json me = {{"members",
                {layout.first_member(rank), layout.first_member(rank) + layout.members_per_rank()}},
               {"rows", layout.rows(rank)},
               {"grid_rows", {layout.first_grid_row(rank), layout.end_grid_row(rank)}},
               {"wall_time", outcome_.wall_time},
               {"compute_time", t.compute()},
               {"comm_time", my_comm},
               {"analysis_time", my_analysis},
               {"phase_times", my_phases},
               {"channels", comm_->stats_json()}};
    wall_ = harness::spread(run.world, outcome_.wall_time);
    phases_ = json::object();
    for (const auto& [name, value] : my_phases.items())
      phases_[name] = harness::spread(run.world, value.get<double>());
    compute_ = harness::spread(run.world, t.compute());
    comm_spread_ = harness::spread(run.world, my_comm);
    analysis_ = harness::spread(run.world, my_analysis);
    setup_ = harness::spread(run.world, outcome_.setup_time);
    free_time_ = harness::spread(run.world, outcome_.free_run_time);
    return me;
  }

  harness::Judgement judge(const harness::Run& /*run*/) override {
    const ExperimentSettings& s = config_.settings;
    const double wall_time = wall_["max"].get<double>();
    // The days this run computed: a restarted or stopped run computes part of them.
    const int days_run = std::max(0, outcome_.last_day - outcome_.first_day + 1);
    const double member_days = static_cast<double>(s.members) * days_run;
    const double figure = wall_time > 0 ? member_days / wall_time : 0.0;
    harness::Judgement j;
    const CheckpointBook& book = outcome_.checkpoints;
    // A stopped run is judged on the days it reached (verdict.hpp); `result.restart` says
    // where it stopped and which file continues it.
    const Verdict verdict =
        ensflow::judge(outcome_.points, outcome_.innovations, s.free_run, outcome_.reference,
                       JudgedSpan{book.stopped_at, s.analysis_every, book.stopped_by});
    j.valid = verdict.valid;
    j.reason = verdict.reason;
    j.verdict = verdict.details;
    json restart = book.to_json(config_.checkpoints.file);
    restart["first_day"] = outcome_.first_day;
    restart["last_day"] = outcome_.last_day;
    const std::string& stop_file = config_.checkpoints.stop_file;
    restart["stop_file"] = stop_file.empty() ? json(nullptr) : json(stop_file);
    j.result = {
        {"wall_time", wall_time},
        {"wall_time_ranks", wall_},
        {"compute_time", compute_},
        {"comm_time", comm_spread_},
        {"phase_times", phases_},
        {"analysis_time", analysis_},
        {"analysis_share", wall_time > 0 ? analysis_["max"].get<double>() / wall_time : 0.0},
        {"comm_time_paper", paper_comm_},
        {"analyses", s.analyses()},
        {"member_days", member_days},
        {"member_days_per_second", figure},
        {"setup_time", setup_["max"]},
        {"free_run_time", free_time_["max"]},
        {"reference_check_time", outcome_.reference.seconds},
        {"diagnostics", points_json(outcome_.points)},
        {"innovations", innovations_json(outcome_.innovations)},
        {"restart", restart}};
    j.figure = figure;
    j.unit = kFigureUnit;
    char merit[48];
    std::snprintf(merit, sizeof merit, "%.4g %s", figure, kFigureUnit);
    j.figure_text = merit;
    j.meaning = "ensemble members advanced one day per second";
    return j;
  }

  void print_summary(const harness::Run& run, const json& record) const override {
    ensflow::print_summary(config_, run.clusters(), run.size, run.wide.get(), record, outcome_);
  }

 private:
  EnsflowConfig config_;
  std::optional<harness::InstrumentedComm> comm_;
  ExperimentOutcome outcome_;
  double paper_comm_ = 0;
  json wall_, phases_, compute_, comm_spread_, analysis_, setup_, free_time_;
};

}  // namespace

int run_program(int argc, char** argv) {
  return harness::run_measurement(kProgram, "ensflow", argc, argv, check_options,
                                  [] { return std::make_unique<EnsflowRun>(); });
}

}  // namespace mcb::ensflow
