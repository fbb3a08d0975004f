#!/usr/bin/env bash
# A rig of separate batch systems on this one machine, for co-allocation across batch systems:
#   slurm-a     a Slurm instance: cluster riga, partition a, nodes a1 a2 (2 CPUs each)
#   slurm-b     a second Slurm instance: cluster rigb, partition b, nodes b1 b2 (2 CPUs each)
#               (no oversubscription: a job of 4 processors fills an instance, as on a cluster)
#   gridengine  a Grid Engine cell: queue all.q on this host with 4 slots, parallel env "mpi"
# Each has its own daemons, ports, state and logs under DIR; the two Slurm share one munged.
#
#   rig.sh start DIR [OWNER_PID]  start all three; with OWNER_PID, a watcher stops the rig when
#                                 that process ends without stopping it (a killed test)
#   rig.sh stop DIR               cancel every job, stop every daemon, kill what is left; it
#                                 returns once no process names DIR in its command line or
#                                 environment (1 if one survives SIGKILL)
#   rig.sh clear DIR              cancel every job in every system, the daemons left running
#                                 (a rig shared by several test programs, one after another)
#   rig.sh check                  exit 0 when this machine can run it, else print why and exit 3
#
# After start, DIR/rig.env names each system, its kind and the environment its commands need
# (read by mcb's batch-queue library, jobscripts/queue.hpp); DIR/<system>/env.sh does the same
# for a shell. Needs root and the Slurm, munge and Grid Engine packages of scripts/packages.txt.
set -euo pipefail

prog=rig
what="the batch-system rig"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
self="$here/$(basename "${BASH_SOURCE[0]}")"
# shellcheck source=mcb-batch-lib.sh
. "$here/mcb-batch-lib.sh"
# shellcheck source=mcb-gridengine-lib.sh
. "$here/mcb-gridengine-lib.sh"

readonly kSgeSlots=4

check_machine() {
  check_slurm_tools
  check_gridengine_tools
  getent hosts "$(hostname -s)" >/dev/null || skip "host name '$(hostname -s)' does not resolve"
}

# A value for rig.env: double-quoted, with \ and " escaped (common/ini.hpp's quoting).
ini_quote() {
  local v=${1//\\/\\\\}
  printf '"%s"' "${v//\"/\\\"}"
}

write_rig_env() {
  local dir=$1 port=$2
  {
    echo "# The batch systems of the rig in $dir (written by rig.sh start; removed by stop)."
    echo "# One section per system: its kind and the environment every command for it needs."
    echo "[slurm-a]"
    echo "kind = slurm"
    echo "env = $(ini_quote "SLURM_CONF=$dir/slurm-a/etc/slurm.conf")"
    echo "[slurm-b]"
    echo "kind = slurm"
    echo "env = $(ini_quote "SLURM_CONF=$dir/slurm-b/etc/slurm.conf")"
    echo "[gridengine]"
    echo "kind = gridengine"
    # The binaries themselves: Debian's /usr/bin wrappers run an arch script first (~1 s each
    # on a busy machine).
    echo "bin = $kSgeBin"
    echo "env = $(ini_quote "SGE_ROOT=$dir/gridengine")"
    echo "env = SGE_CELL=default"
    echo "env = SGE_QMASTER_PORT=$((port + 6))"
    echo "env = SGE_EXECD_PORT=$((port + 7))"
  } >"$dir/rig.env.tmp"
  mv "$dir/rig.env.tmp" "$dir/rig.env"
}

start() {
  local dir=$1 owner=${2:-}
  check_start_args "$dir" "$owner"
  check_machine
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  [ -e "$dir/run/rig.pid" ] && die "'$dir' already holds a rig (stop it first)"
  [ -e "$dir/gridengine/default" ] && die "'$dir' holds an old rig; use a fresh folder"
  chmod 700 "$dir"
  mkdir -p "$dir/run"
  echo $$ >"$dir/run/rig.pid"
  local host port rc=0 pids=()
  host="$(hostname -s)"
  # slurm-a: port .. +2, slurm-b: +3 .. +5, Grid Engine: +6, +7.
  port="$(free_port_base 8)"
  munge_start "$dir/munge"
  slurm_write_conf "$dir/slurm-a" "$port" "$host" riga 100000 "$dir/munge/munge.socket" a:2:a:NO
  slurm_write_conf "$dir/slurm-b" $((port + 3)) "$host" rigb 200000 "$dir/munge/munge.socket" b:2:b:NO
  mkdir -p "$dir/gridengine"
  # The three start side by side; each start waits for its own daemons.
  (slurm_start "$dir/slurm-a") >"$dir/run/slurm-a-start.log" 2>&1 & pids+=($!)
  (slurm_start "$dir/slurm-b") >"$dir/run/slurm-b-start.log" 2>&1 & pids+=($!)
  (sge_start "$dir/gridengine" $((port + 6)) "$kSgeSlots") >"$dir/run/gridengine-start.log" 2>&1 & pids+=($!)
  local p r
  for p in "${pids[@]}"; do wait "$p" || { r=$?; [ $rc -ne 0 ] || rc=$r; }; done
  if [ $rc -ne 0 ]; then
    local why
    why="$(cat "$dir"/run/*-start.log | grep -F "$prog: " | head -n 1 || true)"
    stop "$dir" >/dev/null 2>&1 || true
    echo "${why:-$prog: start failed; logs in $dir/run}" >&2
    exit "$rc"
  fi
  write_rig_env "$dir" "$port"
  [ -n "$owner" ] && start_watcher "$owner" "$dir" "$dir/run/rig.pid" "$self" "$dir/run/watcher.pid"
  echo "rig: running in $dir: slurm-a (port $port), slurm-b (port $((port + 3))), gridengine (port $((port + 6))); systems in $dir/rig.env"
}

stop() {
  local dir=$1
  [ -d "$dir" ] || bad "stop: no such folder '$dir'"
  dir="$(cd "$dir" && pwd)"
  rm -f "$dir/rig.env"
  # All three at once: each waits for its own daemons.
  local pids=()
  [ -d "$dir/slurm-a" ] && { slurm_stop "$dir/slurm-a" & pids+=($!); }
  [ -d "$dir/slurm-b" ] && { slurm_stop "$dir/slurm-b" & pids+=($!); }
  [ -d "$dir/gridengine" ] && { sge_stop "$dir/gridengine" & pids+=($!); }
  local p
  for p in "${pids[@]}"; do wait "$p" || true; done
  munge_stop "$dir/munge"
  rm -f "$dir/run/rig.pid"
  stop_watcher "$dir/run/watcher.pid"
  sweep_folder "$dir" || exit 1
  echo "rig: stopped the rig in $dir"
}

clear_jobs() {
  local dir=$1 rc=0 p pids=()
  [ -f "$dir/rig.env" ] || bad "clear: no rig runs in '$dir' (no rig.env)"
  slurm_cancel_all "$dir/slurm-a" & pids+=($!)
  slurm_cancel_all "$dir/slurm-b" & pids+=($!)
  sge_cancel_all "$dir/gridengine" & pids+=($!)
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  [ $rc -eq 0 ] || die "clear: jobs are left in the rig in $dir"
  echo "rig: no job left in $dir"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || [ $# -eq 3 ] || bad "usage: rig.sh start DIR [OWNER_PID]"; start "$2" "${3:-}" ;;
  stop) [ $# -eq 2 ] || bad "usage: rig.sh stop DIR"; stop "$2" ;;
  clear) [ $# -eq 2 ] || bad "usage: rig.sh clear DIR"; clear_jobs "$2" ;;
  check) check_machine; echo "rig: this machine can run the rig" ;;
  *) echo "usage: rig.sh start DIR [OWNER_PID] | stop DIR | clear DIR | check" >&2; exit 2 ;;
esac
