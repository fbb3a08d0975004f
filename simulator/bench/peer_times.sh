#!/usr/bin/env bash
# CPU seconds (user + system, the whole process) of mcb-sim and of its peer pyss on the same job
# lists (peer_lists.py), per discipline, and their ratio. mcb-sim writes jobs.csv and
# summary.json as it does by default; pyss prints its statistics.
#   peer_times.sh MCB_SIM PYSS_SRC LISTS_DIR [MCB_RUNS [PYSS_RUNS]]
# MCB_SIM: build/bin/mcb-sim; PYSS_SRC: pyss's src/ folder (github dinesh121991/pyss, run by
# python2, or $PYTHON2); LISTS_DIR: peer_lists.py's output. The medians of MCB_RUNS (default 3)
# and PYSS_RUNS (default 1: pyss's conservative backfilling takes minutes) runs are printed.
# PYSS_TIMEOUT=S stops a pyss run after S seconds (its time is then printed as >S, and the ratio
# as a lower bound): pyss's conservative backfilling of the NASA list runs for over 17 minutes.
set -euo pipefail
sim="$(realpath "$1")"
pyss="$(realpath "$2")"
lists="$(realpath "$3")"
mcb_runs="${4:-3}"
pyss_runs="${5:-1}"
python2="${PYTHON2:-python2}"
out="$(mktemp -d /tmp/mcb-peer-times.XXXXXX)"
trap 'rm -rf "$out"' EXIT

# CPU seconds of one run of the command (getrusage of the finished child, to the millisecond:
# /usr/bin/time prints hundredths only).
cpu() {
  /usr/bin/python3 -c '
import resource, subprocess, sys
limit = float(sys.argv[2]) if sys.argv[2] else None
with open(sys.argv[1], "w") as err:
    try:
        subprocess.run(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=err, check=True,
                       timeout=limit)
    except subprocess.TimeoutExpired:
        print(">%g" % limit)
        sys.exit(0)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f" % (r.ru_utime + r.ru_stime))' "$out/err" "${limit:-}" "$@" || { cat "$out/err" >&2; exit 1; }
}

# Median of N runs of the command.
median() {
  local n="$1"
  shift
  for _ in $(seq "$n"); do cpu "$@"; done | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

printf "%-14s %-5s %-6s %10s %10s %8s\n" list queue input pyss_s mcb_s ratio
for queue in fcfs easy cons; do
  case "$queue" in
    fcfs) scheduler=FcfsScheduler ;;
    easy) scheduler=EasyBackfillScheduler ;;
    cons) scheduler=ConservativeScheduler ;;
  esac
  for list in das2-excerpt:64 nasa-85:128 synthetic-90:256; do
    name="${list%:*}"
    procs="${list#*:}"
    p=$(cd "$pyss" && limit="${PYSS_TIMEOUT:-}" median "$pyss_runs" "$python2" -O \
      run_simulator.py --num-processors "$procs" --input-file "$lists/$name.swf" \
      --scheduler "$scheduler")
    for input in swf csv; do
      m=$(median "$mcb_runs" "$sim" --trace "$lists/$name.$input" --clusters "$procs" \
        --queue "$queue" --warmup 0 --output "$out/mcb")
      printf "%-14s %-5s %-6s %10s %10s %8s\n" "$name" "$queue" "$input" "$p" "$m" \
        "$(awk -v a="$p" -v b="$m" 'BEGIN {s = sub(/^>/, "", a) ? ">" : ""; printf "%s%.1f", s, a / b}')"
    done
  done
done
