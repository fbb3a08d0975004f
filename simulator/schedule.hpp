#pragma once
/// @file
/// @brief The schedule of one run in the conventions other tools read: Batsim's jobs file
/// (evalys, pandas) and the Standard Workload Format (Parallel Workloads Archive). Watches the
/// run beside another observer (the recorder), names each job's processors through
/// ProcessorIds, and writes one row per departed job.

#include "common/csv.hpp"
#include "simulator/engine.hpp"
#include "simulator/processor_ids.hpp"
#include "simulator/swf.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcb::sim {

/// @brief Columns of the Batsim jobs file, in Batsim's order.
extern const std::vector<std::string> kBatsimColumns;

/// @brief What the schedule files say about the run.
struct ScheduleConfig {
  std::vector<int> cluster_sizes;
  std::vector<std::string> app_names;
  std::vector<std::string> queue_names;
  std::string workload_name = "mcb";  //!< Batsim's workload_name column
  std::vector<std::string> notes;     //!< SWF header "; Note:" lines (the run's configuration)
  const SwfHeader* source = nullptr;  //!< the SWF trace replayed (its header), or null
  double origin = 0;                  //!< the trace's submit time that became time 0
  double scale = 1;                   //!< the trace's submit offsets were divided by it
};

/// @brief An observer that writes the schedule, and passes every event on to @p next.
class ScheduleWriter final : public Observer {
 public:
  /// @param batsim receives Batsim's jobs file (header, then a row per departure), or null
  /// @param swf receives the SWF schedule at finish() (jobs in arrival order), or null
  ScheduleWriter(ScheduleConfig config, Observer& next, std::ostream* batsim, std::ostream* swf);

  void on_arrival(const Job& job, const Sim& sim) override;
  void on_start(const Job& job, const Sim& sim) override;
  void on_departure(const Job& job, const Sim& sim) override;
  void on_arrivals_end(const Sim& sim) override;

  /// Writes the SWF file (header and the departed jobs sorted by arrival).
  void finish();

 private:
  void write_batsim(const Job& job, const IntervalSet& procs);
  std::string swf_line(const Job& job);

  ScheduleConfig config_;
  Observer& next_;
  ProcessorIds ids_;
  std::unordered_map<std::uint64_t, IntervalSet> held_;  //!< by arrival number
  std::optional<csv::StreamWriter> batsim_;
  std::vector<std::string> fields_;
  std::ostream* swf_;
  std::vector<std::pair<std::uint64_t, std::string>> swf_lines_;  //!< (arrival number, line)
  bool rounded_ = false;  //!< some SWF time was rounded to a whole second
};

}  // namespace mcb::sim
