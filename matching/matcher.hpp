#pragma once
/// @file
/// @brief The three matchers of seed 002 (section 4), each an integer program (Fig. 4) handed to
/// a MipSolver:
///  - optimal: min T^e (eq. 10) subject to gang matching (eq. 8);
///  - non-saturated: the same, subject also to no saturated inter-cluster link (eq. 9);
///  - first-feasible: the first solution the solver finds of the non-saturated program.

#include "matching/model.hpp"
#include "matching/solver.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace mcb::matching {

enum class Matcher { kOptimal, kNonSaturated, kFirstFeasible };

std::string_view to_string(Matcher matcher);
/// @throws std::invalid_argument for a name other than optimal, non-saturated, first-feasible.
Matcher parse_matcher(std::string_view name);

/// @brief The outcome of one match, checked against the model.
struct MatchResult {
  Matcher matcher = Matcher::kOptimal;
  MipStatus status = MipStatus::kInfeasible;
  bool hit_time_limit = false;
  Assignment assignment;     //!< empty unless found()
  Prediction prediction;     //!< eqs. 1-7 evaluated on the assignment
  double objective = 0.0;    //!< the solver's objective value
  double seconds = 0.0;      //!< wall time in the solver
  double cpu_seconds = 0.0;  //!< CPU time in the solver
  int variables = 0;
  int constraints = 0;
  bool valid = false;  //!< the assignment meets the program's constraints and T^e agrees
  std::string check;   //!< why not valid ("" when valid or when nothing was found)

  bool found() const { return status == MipStatus::kOptimal || status == MipStatus::kFeasible; }
};

/// @brief Limits on how a job may be split over clusters, beyond the paper's model (a
/// scheduler's flexible requests, simulator/placement.hpp): each cluster used holds between
/// min_component and max_component tasks, and the number of clusters used is one of
/// allowed_counts (bit k).
struct SplitLimits {
  int min_component = 1;
  int max_component = 0;  //!< 0: no limit
  std::uint64_t allowed_counts = ~std::uint64_t{0};
};

/// @brief Matches @p job to @p platform with @p matcher. Nodes that are not eligible
/// (node_eligible) get no variable.
MatchResult match(const Platform& platform, const Job& job, Matcher matcher,
                  const MipSolver& solver, const MipOptions& options,
                  const SplitLimits& limits = {});

}  // namespace mcb::matching
