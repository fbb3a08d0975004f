#!/usr/bin/env bash
# The rig shared by the rig test programs under CTest (the fixture batch_rig): one start and one
# stop instead of one per program. Each program clears the rig's jobs before and after it
# (tests/jobscripts/rig_support.hpp).
#   rig_fixture.sh start DIR MCB_RIG   a fresh rig in DIR, stopped by its watcher if CTest ends
#                                      without the stop; where this machine cannot run it, DIR/skip
#                                      says why and the exit is 77 (skipped)
#   rig_fixture.sh stop DIR MCB_RIG    stops it (a straggler started first that names DIR
#                                      included) and fails if anything of it is left running
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: rig_fixture.sh start|stop DIR MCB_RIG" >&2; exit 2; }
command=$1 dir=$2 rig=$3

case "$command" in
  start)
    # A rig left by an interrupted run goes first.
    [ -e "$dir/run/rig.pid" ] && { "$rig" stop "$dir" >/dev/null 2>&1 || true; }
    rm -rf "$dir"
    mkdir -p "$dir"
    # The owner is CTest (this script's parent): the rig stops when it ends.
    if out=$("$rig" start "$dir" "$PPID" 2>&1); then
      echo "$out"
      exit 0
    else
      rc=$?
    fi
    echo "$out" >&2
    if [ $rc -eq 3 ]; then
      printf '%s\n' "$out" | tail -n 1 >"$dir/skip"
      exit 77
    fi
    exit $rc
    ;;
  stop)
    [ -e "$dir/skip" ] && { rm -rf "$dir"; exit 0; }
    # A straggler no batch system knows of, deaf to SIGTERM, in its own session, naming the
    # folder in its command line: stop's last sweep must end it too.
    setsid bash -c 'trap "" TERM; sleep 600; true' straggler "$dir/straggler" </dev/null >/dev/null 2>&1 &
    for _ in $(seq 1 50); do
      grep -qzF -- "$dir/straggler" /proc/[0-9]*/cmdline 2>/dev/null && break
      sleep 0.1
    done
    "$rig" stop "$dir"
    left=""
    for proc in /proc/[0-9]*; do
      [ "${proc#/proc/}" = "$$" ] && continue
      seen=$(tr '\0' '\n' <"$proc/cmdline" 2>/dev/null; tr '\0' '\n' <"$proc/environ" 2>/dev/null) || continue
      case "$seen" in *"$dir/"*) left="$left ${proc#/proc/}" ;; esac
    done
    if [ -n "$left" ]; then
      echo "rig_fixture: the rig in $dir left processes behind:$left" >&2
      exit 1
    fi
    [ ! -e "$dir/rig.env" ] || { echo "rig_fixture: stop left $dir/rig.env" >&2; exit 1; }
    rm -rf "$dir"
    echo "rig_fixture: stopped, nothing left"
    ;;
  *) echo "usage: rig_fixture.sh start|stop DIR MCB_RIG" >&2; exit 2 ;;
esac
