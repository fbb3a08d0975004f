#!/usr/bin/env bash
# CPU seconds (user + system, the whole process) of mcb-sim and of its peer pyss on the same job
# lists (peer_lists.py), per discipline, and their ratio. mcb-sim writes jobs.csv and
# summary.json as it does by default; pyss prints its statistics.
#   peer_times.sh MCB_SIM PYSS_SRC LISTS_DIR [MCB_RUNS [PYSS_RUNS]]
# MCB_SIM: build/bin/mcb-sim; PYSS_SRC: pyss's src/ folder (github dinesh121991/pyss, run by
# python2, or $PYTHON2); LISTS_DIR: peer_lists.py's output. The medians of MCB_RUNS (default 3)
# and PYSS_RUNS (default 1: pyss's conservative backfilling takes minutes) runs are printed, and
# the median of the ratios of each pyss run to the mcb-sim runs made right after it.
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

# The median of the numbers given (a ">S" lower bound counts as S and keeps its ">").
median_of() {
  local bound=""
  case " $* " in *" >"*) bound=">" ;; esac
  printf '%s\n' "$@" | sed 's/^>//' | sort -g |
    awk -v b="$bound" '{v[NR] = $1} END {printf "%s%s", b, v[int((NR + 1) / 2)]}'
}

# Median of N runs of the command.
median() {
  local n="$1" times=""
  shift
  for _ in $(seq "$n"); do times+=" $(cpu "$@")"; done
  # shellcheck disable=SC2086  # the times are split into their numbers on purpose
  median_of $times
}

# Each pyss run is paired with the mcb-sim runs made right after it, and the ratio is the median
# of the pairs' ratios: this host's speed drifts by a third and more from minute to minute, which
# a pyss run and mcb-sim runs minutes apart would take for a difference between them.
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
    ps="" ms_swf="" ms_csv="" rs_swf="" rs_csv=""
    for _ in $(seq "$pyss_runs"); do
      p=$(cd "$pyss" && limit="${PYSS_TIMEOUT:-}" cpu "$python2" -O run_simulator.py \
        --num-processors "$procs" --input-file "$lists/$name.swf" --scheduler "$scheduler")
      ps+=" $p"
      for input in swf csv; do
        m=$(median "$mcb_runs" "$sim" --trace "$lists/$name.$input" --clusters "$procs" \
          --queue "$queue" --warmup 0 --output "$out/mcb")
        r=$(awk -v a="$p" -v b="$m" 'BEGIN {s = sub(/^>/, "", a) ? ">" : ""; printf "%s%.1f", s, a / b}')
        if [ "$input" = swf ]; then ms_swf+=" $m" rs_swf+=" $r"; else ms_csv+=" $m" rs_csv+=" $r"; fi
      done
      [[ "$p" == ">"* ]] && break  # a run stopped at the limit: its bound does not move
    done
    # shellcheck disable=SC2086  # the lists are split into their numbers on purpose
    for input in swf csv; do
      if [ "$input" = swf ]; then m="$ms_swf" r="$rs_swf"; else m="$ms_csv" r="$rs_csv"; fi
      printf "%-14s %-5s %-6s %10s %10s %8s\n" "$name" "$queue" "$input" "$(median_of $ps)" \
        "$(median_of $m)" "$(median_of $r)"
    done
  done
done
