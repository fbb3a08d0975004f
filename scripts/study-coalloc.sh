#!/usr/bin/env bash
# Issue 29's validation study in one command: on the rig of separate batch systems (started
# here and stopped at the end), K co-allocated Poisson runs of a few seconds each arrive
# (Poisson) under a background load replayed into every system, once per configuration:
# d = 0 and 1 duplicate, Random and Qlen ranking, stop-and-wait and resubmission. Then the same
# workload (the background jobs as they ran, the co-allocated requests as they arrived) is
# replayed in mcb-redundant, and analysis/coalloc_study.py writes the real-against-simulated
# table, the coordinator's overhead and the check of seed 004's claim (duplication improves
# performance by more than 15%).
#
#   scripts/study-coalloc.sh [--quick] [OUT_DIR]
#
# OUT_DIR defaults to results/study-coalloc (MCB_RESULTS_DIR); it must not hold a study yet.
# --quick: 2 runs per configuration, stop-and-wait with d = 0 and Qlen d = 1 (the ctest
# study_coalloc_quick). MCB_COALLOC_RUNS (K, default 8), MCB_COALLOC_ARRIVAL (mean seconds
# between arrivals, default 12), MCB_COALLOC_LOAD_JOBS (background jobs, default 400) and
# MCB_COALLOC_FACTOR (time compression of the background trace, default 300) size it.
# MCB_COALLOC_LAUNCH=at-go starts the stop-and-wait configurations' ranks at the go instead of
# with each allocation (the default, at-start; resubmission always launches at the go), to
# measure what starting them early saves.
# Exit 0: the table is written; 1: a step failed; 77: this machine cannot run the rig.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${MCB_BUILD_DIR:-$root/build}" 2>/dev/null && pwd || echo "${MCB_BUILD_DIR:-$root/build}")"
bin="$build/bin"
quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
out="${1:-${MCB_RESULTS_DIR:-$root/results/study-coalloc}}"
say() { echo "study-coalloc: $*"; }
fail() {
  echo "study-coalloc: $*" >&2
  exit 1
}
for p in mcb-rig mcb-load mcb-campaign mcb-poisson mcb-redundant mcb-batchgrid; do
  [ -x "$bin/$p" ] || fail "$bin/$p is not built"
done
if [ -e "$out/table.csv" ] || [ -d "$out/rig" ]; then fail "$out holds a study already"; fi
if ! why="$("$bin/mcb-rig" check 2>&1)"; then
  echo "study-coalloc: skipped: $why" >&2
  exit 77
fi

if [ "$quick" = 1 ]; then
  runs="${MCB_COALLOC_RUNS:-2}"
  arrival="${MCB_COALLOC_ARRIVAL:-3}"
  load_jobs="${MCB_COALLOC_LOAD_JOBS:-40}"
  configs="0:random:stop-and-wait 1:qlen:stop-and-wait"
else
  runs="${MCB_COALLOC_RUNS:-8}"
  arrival="${MCB_COALLOC_ARRIVAL:-12}"
  load_jobs="${MCB_COALLOC_LOAD_JOBS:-400}"
  configs="0:random:stop-and-wait 1:random:stop-and-wait 1:qlen:stop-and-wait \
0:random:resubmission 1:random:resubmission 1:qlen:resubmission"
fi
factor="${MCB_COALLOC_FACTOR:-300}"
run_timeout=120
coalloc_timeout=240
# A pilot's time limit (jobscripts/coalloc_executor.cpp): what the batch systems plan with.
requested=$((run_timeout + coalloc_timeout + 120))

mkdir -p "$out"
out="$(cd "$out" && pwd)"
rig="$out/rig"
"$bin/mcb-rig" start "$rig" $$ > "$out/rig.log" 2>&1 || fail "the rig did not start (see $out/rig.log)"
load_pid=""
cleanup() {
  if [ -n "$load_pid" ]; then kill -INT "$load_pid" 2> /dev/null || true; wait "$load_pid" || true; fi
  "$bin/mcb-rig" stop "$rig" >> "$out/rig.log" 2>&1 || true
}
trap cleanup EXIT
# shellcheck source=scripts/mpi-env.sh
source "$root/scripts/mpi-env.sh"
systems="slurm-a slurm-b gridengine"
# Lublin-Feitelson jobs of a 16-processor machine (seed 003's model) at a quarter of their
# processors (a system has 4), each to one system at random.
"$bin/mcb-batchgrid" generate --size 16 --jobs "$load_jobs" --seed 29 --interarrival 1000 --output "$out/background.swf" \
  > "$out/generate.log" || fail "mcb-batchgrid generate failed (see $out/generate.log)"
start=$(date +%s.%N)
for config in $configs; do
  IFS=: read -r d ranking sync <<< "$config"
  launch=""
  if [ -n "${MCB_COALLOC_LAUNCH:-}" ] && [ "$sync" = stop-and-wait ]; then
    launch="launch = $MCB_COALLOC_LAUNCH"
  fi
  name="d$d-$ranking-$sync"
  dir="$out/$name"
  mkdir -p "$dir"
  say "$name: background load and $runs co-allocated runs"
  "$bin/mcb-load" --systems "$rig/rig.env" --select "${systems// /,}" --trace "$out/background.swf" \
    --count "$load_jobs" --factor "$factor" --procs-scale 0.25 --assign random --seed 7 \
    --output "$dir/load" > "$dir/load.log" 2>&1 &
  load_pid=$!
  cat > "$dir/spec.ini" << INI
name = $name
app = poisson
executor = coalloc
binary = $bin/mcb-poisson
folder = $dir/campaign
repetitions = $runs
timeout = ${run_timeout}s
env = OMPI_MCA_btl=self,tcp
env = OMPI_MCA_btl_tcp_if_include=lo
env = OMPI_MCA_oob_tcp_if_include=lo
env = OMPI_MCA_mpi_yield_when_idle=1
[coalloc]
systems = $rig/rig.env
clusters = slurm-a slurm-b
duplicates = $d
ranking = $ranking
synchronization = $sync
timeout = ${coalloc_timeout}s
in-flight = $runs
arrival = ${arrival}s
seed = 5
poll = 250ms
$launch
[options]
grid = 64
procs = 2x2
clusters = 2
INI
  "$bin/mcb-campaign" run "$dir/spec.ini" > "$dir/campaign.log" 2>&1 ||
    say "$name: some runs failed (see $dir/campaign.log)"
  kill -INT "$load_pid" 2> /dev/null || true
  wait "$load_pid" || true
  load_pid=""
  [ -f "$dir/load/load.json" ] || fail "$name: the background load wrote no load.json (see $dir/load.log)"
  /usr/bin/python3 "$root/analysis/coalloc_study.py" requests "$dir/campaign" \
    --requested "$requested" --output "$dir/requests.swf" || fail "$name: no requests to replay"
  traces=()
  for s in $systems; do traces+=(--site-trace "$dir/load/$s.swf"); done
  "$bin/mcb-redundant" "${traces[@]}" --requests "$dir/requests.swf" --queue cons --sync "$sync" \
    --rankers "$ranking" --duplicates "$d" --replications 5 --output "$dir/sim" > "$dir/sim.log" ||
    fail "$name: mcb-redundant failed (see $dir/sim.log)"
  tail -n 1 "$dir/campaign.log"
done
end=$(date +%s.%N)
say "runs and replays took $(awk "BEGIN { print $end - $start }") s"
/usr/bin/python3 "$root/analysis/coalloc_study.py" table "$out"
