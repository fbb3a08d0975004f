#!/usr/bin/env bash
# Simulates the DAS-2 study's three job mixes (Poisson, Ensflow, an even mix) on the paper's
# system (4 clusters of 32 processors, Worst Fit, FCFS) under GS, LS and LP and the four
# co-allocation rules, sweeping the offered net utilization: one mcb-sim sweep per mix.
#
#   scripts/das2-sweeps.sh OUT_DIR [TABLES] [MIX_DIR] [CLUSTERS] [-- extra mcb-sim options]
#
# TABLES defaults to calibration/das2 (the paper's Tables 4 and 5); MIX_DIR, when given, holds
# poisson.ini, ensflow.ini and mixed.ini (job mixes for other tables; default: the paper's
# built-in mixes); CLUSTERS defaults to 4x32. Jobs per point, the utilization range and the seed
# come from MCB_SIM_JOBS (default 20000), MCB_SIM_UTILIZATION (0.2:0.96:0.02), MCB_SIM_SEED (1);
# MCB_SIM_PROBLEMS ("poisson=32x32 ensflow=m24-d4-g31") picks each application's problem when the
# tables hold several (given to the mixes that use the application).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${MCB_BUILD_DIR:-$root/build}" 2>/dev/null && pwd || echo "${MCB_BUILD_DIR:-$root/build}")"
out="${1:?usage: das2-sweeps.sh OUT_DIR [TABLES] [MIX_DIR] [CLUSTERS] [-- mcb-sim options]}"
shift
tables="$root/calibration/das2"
mixes=""
clusters="4x32"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then tables="$1"; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then mixes="$1"; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then clusters="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
jobs="${MCB_SIM_JOBS:-20000}"
utilization="${MCB_SIM_UTILIZATION:-0.2:0.96:0.02}"
seed="${MCB_SIM_SEED:-1}"

# The three mixes run side by side (each sweep is one process); each prints a line when done.
pids=()
for mix in poisson ensflow mixed; do
  workload="$mix"
  [ -n "$mixes" ] && workload="$mixes/$mix.ini"
  problems=()
  for p in ${MCB_SIM_PROBLEMS:-}; do
    case "$mix:${p%%=*}" in mixed:*|poisson:poisson|ensflow:ensflow) problems+=(--problem "$p") ;; esac
  done
  (
    start=$SECONDS
    "$build/bin/mcb-sim" --workload "$workload" --tables "$tables" --clusters "$clusters" \
      --policy gs,ls,lp --rule no,co,rco,fco --utilization "$utilization" --jobs "$jobs" \
      --seed "$seed" --no-jobs-csv --output "$out/$mix" ${problems[@]+"${problems[@]}"} "$@" \
      >/dev/null
    printf '    %-8s %4d points, %6d jobs each, %3ds -> %s\n' "$mix" \
      "$(($(wc -l <"$out/$mix/sweep.csv") - 1))" "$jobs" "$((SECONDS - start))" \
      "$out/$mix/sweep.csv"
  ) &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit "$failed"
