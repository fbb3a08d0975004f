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
# MCB_COALLOC_FACTOR (time compression of the background trace, default 300) size it;
# MCB_COALLOC_CONFIGS picks configurations (words D:RANKING:SYNCHRONIZATION, e.g.
# "0:random:stop-and-wait 0:random:resubmission" to measure the overhead alone).
# MCB_COALLOC_LAUNCH=at-go starts the ranks at the go instead of with each allocation (the
# default, at-start; with resubmission from the request's release on), to measure what starting
# them early saves.
# The runs use Open MPI's ob1 and its TCP transport over loopback: naming ob1 skips the probe of
# UCX, which finds no device here and costs each launch about 0.2 s of its start.
# Exit 0: the table is written; 1: a step failed; 77: this machine cannot run the rig.
set -euo pipefail
RIG_STUDY_PROGRAMS="mcb-campaign mcb-poisson mcb-redundant"
# shellcheck source=scripts/rig-study-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/rig-study-lib.sh"
# Checked before the rig starts.
for config in ${MCB_COALLOC_CONFIGS:-}; do
  [[ "$config" =~ ^[0-9]+:(random|qlen|est-qt):(stop-and-wait|resubmission|hibernation)$ ]] ||
    { echo "study-coalloc: MCB_COALLOC_CONFIGS: '$config' is not D:RANKING:SYNCHRONIZATION" >&2; exit 2; }
done
rig_study_begin study-coalloc study-coalloc "$@"

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
configs="${MCB_COALLOC_CONFIGS:-$configs}"
factor="${MCB_COALLOC_FACTOR:-300}"
run_timeout=120
coalloc_timeout=240
# A pilot's time limit (jobscripts/coalloc_executor.cpp): what the batch systems plan with.
requested=$((run_timeout + coalloc_timeout + 120))

rig_study_background 29 "$load_jobs"
start=$(date +%s.%N)
for config in $configs; do
  IFS=: read -r d ranking sync <<< "$config"
  launch=""
  if [ -n "${MCB_COALLOC_LAUNCH:-}" ]; then
    launch="launch = $MCB_COALLOC_LAUNCH"
  fi
  name="d$d-$ranking-$sync"
  dir="$out/$name"
  mkdir -p "$dir"
  say "$name: background load and $runs co-allocated runs"
  rig_study_load "$dir" "$load_jobs" "$factor"
  cat > "$dir/spec.ini" << INI
name = $name
app = poisson
executor = coalloc
binary = $bin/mcb-poisson
folder = $dir/campaign
repetitions = $runs
timeout = ${run_timeout}s
env = OMPI_MCA_pml=ob1
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
  rig_study_load_end "$name" "$dir"
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
