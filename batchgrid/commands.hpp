#pragma once
/// @file
/// @brief The three commands of mcb-batchgrid: generate (a Lublin-Feitelson SWF workload), run
/// (one batch grid, single against multiple batch execution, with event files) and study (many
/// random grids, seed 003's Figures 4-7 as a table). Each returns the exit code.

namespace mcb::batchgrid {

int generate_command(int argc, const char* const* argv);
int run_command(int argc, const char* const* argv);
int study_command(int argc, const char* const* argv);

}  // namespace mcb::batchgrid
