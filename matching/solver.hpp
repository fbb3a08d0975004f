#pragma once
/// @file
/// @brief A small interface to a mixed-integer programming solver, so that the matchers do not
/// depend on one solver. GLPK (Debian's libglpk-dev) is the one implemented (solver_glpk.cpp).

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcb::matching {

/// @brief min c'x subject to row_lo <= A x <= row_hi, col_lo <= x <= col_hi, some x integer.
struct MipProblem {
  struct Column {
    double lo = 0.0;
    double hi = 1.0;
    double cost = 0.0;
    bool integer = true;
  };
  struct Row {
    std::vector<std::pair<int, double>> terms;  //!< (column, coefficient)
    double lo = 0.0;
    double hi = 0.0;
  };
  std::vector<Column> columns;
  std::vector<Row> rows;

  int add_column(Column c);
  void add_row(Row r) { rows.push_back(std::move(r)); }
};

/// @brief What a solve ended with.
enum class MipStatus {
  kOptimal,     //!< proven optimal
  kFeasible,    //!< a solution, not proven optimal (stopped at the first one, or at the limit)
  kInfeasible,  //!< proven to have no solution
  kTimeLimit,   //!< the time limit came before any solution
};

std::string_view to_string(MipStatus status);

struct MipOptions {
  double time_limit = 60.0;    //!< seconds
  bool stop_at_first = false;  //!< return the first integer solution found
};

struct MipSolution {
  MipStatus status = MipStatus::kInfeasible;
  bool hit_time_limit = false;
  std::vector<double> values;  //!< one per column when there is a solution
  double objective = 0.0;
  double seconds = 0.0;      //!< wall time inside the solver
  double cpu_seconds = 0.0;  //!< CPU time of the solving thread (the wall time's share of a
                             //!< shared machine aside)
};

class MipSolver {
 public:
  virtual ~MipSolver() = default;
  virtual std::string_view name() const = 0;
  /// @throws std::runtime_error when the solver fails for a reason other than the above.
  virtual MipSolution solve(const MipProblem& problem, const MipOptions& options) const = 0;
};

/// @brief The solver named @p name ("glpk"). @throws std::invalid_argument otherwise.
std::unique_ptr<MipSolver> make_solver(std::string_view name);

}  // namespace mcb::matching
