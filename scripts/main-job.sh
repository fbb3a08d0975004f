#!/usr/bin/env bash
# The main job on this machine: a small Poisson measurement on one and two clusters mapped
# onto this machine, each run verifying itself and appending its record, then a summary.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_BUILD_DIR:-$root/build}"
out="${MCB_RESULTS_DIR:-$root/results/main}"
source "$root/scripts/mpi-env.sh"
mkdir -p "$out"
records="$out/runs.jsonl"
poisson="$build/bin/mcb-poisson"

echo "main job: Poisson, process grid 2x2, 1 and 2 clusters, records in $records"
failed=0
for grid in 32 64 96; do
  for clusters in 1 2; do
    for sync in "" "--sync"; do
      printf '  grid %3d  clusters %d  %-8s ' "$grid" "$clusters" "${sync:-nosync}"
      if ! mpirun -np 4 "$poisson" --grid "$grid" --procs 2x2 --clusters "$clusters" $sync \
           --campaign main --quiet --output "$records"; then
        failed=$((failed + 1))
      fi
    done
  done
done

/usr/bin/python3 - "$records" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
rows = [r for r in rows if r.get("campaign") == "main"]
print("\n%-6s %-8s %-6s %-8s %10s %10s %12s %12s" % ("grid", "clusters", "sync", "status",
      "iterations", "wall s", "comm paper s", "LUP/s"))
for r in rows[-12:]:
    c, res = r["config"], r.get("result", {})
    print("%-6s %-8s %-6s %-8s %10s %10.4f %12.4f %12.3g" % (c["grid"], c["clusters"],
          "yes" if c["sync"] else "no", r["status"], res.get("iterations", "-"),
          res.get("wall_time", 0), res.get("comm_time_paper", 0),
          res.get("site_updates_per_second", 0)))
PY
[ "$failed" -eq 0 ] || { echo "main job: $failed run(s) not VALID" >&2; exit 1; }
