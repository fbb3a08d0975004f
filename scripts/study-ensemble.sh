#!/usr/bin/env bash
# Issue 30's study in one command: on the rig of separate batch systems (started here and
# stopped at the end), under a background load replayed into every system by mcb-load, the
# Ensflow ensemble runs to its horizon with mcb-ensemble (a) over three queues (slurm-a at 2
# processors, slurm-b and gridengine at 4; with [ensemble] split = auto, the default, a segment
# runs over two active queues joined into one MPI job when that is predicted faster) and (b) on
# the single largest queue (slurm-b) alone, every pilot under the same time limit. Then each
# run's setting (the queues, the limit, the background jobs as they ran, a + b/P measured from
# the runs' segments on one queue) is replayed in mcb-batchgrid, and analysis/ensemble_study.py
# prints real against simulated: throughput (model days per wall-clock hour), the pilots' queue
# wait, the resource availability rate, remaps and their cost, and whether multiple queues beat
# the single largest on the rig.
#
#   scripts/study-ensemble.sh [--quick] [OUT_DIR]
#
# OUT_DIR defaults to results/study-ensemble (MCB_RESULTS_DIR); it must not hold a study yet.
# --quick: a 10-day horizon (one analysis) and 30 background jobs (the ctest
# study_ensemble_quick). MCB_ENSEMBLE_DAYS (horizon, default 80), MCB_ENSEMBLE_LIMIT (seconds,
# default 60: the first segment spins the ocean up, about 30 s on the shared 2-core machine),
# MCB_ENSEMBLE_LOAD_JOBS (default 150) and MCB_ENSEMBLE_FACTOR (time compression of the
# background trace, default 300) size it; MCB_ENSEMBLE_SPLIT=never keeps every segment on one
# queue (default auto); MCB_ENSEMBLE_EVERY (model days per segment, default 4) and
# MCB_ENSEMBLE_SEED (the background workload's seed, default 30) set the rest. A segment under
# way stops at its next analysis when the active set changes and the new mapping pays
# (jobscripts/README.md, "Remapping mid-segment"): with an analysis every 10 days, a segment
# longer than 10 days always holds one before its end.
# Exit 0: the table is written; 1: a step failed; 77: this machine cannot run the rig.
set -euo pipefail
RIG_STUDY_PROGRAMS="mcb-ensemble mcb-ensflow"
# shellcheck source=scripts/rig-study-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/rig-study-lib.sh"
rig_study_begin study-ensemble study-ensemble "$@"

if [ "$quick" = 1 ]; then
  days="${MCB_ENSEMBLE_DAYS:-10}"
  limit="${MCB_ENSEMBLE_LIMIT:-60}"
  load_jobs="${MCB_ENSEMBLE_LOAD_JOBS:-30}"
else
  days="${MCB_ENSEMBLE_DAYS:-80}"
  limit="${MCB_ENSEMBLE_LIMIT:-60}"
  load_jobs="${MCB_ENSEMBLE_LOAD_JOBS:-150}"
fi
factor="${MCB_ENSEMBLE_FACTOR:-300}"
split="${MCB_ENSEMBLE_SPLIT:-auto}"
every="${MCB_ENSEMBLE_EVERY:-4}"
seed="${MCB_ENSEMBLE_SEED:-30}"

rig_study_background "$seed" "$load_jobs"

queue() { # NAME SYSTEM PROCESSORS: one [queue.NAME] section; a + b/P is the runner's prior
  printf '[queue.%s]\nsystem = %s\nprocessors = %s\ntime-limit = %ss\na = 1\nb = 2\n' "$1" "$2" "$3" "$limit"
}
for config in multi single; do
  dir="$out/$config"
  mkdir -p "$dir"
  say "$config: background load and the ensemble to day $days"
  rig_study_load "$dir" "$load_jobs" "$factor"
  {
    printf '[ensemble]\nsystems = %s\nbinary = %s\nhorizon = %s\ncheckpoint-every = %s\n' \
      "$rig/rig.env" "$bin/mcb-ensflow" "$days" "$every"
    printf 'poll = 200ms\nstatus-every = 1s\nsplit = %s\n' "$split"
    printf '[link]\nbandwidth = 100Mbit/s\nlatency = 5ms\n'
    queue b slurm-b 4
    if [ "$config" = multi ]; then
      queue a slurm-a 2
      queue ge gridengine 4
    fi
    # Ensflow's default experiment (the paper's: an analysis every 10 days, 200 observations
    # of 2 cm error, the eddying two-layer basin at 63 x 63 after a 720-day spin-up, 150 km
    # localisation, no inflation) at 24 members, the fewest that stay VALID over 8 analyses
    # (jobscripts/README.md, "The study's experiment"). analysis-every is the default, said so
    # that the runner knows where the first segment could stop for a remap.
    printf '[options]\nmembers = 24\nanalysis-every = 10\ncounters = ""\nquiet = true\n'
    printf 'no-free-run = true\n'
  } > "$dir/spec.ini"
  "$bin/mcb-ensemble" --spec "$dir/spec.ini" --state "$dir/state" > "$dir/ensemble.log" 2>&1 ||
    fail "$config: mcb-ensemble failed (see $dir/ensemble.log)"
  rig_study_load_end "$config" "$dir"
  tail -n 2 "$dir/ensemble.log"
done

# The replays of the VALID runs (an INVALID run feeds no figure): a + b/P fitted over their
# valid segments, each run's background as it ran.
valid="$(/usr/bin/python3 "$root/analysis/ensemble_study.py" valid "$out")" ||
  fail "the runs' verdicts could not be read"
[ -z "$valid" ] || /usr/bin/python3 "$root/analysis/ensemble_study.py" fit "$out" \
  --output "$out/fit.json" || fail "the fit of a + b/P failed"
for config in $valid; do
  dir="$out/$config"
  /usr/bin/python3 "$root/analysis/ensemble_study.py" replay "$out" "$config" --output "$dir/replay" ||
    fail "$config: no replay input"
  # shellcheck disable=SC2046 # one argument a line, none with spaces
  "$bin/mcb-batchgrid" run $(cat "$dir/replay/args") --output "$dir/sim" > "$dir/sim.log" ||
    fail "$config: mcb-batchgrid failed (see $dir/sim.log)"
done
/usr/bin/python3 "$root/analysis/ensemble_study.py" table "$out"
