#!/bin/bash
# Pilot of one queue of a multi-queue ensemble run, written by mcb-ensemble into its state
# folder and submitted to the queue again and again:
#   ensemble-pilot.sh DIR TAG
# It reports its allocation active through the shared file system (DIR/TAG.active: the time it
# started and its hosts), then runs the segments the coordinator gives it, one after another:
# DIR/TAG.go.1, DIR/TAG.go.2, ... each leaving its exit code in DIR/TAG.done.N, until the queue's
# time limit ends the job or the coordinator writes DIR/TAG.cancel. DIR/TAG.stop.N ends segment
# N's mpirun (a part of a joined segment whose partner was killed): the pilot goes on to N+1.
dir=$1
tag=$2
[ -n "$dir" ] && [ -n "$tag" ] || { echo "usage: ensemble-pilot.sh DIR TAG" >&2; exit 2; }
# Cancelled before it started (a pilot whose id the coordinator never learnt, or the run ended).
[ -e "$dir/$tag.cancel" ] && exit 0

hosts=
if [ -n "${SLURM_JOB_NODELIST:-}" ] && command -v scontrol >/dev/null; then
  hosts=$(scontrol show hostnames "$SLURM_JOB_NODELIST" 2>/dev/null | paste -sd, -)
elif [ -n "${PE_HOSTFILE:-}" ] && [ -r "$PE_HOSTFILE" ]; then
  hosts=$(awk '{print $1}' "$PE_HOSTFILE" | paste -sd, -)
elif [ -n "${PBS_NODEFILE:-}" ] && [ -r "$PBS_NODEFILE" ]; then
  hosts=$(sort -u "$PBS_NODEFILE" | paste -sd, -)
fi
[ -n "$hosts" ] || hosts=$(hostname -s)

# Written whole, then renamed: the coordinator never reads half a line.
printf '%s %s\n' "$(date +%s.%N)" "$hosts" >"$dir/$tag.active.tmp.$$"
mv -f "$dir/$tag.active.tmp.$$" "$dir/$tag.active"

n=1
while :; do
  while [ ! -e "$dir/$tag.go.$n" ] && [ ! -e "$dir/$tag.stop.$n" ]; do
    [ -e "$dir/$tag.cancel" ] && exit 0
    sleep 0.05
  done
  if [ -e "$dir/$tag.stop.$n" ]; then
    code=143
  else
    bash "$dir/$tag.go.$n" &
    run=$!
    # A kill of the job (its time limit, a cancel) neither ends this script before the segment
    # nor writes a done file: a batch system that finds a job's processes through their parents
    # (Slurm's proctrack/linuxproc) would otherwise lose an orphaned mpirun at the SIGKILL.
    killed=
    trap 'killed=1; kill -TERM "$run" 2>/dev/null' TERM INT HUP
    while kill -0 "$run" 2>/dev/null; do
      if [ -e "$dir/$tag.stop.$n" ]; then
        # The go's own children (its mpirun, which ends its ranks), then the go.
        pkill -TERM -P "$run" 2>/dev/null
        kill -TERM "$run" 2>/dev/null
        break
      fi
      sleep 0.05
    done
    while :; do
      wait "$run"
      code=$?
      kill -0 "$run" 2>/dev/null || break
    done
    [ -z "$killed" ] || exit 143
    trap - TERM INT HUP
  fi
  printf '%s %s\n' "$code" "$(date +%s.%N)" >"$dir/$tag.done.$n.tmp.$$"
  mv -f "$dir/$tag.done.$n.tmp.$$" "$dir/$tag.done.$n"
  n=$((n + 1))
done
