/// @file
/// @brief GLPK linked into the program (mcb-sim, linked statically): the solver calls its
/// functions directly instead of loading the shared library (glpk_api.hpp).
#include "matching/glpk_api.hpp"

namespace mcb::matching {

const GlpkApi* linked_glpk() {
  static const GlpkApi linked = {&::glp_add_cols,     &::glp_add_rows,      &::glp_create_prob,
                                 &::glp_delete_prob,  &::glp_init_iocp,     &::glp_intopt,
                                 &::glp_ios_reason,   &::glp_ios_terminate, &::glp_mip_col_val,
                                 &::glp_mip_obj_val,  &::glp_mip_status,    &::glp_set_col_bnds,
                                 &::glp_set_col_kind, &::glp_set_mat_row,   &::glp_set_obj_coef,
                                 &::glp_set_obj_dir,  &::glp_set_row_bnds,  &::glp_term_out};
  return &linked;
}

}  // namespace mcb::matching
