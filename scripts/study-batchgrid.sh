#!/usr/bin/env bash
# Seed 003's study (section 4): random batch grids of four queues (sizes from {32, ..., 512},
# FCFS, CONS or EASY, Lublin-Feitelson workloads with random numbers of short, long, narrow and
# wide jobs), the long-running multi-component application on all four queues against the
# largest queue alone, at 10, 100 and 1000 Mbit/s. Then analysis/batchgrid_figures.py draws
# Figures 4-7 and writes batchgrid.md, the paper's averages beside this study's.
#
#   scripts/study-batchgrid.sh [OUT_DIR] [-- extra mcb-batchgrid study options, e.g. --seed 2]
#
# OUT_DIR defaults to results/study-batchgrid (MCB_RESULTS_DIR). MCB_BATCHGRID_EXPERIMENTS
# random grids (1000, as the paper ran per bandwidth; 100 for a quick look),
# MCB_BATCHGRID_DAYS wall-clock days evaluated per experiment (60).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_BUILD_DIR:-$root/build}"
out="${MCB_RESULTS_DIR:-$root/results/study-batchgrid}"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
bin="$build/bin/mcb-batchgrid"
[ -x "$bin" ] || {
  echo "study-batchgrid: $bin is not built" >&2
  exit 1
}
"$bin" study --experiments "${MCB_BATCHGRID_EXPERIMENTS:-1000}" \
  --horizon-days "${MCB_BATCHGRID_DAYS:-60}" --output "$out" "$@"
/usr/bin/python3 "$root/analysis/batchgrid_figures.py" "$out"
