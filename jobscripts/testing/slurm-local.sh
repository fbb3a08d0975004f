#!/usr/bin/env bash
# A real Slurm on this one machine, with two "clusters": partitions clusterA (nodes a1, a2) and
# clusterB (nodes b1, b2), each virtual node its own slurmd on its own port, all inside DIR.
# Everything it starts (munged, slurmctld, four slurmd) lives under DIR and is stopped by pid.
#
#   slurm-local.sh start DIR [OWNER_PID]
#                               start munged, slurmctld and the slurmd; wait until all nodes
#                               idle. With OWNER_PID, a watcher stops it all when that process
#                               ends without stopping it (a test killed by its timeout)
#   slurm-local.sh stop DIR     cancel jobs, scontrol shutdown, end munged; kill what is left
#   slurm-local.sh check        exit 0 when this machine can run it, else print why and exit 3
#
# After start, `source DIR/env.sh` points sbatch, squeue, srun ... at this Slurm (SLURM_CONF).
# Needs root (slurmd runs jobs as their submitting user) and Debian's slurmctld, slurmd,
# slurm-client, slurm-wlm-basic-plugins and munge. Jobs launch MPI with
# `srun --mpi=pmix --het-group=...`; Open MPI needs OMPI_MCA_btl=self,tcp here, because its
# shared-memory transport fails between "nodes" that are really one host.
# The Slurm pieces are shared with rig.sh (mcb-batch-lib.sh, beside this script).
set -euo pipefail

prog=slurm-local
what="a local Slurm"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
self="$here/$(basename "${BASH_SOURCE[0]}")"
# shellcheck source=mcb-batch-lib.sh
. "$here/mcb-batch-lib.sh"

start() {
  local dir=$1 owner=${2:-}
  check_start_args "$dir" "$owner"
  check_slurm_tools
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  [ -e "$dir/run/slurmctld.pid" ] && die "'$dir' already holds a Slurm (stop it first)"
  local host port
  host="$(hostname -s)"
  getent hosts "$host" >/dev/null || skip "host name '$host' does not resolve"
  port="$(free_port_base 5)"
  chmod 700 "$dir"
  mkdir -p "$dir/run"
  munge_start "$dir/munge"
  slurm_write_conf "$dir" "$port" "$host" mcblocal 1 "$dir/munge/munge.socket" \
    clusterA:2:a clusterB:2:b
  slurm_start "$dir"
  [ -n "$owner" ] && start_watcher "$owner" "$dir" "$dir/run/slurmctld.pid" "$self" "$dir/run/watcher.pid"
  echo "slurm-local: running in $dir (port $port); source $dir/env.sh"
}

stop() {
  local dir=$1
  [ -d "$dir" ] || bad "stop: no such folder '$dir'"
  dir="$(cd "$dir" && pwd)"
  slurm_stop "$dir"
  munge_stop "$dir/munge"
  # The watcher (when this stop is not its own) ends by itself once the pid files are gone.
  stop_watcher "$dir/run/watcher.pid"
  sweep_folder "$dir" || exit 1
  echo "slurm-local: stopped the Slurm in $dir"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || [ $# -eq 3 ] || bad "usage: slurm-local.sh start DIR [OWNER_PID]"; start "$2" "${3:-}" ;;
  stop)  [ $# -eq 2 ] || bad "usage: slurm-local.sh stop DIR"; stop "$2" ;;
  check) check_slurm_tools; echo "slurm-local: this machine can run a local Slurm" ;;
  *) echo "usage: slurm-local.sh start DIR | stop DIR | check" >&2; exit 2 ;;
esac
