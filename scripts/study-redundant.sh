#!/usr/bin/env bash
# Seed 004 section 3 as one study: global jobs ranked by Random, Qlen, Workload, Est. QT and
# Ideal Min and duplicated 0-7 times on an 8-site grid of 64 processors, with FCFS (local load
# 0.6) and conservative backfilling (local load 0.7), global load 0.4 (Figures 1 and 2); and the
# heterogeneous grid of four 64- and four 32-processor sites with Qlen and Workload at 0 and 1
# duplicate (Figure 5); and global jobs co-allocated over two sites under conservative
# backfilling, local load 0.6: stop-and-wait with Random, Qlen, Est. QT and Ideal Min at
# several duplication factors (Figure 3), hibernation and resubmission without duplicates
# (Figure 4). Then analysis/redundant_figures.py draws the figures and writes
# redundant.md (which of the paper's observations hold, with intervals over the seeds).
#
#   scripts/study-redundant.sh [OUT_DIR] [-- extra mcb-redundant options, e.g. --seed 11]
#
# OUT_DIR defaults to results/study-redundant (MCB_RESULTS_DIR). MCB_REDUNDANT_JOBS global jobs
# per run (1500), MCB_REDUNDANT_REPLICATIONS seeds per point (3), MCB_REDUNDANT_DUPLICATES the
# duplication factors (0:7), MCB_REDUNDANT_COALLOC_DUPLICATES those of Figure 3 (0:3; 0 and 2
# are needed). Every ranker and duplication
# factor runs the same arrivals (the same seeds).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${MCB_BUILD_DIR:-$root/build}" 2>/dev/null && pwd || echo "${MCB_BUILD_DIR:-$root/build}")"
out="${MCB_RESULTS_DIR:-$root/results/study-redundant}"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
prog="$build/bin/mcb-redundant"
[ -x "$prog" ] || {
  echo "study-redundant: $prog is not built" >&2
  exit 1
}
jobs="${MCB_REDUNDANT_JOBS:-1500}"
reps="${MCB_REDUNDANT_REPLICATIONS:-3}"
dups="${MCB_REDUNDANT_DUPLICATES:-0:7}"
co_dups="${MCB_REDUNDANT_COALLOC_DUPLICATES:-0:3}"
common=(--jobs "$jobs" --warmup "$((jobs / 10))" --replications "$reps" --global-load 0.4)

run() {
  local name="$1"
  shift
  echo "study-redundant: $name"
  "$prog" "${common[@]}" "$@" --output "$out/$name" > "$out/$name.log" || {
    echo "study-redundant: $name failed (see $out/$name.log)" >&2
    exit 1
  }
  tail -n 1 "$out/$name.log"
}

mkdir -p "$out"
start=$(date +%s.%N)
run fcfs --queue fcfs --local-load 0.6 --duplicates "$dups" "$@"
run cons --queue cons --local-load 0.7 --duplicates "$dups" "$@"
run hetero --queue cons --local-load 0.7 --clusters 64,64,64,64,32,32,32,32 \
  --rankers qlen,workload --duplicates 0,1 "$@"
run coalloc-saw --queue cons --local-load 0.6 --sync stop-and-wait \
  --rankers random,qlen,est-qt,ideal-min --duplicates "$co_dups" "$@"
run coalloc-hib --queue cons --local-load 0.6 --sync hibernation,resubmission \
  --rankers random,qlen,est-qt --duplicates 0 "$@"
end=$(date +%s.%N)
echo "study-redundant: simulations took $(awk "BEGIN { print $end - $start }") s"
/usr/bin/python3 "$root/analysis/redundant_figures.py" "$out"
