#include "matching/solver.hpp"

#include <stdexcept>
#include <string>

namespace mcb::matching {

std::unique_ptr<MipSolver> make_glpk_solver();

int MipProblem::add_column(Column c) {
  columns.push_back(c);
  return static_cast<int>(columns.size()) - 1;
}

std::string_view to_string(MipStatus status) {
  switch (status) {
    case MipStatus::kOptimal:
      return "optimal";
    case MipStatus::kFeasible:
      return "feasible";
    case MipStatus::kInfeasible:
      return "infeasible";
    case MipStatus::kTimeLimit:
      return "time-limit";
  }
  return "?";
}

std::unique_ptr<MipSolver> make_solver(std::string_view name) {
  if (name == "glpk") return make_glpk_solver();
  throw std::invalid_argument("'" + std::string(name) + "' is not a solver (glpk)");
}

}  // namespace mcb::matching
