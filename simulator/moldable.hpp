#pragma once
/// @file
/// @brief Moldable requests (001 section V): a job states the processors it asks for and the
/// fewest it accepts; given fewer, its execution time grows by a speedup model. Linear speedup
/// by default; Downey's model (A. B. Downey, "A model for speedup of parallel programs", UC
/// Berkeley CSD-97-933, 1997) as an option, with the average parallelism A taken as the
/// requested size and the variance of parallelism sigma an option (the seed paper gives no
/// value for either).

#include "simulator/types.hpp"

#include <string>
#include <vector>

namespace mcb::sim {

/// @brief How a job's execution time scales with its processors.
struct SpeedupModel {
  enum class Kind : std::uint8_t { kLinear, kDowney };
  Kind kind = Kind::kLinear;
  double sigma = 1.0;  //!< Downey: variance of parallelism (>= 0; 0 is linear up to A)

  /// Speedup on @p n processors of a job whose average parallelism is @p a (Downey's S(n)).
  double speedup(double n, double a) const;
  /// Factor on the execution time of a job asking for @p requested processors when it runs
  /// on @p procs: S(requested) / S(procs) (1 when procs == requested).
  double stretch(int requested, int procs) const;
};

/// @brief The moldable settings of a run: the speedup model and the rule for the smallest size
/// a job accepts when its workload does not state it.
struct MoldableModel {
  SpeedupModel speedup;
  double min_share = 0.5;  //!< smallest size = ceil(min_share x requested)
};

/// @brief "linear" or "downey". @throws UsageError naming --speedup.
SpeedupModel::Kind parse_speedup(const std::string& text);
/// @brief Checks the moldable options. @throws UsageError naming the option.
void check_moldable(const MoldableModel& model);

/// @brief ceil(@p share x @p requested), at least 1.
int min_size_by_rule(int requested, double share);

/// @brief Makes @p req a moldable request of @p total processors whose smallest size is
/// @p min_size (0: by the rule of @p share).
void make_moldable(Request& req, int total, int min_size, double share);

/// @brief The fewest processors a job can run on in one cluster: a moldable request's
/// smallest size, else its total.
int smallest_size(const Request& req);

/// @brief Required computing power of a moldable job (001 V): its requested processors times
/// the speed of its home cluster (speed 1 without a home).
double required_power(const Request& req, int home, const std::vector<double>& speeds);

}  // namespace mcb::sim
