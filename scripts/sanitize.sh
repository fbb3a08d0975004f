#!/usr/bin/env bash
# Builds the suite with AddressSanitizer and UndefinedBehaviorSanitizer and runs the unit and
# end-to-end tests there; any sanitizer report fails its test. The build is clang-14's in
# build-fuzz, shared with ./mcb fuzz (scripts/sanitizer-build.sh): the libraries are compiled once
# for both.
#   scripts/sanitize.sh [--inputs] [CTEST ARGS...]
# By default it builds everything but the benchmarks and leaves out of the run what does not
# concern memory or integer safety of the suite's own code and costs most of the time: the
# real-Slurm tests (and the batch-system rig's), the Python analysis tests and the 4-rank MPI tests.
# --inputs (what CI runs) builds only the tests of the input readers and what they need: common,
# the input dialect, the simulator, calibration, the campaign's expansion, the bad-input matrix of
# every program and the two end-to-end chains (campaign -> calibrate, campaign -> calibrate ->
# simulate), and runs the tests labelled `inputs` (the same set; CI leaves them out of its
# Release run). CTEST ARGS go to ctest after that selection; in the full build they replace the
# default one.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_SANITIZE_BUILD_DIR:-${MCB_FUZZ_BUILD_DIR:-$root/build-fuzz}}"
jobs="$(nproc 2>/dev/null || echo 2)"

targets=(all)
select=(-E "${MCB_SANITIZE_EXCLUDE:-slurm|_rig_test|^analysis|_np_4}")
if [ "${1:-}" = "--inputs" ]; then
  shift
  targets=(common_unit_test input_dialect_test campaign_unit_test sim_unit_tests sim_e2e_tests
           hostile_parsers_test bad_input_matrix_test hostile_campaign_test calibration_unit_test
           calibration_cli_test calibration_e2e_test chain_e2e_test load_unit_test
           ensemble_unit_test)
  select=(-L inputs)  # the tests labelled so (tests/CMakeLists.txt)
fi
[ $# -gt 0 ] && [ "${targets[0]}" = all ] && select=()

source "$root/scripts/sanitizer-build.sh"
configure_sanitizer_build "$root" "$build"
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

source "$root/scripts/mpi-env.sh"
# Open MPI's own allocations are not freed at exit; leaks in it are not the suite's.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cd "$build"
ctest --output-on-failure -j "$jobs" "${select[@]}" "$@"
