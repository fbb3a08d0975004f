#pragma once
/// @file
/// @brief The run sequence every MPI measurement program of the suite follows, written once:
/// parse and agree on the options, the cluster map and the wide area, the record's header,
/// config and env, the measurement (an exception on any rank becomes a failed record), the
/// per-rank blocks, counters, the verdict, the record, the summary and the verdict line.
/// A program supplies only a Measurement: its options, its run and its verdict.

#include "common/check.hpp"
#include "harness/cluster_map.hpp"
#include "harness/counters.hpp"
#include "harness/run_options.hpp"
#include "harness/wide_area.hpp"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mcb::harness {

/// @brief What the driver has set up for one run, shared with the program's Measurement.
struct Run {
  MPI_Comm world = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  std::optional<ClusterMap> map;   //!< set before Measurement::config is called
  std::shared_ptr<WideArea> wide;  //!< emulated links and/or relay; nullptr when not asked for
  std::string run_id;
  nlohmann::json env;  //!< the record's env block (mpi_environment)
  bool root() const { return rank == 0; }
  const ClusterMap& clusters() const { return *map; }
};

/// @brief Rank 0's judgement of a measured run.
struct Judgement {
  bool valid = false;
  std::string reason;       //!< why the run is INVALID ("" when valid)
  nlohmann::json verdict;   //!< the record's verdict block; the driver adds valid, figure_of_merit
  nlohmann::json result;    //!< the record's result block
  double figure = 0;        //!< figure of merit, in unit
  std::string unit;         //!< unit of figure, as recorded ("LUP/s")
  std::string figure_text;  //!< figure as printed on the verdict line ("1.2e+06 LUP/s")
  std::string meaning;      //!< what the figure measures, printed after it
};

/// @brief One program's part of a run. The driver calls, on every rank in this order: parse,
/// run_options, default_cluster_map (without --cluster-map), config, measure, and when measure
/// succeeded everywhere: conclude, then on rank 0 judge and print_summary.
class Measurement {
 public:
  virtual ~Measurement() = default;
  /// @brief Parses and checks argv for @p ranks ranks; false when nothing is to run (--help).
  /// @throws mcb::UsageError naming the option and the value.
  virtual bool parse(int argc, char** argv, int ranks, bool is_root) = 0;
  /// @brief The shared options, once parsed.
  virtual const RunOptions& run_options() const = 0;
  /// @brief The rank-to-cluster map when --cluster-map is not given.
  virtual ClusterMap default_cluster_map(int ranks, int clusters) const = 0;
  /// @brief The record's config block.
  virtual nlohmann::json config(const Run& run) const = 0;
  /// @brief The measurement itself. Collective; any exception makes the run a failed record.
  virtual void measure(Run& run, Counters& counters) = 0;
  /// @brief After measure succeeded everywhere. Collective: this rank's fields for the record's
  /// `ranks` (the driver adds rank, host and cluster) and the reductions judge needs.
  virtual nlohmann::json conclude(const Run& run) = 0;
  /// @brief On rank 0 after conclude: the verdict and the result.
  virtual Judgement judge(const Run& run) = 0;
  /// @brief On rank 0 unless --quiet: the human summary (the driver prints the record line).
  virtual void print_summary(const Run& run, const nlohmann::json& record) const = 0;
  /// @brief Why this program counts no hardware events; "" when it counts --counters.
  virtual std::string counters_reason() const { return {}; }
};

/// @brief The run sequence on @p world, MPI already initialised (run_measurement's body): the
/// exit code, 0 VALID, 1 INVALID or failed. Bad input throws mcb::UsageError on every rank.
int drive(MPI_Comm world, const std::string& program, const std::string& app, int argc, char** argv,
          Measurement& measurement);

/// @brief Makes a program's Measurement.
using MeasurementFactory = std::function<std::unique_ptr<Measurement>()>;

/// @brief The whole program (mpi_main included): the exit code, 0 VALID, 1 INVALID or failed,
/// 2 bad input. @p app names the program in records ("poisson"). The measurement is made after
/// MPI_Init and destroyed before MPI_Finalize, so the communicators it holds are freed in time.
/// When the environment asks for a join (MCB_JOIN..., harness/join.hpp), the components join
/// first and the run goes on the joined communicator with the components' cluster map; the
/// record's env gains `join`. A join whose peers do not come ends in a failed record.
int run_measurement(const std::string& program, const std::string& app, int argc, char** argv,
                    const cli::CheckFunction& check, const MeasurementFactory& make);

}  // namespace mcb::harness
