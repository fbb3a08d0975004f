#!/bin/bash
# Pilot of one component of a co-allocated run, written by mcb-campaign (executor = coalloc)
# into the campaign folder and submitted to each batch system as is:
#   coalloc-pilot.sh DIR TAG
# It reports the allocation active through the shared file system (DIR/TAG.active: the time it
# started and its hosts), then holds the allocation idle until the coordinator writes
# DIR/TAG.go (a script that starts this component's ranks with its own launcher) or
# DIR/TAG.cancel. After the go it runs the script and leaves its exit code in DIR/TAG.done.
# With launch = at-start the coordinator wrote DIR/TAG.launch before submitting it (with
# resubmission: once the request gave its early allocation back, also for copies queued): the first
# copy of the component to start claims it (DIR/<request>.c<k>.bound, a symbolic link naming
# its tag, made atomically) and runs its launch at once, its ranks waiting for their peers in
# the join's rendezvous; a copy that finds the claim taken waits for its cancel.
dir=$1
tag=$2
[ -n "$dir" ] && [ -n "$tag" ] || { echo "usage: coalloc-pilot.sh DIR TAG" >&2; exit 2; }
# Cancelled before it started (a redundant copy, or one whose id the coordinator never learnt).
[ -e "$dir/$tag.cancel" ] && exit 0

# The allocation's hosts: Slurm, Grid Engine or PBS, else this host.
hosts=
if [ -n "${SLURM_JOB_NODELIST:-}" ] && command -v scontrol >/dev/null; then
  hosts=$(scontrol show hostnames "$SLURM_JOB_NODELIST" 2>/dev/null | paste -sd, -)
elif [ -n "${PE_HOSTFILE:-}" ] && [ -r "$PE_HOSTFILE" ]; then
  hosts=$(awk '{print $1}' "$PE_HOSTFILE" | paste -sd, -)
elif [ -n "${PBS_NODEFILE:-}" ] && [ -r "$PBS_NODEFILE" ]; then
  hosts=$(sort -u "$PBS_NODEFILE" | paste -sd, -)
fi
[ -n "$hosts" ] || hosts=$(hostname -s)

started=$(date +%s.%N)
go=
# The claim before the report: the coordinator reads who is bound when it sees the report.
if [ -e "$dir/$tag.launch" ] && ln -s "$tag" "$dir/${tag%.*}.bound" 2>/dev/null; then
  go="$dir/$tag.launch"
fi
# Written whole, then renamed: the coordinator never reads half a line. The last word says
# whether this copy runs its ranks now (1) or waits for the go (0).
printf '%s %s %s %s\n' "$started" "$hosts" "$(hostname -s)" "$([ -n "$go" ] && echo 1 || echo 0)" >"$dir/$tag.active.tmp.$$"
mv -f "$dir/$tag.active.tmp.$$" "$dir/$tag.active"

if [ -z "$go" ]; then
  while [ ! -e "$dir/$tag.go" ]; do
    [ -e "$dir/$tag.cancel" ] && exit 0
    sleep 0.05
  done
  go="$dir/$tag.go"
fi
printf '%s\n' "$(date +%s.%N)" >"$dir/$tag.began"
# The launch runs as this script's child, and a kill of the job (SIGTERM, then SIGKILL after
# the batch system's grace) neither ends this script first nor writes a done file. A batch
# system that finds a job's processes through their parents (Slurm's proctrack/linuxproc) would
# otherwise lose a launcher orphaned by the script's death, and an mpirun that hangs on SIGTERM
# would outlive its cancelled job.
bash "$go" &
child=$!
killed=
trap 'killed=1; kill -TERM "$child" 2>/dev/null' TERM INT HUP
while :; do
  wait "$child"
  code=$?
  kill -0 "$child" 2>/dev/null || break
done
[ -z "$killed" ] || exit 143
printf '%s %s\n' "$code" "$(date +%s.%N)" >"$dir/$tag.done.tmp.$$"
mv -f "$dir/$tag.done.tmp.$$" "$dir/$tag.done"
exit "$code"
