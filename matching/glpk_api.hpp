#pragma once
/// @file
/// @brief The GLPK functions the solver's back end calls (solver_glpk.cpp): looked up in the
/// library it loads, or given by a program that links GLPK in (glpk_linked.cpp).

#include <glpk.h>

namespace mcb::matching {

/// @brief GLPK's functions as the back end calls them.
struct GlpkApi {
  decltype(&::glp_add_cols) add_cols = nullptr;
  decltype(&::glp_add_rows) add_rows = nullptr;
  decltype(&::glp_create_prob) create_prob = nullptr;
  decltype(&::glp_delete_prob) delete_prob = nullptr;
  decltype(&::glp_init_iocp) init_iocp = nullptr;
  decltype(&::glp_intopt) intopt = nullptr;
  decltype(&::glp_ios_reason) ios_reason = nullptr;
  decltype(&::glp_ios_terminate) ios_terminate = nullptr;
  decltype(&::glp_mip_col_val) mip_col_val = nullptr;
  decltype(&::glp_mip_obj_val) mip_obj_val = nullptr;
  decltype(&::glp_mip_status) mip_status = nullptr;
  decltype(&::glp_set_col_bnds) set_col_bnds = nullptr;
  decltype(&::glp_set_col_kind) set_col_kind = nullptr;
  decltype(&::glp_set_mat_row) set_mat_row = nullptr;
  decltype(&::glp_set_obj_coef) set_obj_coef = nullptr;
  decltype(&::glp_set_obj_dir) set_obj_dir = nullptr;
  decltype(&::glp_set_row_bnds) set_row_bnds = nullptr;
  decltype(&::glp_term_out) term_out = nullptr;
};

/// @brief GLPK's functions linked into the program, or null where the program loads the library
/// when the first solver is made. solver_glpk.cpp defines it weakly (null); a program that links
/// GLPK in adds glpk_linked.cpp, whose definition wins.
const GlpkApi* linked_glpk();

}  // namespace mcb::matching
