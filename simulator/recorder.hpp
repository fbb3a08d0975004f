#pragma once
/// @file
/// @brief Watches a run: per-job CSV lines, and the statistics of the summary (response and
/// wait times, bounded slowdown, gross and net utilization, throughput, queue lengths,
/// saturation), with the warm-up left out.

#include "common/csv.hpp"
#include "simulator/engine.hpp"
#include "simulator/metrics.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mcb::sim {

/// @brief Columns of the per-job CSV (jobs.csv), in order.
extern const std::vector<std::string> kJobsCsvColumns;

/// @brief Writes a double as the shortest text that reads back the same (csv::exact).
std::string format_number(double v);

/// @brief What the recorder needs to know.
struct RecorderConfig {
  double bsld_threshold = 10;  //!< seconds, bounded slowdown's floor on the service time
  int batches = 20;            //!< batch means: number of batches
  /// Saturated if the waiting jobs grow over the measurement window by more than
  /// max(saturation_floor, saturation_backlog x measured jobs).
  double saturation_backlog = 0.01;
  std::uint64_t saturation_floor = 50;
  std::vector<std::string> app_names;
  std::vector<std::string> queue_names;
  int capacity = 1;  //!< processors in the system
  int replication = 0;
  /// Jobs the run may measure, when known (a trace's): the quantiles' room is taken once for
  /// them instead of growing by doubling, which touched twice the fresh memory.
  std::uint64_t expected_jobs = 0;
};

/// @brief The statistics of one run.
struct RunSummary {
  std::uint64_t arrived = 0, measured = 0, completed = 0, measured_completed = 0, warmup = 0;
  std::uint64_t max_in_system = 0;  //!< most jobs in the system at once
  Time window_start = 0, window_end = 0;
  Moments response, wait, bsld;
  double response_median = 0, response_p95 = 0, wait_median = 0, wait_p95 = 0;
  double bsld_median = 0, bsld_p95 = 0;
  bool quantiles_exact = true;
  Interval response_ci, wait_ci;  //!< batch means
  double gross_utilization = 0, net_utilization = 0;
  double throughput = 0;  //!< departures per second in the window
  /// The whole run, from the first arrival to the last event (a trace's makespan), and the
  /// utilization over it (a trace's own load, drain included).
  Time first_arrival = 0, makespan = 0;
  double makespan_gross_utilization = 0, makespan_net_utilization = 0;
  std::vector<std::uint64_t> max_queue;
  std::uint64_t max_waiting = 0;
  std::uint64_t waiting_at_start = 0;  //!< waiting when the window opened
  std::uint64_t waiting_at_end = 0;    //!< waiting at the last arrival
  bool saturated = false, stopped_early = false;

  nlohmann::json to_json(const std::vector<std::string>& queue_names, double bsld_threshold) const;
};

/// @brief The observer that makes a RunSummary and, if given a stream, the per-job CSV.
class Recorder final : public Observer {
 public:
  /// @param jobs_csv receives the header and one line per departed job, or null
  Recorder(RecorderConfig config, std::ostream* jobs_csv);

  void on_arrival(const Job& job, const Sim& sim) override;
  void on_start(const Job& job, const Sim& sim) override;
  void on_departure(const Job& job, const Sim& sim) override;
  void on_arrivals_end(const Sim& sim) override;

  /// The statistics, once the run has ended.
  RunSummary finish(const RunEnd& end);

 private:
  void integrate(Time now);
  void write_line(const Job& job, const Sim& sim);

  RecorderConfig config_;
  std::optional<csv::StreamWriter> csv_;
  std::vector<csv::Quoted> app_fields_, queue_fields_;  //!< the names as jobs.csv writes them
  RunSummary s_;
  bool open_ = false, closed_ = false;
  Time last_ = 0;
  long long busy_ = 0;                    //!< processors busy
  double net_loss_ = 0;                   //!< processors x (1 - net/gross service) of spread jobs
  double gross_area_ = 0, net_area_ = 0;  //!< over the window
  double run_gross_area_ = 0, run_net_area_ = 0;  //!< from the first arrival on
  bool started_ = false;
  std::uint64_t departures_in_window_ = 0;
  std::vector<std::uint64_t> queue_len_;
  std::uint64_t waiting_ = 0;
  Quantiles response_q_, wait_q_, bsld_q_;
  BatchMeans response_b_, wait_b_;
};

}  // namespace mcb::sim
