#!/usr/bin/env bash
# Builds the suite with AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize) and runs
# the unit and end-to-end tests there; any sanitizer report fails its test.
#   scripts/sanitize.sh [CTEST ARGS...]
# By default it leaves out what does not concern memory or integer safety of the suite's own
# code and costs most of the time: the real-Slurm tests and the Python analysis tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
jobs="$(nproc 2>/dev/null || echo 2)"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMCB_SANITIZE=ON \
  -DMCB_BUILD_BENCHMARKS=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$jobs"

source "$root/scripts/mpi-env.sh"
# Open MPI's own allocations are not freed at exit; leaks in it are not the suite's.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cd "$build"
if [ $# -eq 0 ]; then
  set -- -E "${MCB_SANITIZE_EXCLUDE:-slurm|^analysis|_np_4}"
fi
ctest --output-on-failure -j "$jobs" "$@"
