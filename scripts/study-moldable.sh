#!/usr/bin/env bash
# Seed 001 sections IV.B, V and VI as one study: independent clusters, the load-sharing grid
# (site by idle processors or by free computing power), co-allocation (flexible requests, [co],
# Worst Fit and Flexible Cluster Minimization) and adaptive allocation of moldable jobs, on a
# homogeneous system, on one with speeds 1,1,0.5,0.5, and (section VI's methods) on a homogeneous
# system whose sites have unequal local loads (arrival rates 4,2,1,1), for the DAS-2 paper's synthetic mixes
# (Poisson, Ensflow and their 50/50 mix on 4x32, priced by the DAS-2 runtime tables) and the
# DAS2-fs1 trace (4x64: four clusters of fs1's 64 processors). Then analysis/moldable_figures.py writes the comparison table and the
# figures (response time and utilization against the offered load).
#
#   scripts/study-moldable.sh [OUT_DIR] [-- extra mcb-sim options, e.g. --seed 2]
#
# OUT_DIR defaults to results/study-moldable (MCB_RESULTS_DIR). MCB_MOLDABLE_JOBS synthetic jobs
# per point (20000), MCB_MOLDABLE_LOADS the offered net loads (0.3:0.9:0.1), MCB_DAS2_TRACE the
# trace (../shared/traces/DAS2-fs1-2003-1.swf beside the repository; skipped with a message when
# absent). Every method runs the same arrivals (same seed) at each load.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${MCB_BUILD_DIR:-$root/build}" 2>/dev/null && pwd || echo "${MCB_BUILD_DIR:-$root/build}")"
out="${MCB_RESULTS_DIR:-$root/results/study-moldable}"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
sim="$build/bin/mcb-sim"
[ -x "$sim" ] || {
  echo "study-moldable: $sim is not built" >&2
  exit 1
}
jobs="${MCB_MOLDABLE_JOBS:-20000}"
loads="${MCB_MOLDABLE_LOADS:-0.3:0.9:0.1}"
trace="${MCB_DAS2_TRACE:-$root/../shared/traces/DAS2-fs1-2003-1.swf}"

# method name -> mcb-sim options; the grid arms are also "waiting for the full size".
methods=(
  "ic|--policy ic"
  "grid-idle|--policy grid --site-select idle"
  "grid-power|--policy grid --site-select power"
  "co-wf|--policy gs --request flexible --rule co --placement wf"
  "co-fcm|--policy gs --request flexible --rule co --placement fcm"
  "co-wf-bounded|--policy gs --request flexible --rule co --placement wf --flex-min-component 8 --flex-max-components 2"
  "adaptive-idle|--policy grid --request moldable --site-select idle"
  "adaptive-power|--policy grid --request moldable --site-select power"
)
# The trace is priced by its runtime, so a wide-area cost by number of clusters matters there
# only: the DAS-2 Poisson tables' mean k-cluster/1-cluster ratios (2: 1.15, 4: 1.21; 3
# interpolated), against the flat 1.25 of co-wf and co-fcm.
trace_methods=(
  "co-wf-bycount|--policy gs --request flexible --rule co --placement wf --coalloc-factor 2:1.15,3:1.18,4:1.21"
  "co-fcm-bycount|--policy gs --request flexible --rule co --placement fcm --coalloc-factor 2:1.15,3:1.18,4:1.21"
)
# system|speeds|extra options|methods (all: every method; else section VI's, where homes matter)
systems=("homogeneous|1||all" "heterogeneous|1,1,0.5,0.5||all"
  "unequal-load|1|--site-rates 4,2,1,1|ic grid-idle grid-power adaptive-idle adaptive-power")

workloads=()
for mix in poisson ensflow mixed; do
  workloads+=("$mix|--workload $mix --tables $root/calibration/das2 --clusters 4x32 --jobs $jobs")
done
if [ -f "$trace" ]; then
  workloads+=("das2-fs1|--trace $trace --clusters 4x64")
else
  echo "study-moldable: no DAS2-fs1 trace at $trace (set MCB_DAS2_TRACE); the trace is skipped"
fi

start=$(date +%s.%N)
for w in "${workloads[@]}"; do
  all=("${methods[@]}")
  [ "${w%%|*}" = das2-fs1 ] && all+=("${trace_methods[@]}")
  for s in "${systems[@]}"; do
    IFS='|' read -r system speeds extra chosen <<<"$s"
    for m in "${all[@]}"; do
      [ "$chosen" = all ] || [[ " $chosen " == *" ${m%%|*} "* ]] || continue
      dir="$out/${w%%|*}/$system/${m%%|*}"
      # shellcheck disable=SC2086  # the option strings are word lists
      "$sim" ${w#*|} --speeds "$speeds" $extra ${m#*|} --utilization "$loads" --no-jobs-csv \
        --output "$dir" "$@" >/dev/null
    done
  done
done
end=$(date +%s.%N)
echo "study-moldable: simulations took $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
exec /usr/bin/python3 "$root/analysis/moldable_figures.py" "$out"
