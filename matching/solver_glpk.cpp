/// @file
/// @brief The GLPK back end of MipSolver: branch and cut (glp_intopt) with its LP presolver;
/// the first-solution stop terminates the search from the callback at the first incumbent.
/// GLPK is loaded (dlopen) when the first solver is made, not linked: a program that links the
/// matchers but does not match loads none of GLPK and its libraries (their loading was a large
/// part of a small simulation's CPU time). mcb-sim, linked statically (a static program cannot
/// load a shared library safely), has GLPK linked in instead: glpk_linked.cpp.
#include "matching/glpk_api.hpp"
#include "matching/solver.hpp"

#include <dlfcn.h>
#include <glpk.h>
#include <time.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mcb::matching {

// Programs that link GLPK in define their own (glpk_linked.cpp); the others load it.
__attribute__((weak)) const GlpkApi* linked_glpk() { return nullptr; }

namespace {

template <typename F>
void bind(void* lib, F& f, const char* symbol) {
  f = reinterpret_cast<F>(dlsym(lib, symbol));
  if (!f) throw std::runtime_error(std::string("glpk: ") + MCB_GLPK_SONAME + " has no " + symbol);
}

const GlpkApi& api() {
  static const GlpkApi loaded = [] {
    if (const GlpkApi* linked = linked_glpk()) return *linked;
    // Never closed: the functions stay in use until the process ends.
    void* lib = dlopen(MCB_GLPK_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      throw std::runtime_error(std::string("glpk: cannot load ") + MCB_GLPK_SONAME + ": " +
                               (why ? why : "unknown error"));
    }
    GlpkApi a;
    bind(lib, a.add_cols, "glp_add_cols");
    bind(lib, a.add_rows, "glp_add_rows");
    bind(lib, a.create_prob, "glp_create_prob");
    bind(lib, a.delete_prob, "glp_delete_prob");
    bind(lib, a.init_iocp, "glp_init_iocp");
    bind(lib, a.intopt, "glp_intopt");
    bind(lib, a.ios_reason, "glp_ios_reason");
    bind(lib, a.ios_terminate, "glp_ios_terminate");
    bind(lib, a.mip_col_val, "glp_mip_col_val");
    bind(lib, a.mip_obj_val, "glp_mip_obj_val");
    bind(lib, a.mip_status, "glp_mip_status");
    bind(lib, a.set_col_bnds, "glp_set_col_bnds");
    bind(lib, a.set_col_kind, "glp_set_col_kind");
    bind(lib, a.set_mat_row, "glp_set_mat_row");
    bind(lib, a.set_obj_coef, "glp_set_obj_coef");
    bind(lib, a.set_obj_dir, "glp_set_obj_dir");
    bind(lib, a.set_row_bnds, "glp_set_row_bnds");
    bind(lib, a.term_out, "glp_term_out");
    return a;
  }();
  return loaded;
}

int bound_type(double lo, double hi) {
  const bool has_lo = std::isfinite(lo);
  const bool has_hi = std::isfinite(hi);
  if (has_lo && has_hi) return lo == hi ? GLP_FX : GLP_DB;
  if (has_lo) return GLP_LO;
  if (has_hi) return GLP_UP;
  return GLP_FR;
}

void stop_at_first(glp_tree* tree, void*) {
  if (api().ios_reason(tree) == GLP_IBINGO) api().ios_terminate(tree);
}

// Owns one glp_prob.
struct Problem {
  glp_prob* p = api().create_prob();
  ~Problem() { api().delete_prob(p); }
};

void load(glp_prob* lp, const MipProblem& problem) {
  api().set_obj_dir(lp, GLP_MIN);
  const int cols = static_cast<int>(problem.columns.size());
  if (cols > 0) api().add_cols(lp, cols);
  for (int j = 0; j < cols; ++j) {
    const auto& c = problem.columns[static_cast<std::size_t>(j)];
    api().set_col_bnds(lp, j + 1, bound_type(c.lo, c.hi), c.lo, c.hi);
    api().set_obj_coef(lp, j + 1, c.cost);
    if (c.integer) api().set_col_kind(lp, j + 1, GLP_IV);
  }
  if (!problem.rows.empty()) api().add_rows(lp, static_cast<int>(problem.rows.size()));
  std::vector<int> index;
  std::vector<double> value;
  for (std::size_t i = 0; i < problem.rows.size(); ++i) {
    const auto& r = problem.rows[i];
    const int row = static_cast<int>(i) + 1;
    api().set_row_bnds(lp, row, bound_type(r.lo, r.hi), r.lo, r.hi);
    index.assign(1, 0);  // GLPK's arrays start at 1
    value.assign(1, 0.0);
    for (const auto& [col, coef] : r.terms) {
      index.push_back(col + 1);
      value.push_back(coef);
    }
    api().set_mat_row(lp, row, static_cast<int>(r.terms.size()), index.data(), value.data());
  }
}

// GLPK solves in the calling thread: its CPU time is the solver's.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

class Glpk final : public MipSolver {
 public:
  std::string_view name() const override { return "glpk"; }

  MipSolution solve(const MipProblem& problem, const MipOptions& options) const override {
    api().term_out(GLP_OFF);
    Problem lp;
    load(lp.p, problem);
    glp_iocp parm;
    api().init_iocp(&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = GLP_MSG_OFF;
    parm.tm_lim = static_cast<int>(std::min(options.time_limit * 1000.0, 2.0e9));
    if (options.stop_at_first) parm.cb_func = stop_at_first;
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = thread_cpu_seconds();
    const int rc = api().intopt(lp.p, &parm);
    MipSolution s;
    s.cpu_seconds = thread_cpu_seconds() - cpu_start;
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rc != 0 && rc != GLP_ENOPFS && rc != GLP_ENODFS && rc != GLP_ETMLIM && rc != GLP_ESTOP &&
        rc != GLP_EMIPGAP) {
      throw std::runtime_error("glpk: glp_intopt failed with code " + std::to_string(rc));
    }
    s.hit_time_limit = rc == GLP_ETMLIM;
    const int status = api().mip_status(lp.p);
    if (rc == GLP_ENOPFS || status == GLP_NOFEAS) {
      s.status = MipStatus::kInfeasible;
      return s;
    }
    if (status != GLP_OPT && status != GLP_FEAS) {
      if (rc == GLP_ENODFS) throw std::runtime_error("glpk: the relaxation is unbounded");
      s.status = s.hit_time_limit ? MipStatus::kTimeLimit : MipStatus::kInfeasible;
      return s;
    }
    s.status = status == GLP_OPT && rc == 0 ? MipStatus::kOptimal : MipStatus::kFeasible;
    s.objective = api().mip_obj_val(lp.p);
    s.values.resize(problem.columns.size());
    for (std::size_t j = 0; j < s.values.size(); ++j) {
      s.values[j] = api().mip_col_val(lp.p, static_cast<int>(j) + 1);
    }
    return s;
  }
};

}  // namespace

std::unique_ptr<MipSolver> make_glpk_solver() {
  api();  // a missing GLPK is reported when the solver is made, before any work
  return std::make_unique<Glpk>();
}

}  // namespace mcb::matching
