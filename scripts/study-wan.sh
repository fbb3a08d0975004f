#!/usr/bin/env bash
# The DAS-2 paper's measurement study (000, Table 3 / Figure 4, Figure 10, Table 10), reduced to
# this machine: Poisson at 4 ranks (2x2) and 16 ranks (4x4, more ranks than cores here) on 1, 2
# and 4 clusters joined by emulated DAS-2-like links (100 Mbit/s, 1 ms), over a range of grid
# sizes, synchronized and not. Writes every run's record and a summary with the three claims:
#   - the runtime ratio multicluster / single cluster falls as the grid grows (Table 3, Fig. 4);
#   - the cross-cluster directions dominate the per-direction communication time (Fig. 10);
#   - non-synchronized communication time is below synchronized (Table 10).
#
#   scripts/study-wan.sh [OUT_DIR]          (default results/study-wan)
#
# Environment: MCB_BUILD_DIR (default build), STUDY_GRIDS_2X2 ("50 100 200 400 800"),
# STUDY_GRIDS_4X4 ("100 200 400 800"), STUDY_REPETITIONS (1), STUDY_TOLERANCE (1e-2),
# STUDY_WAN ("--wan-latency 1ms --wan-bandwidth 100Mbit/s").
#
# Halo mode: exact. Its iteration count is the same for every decomposition and number of
# clusters, so runtime ratios compare the same work, and it admits over-relaxation, so the
# iterations grow as N (about 2.3 N here) instead of N^2 with the paper's halo mode (plain
# Gauss-Seidel there): the grids that show the trend finish in minutes. The per-direction
# structure (four consecutive steps, top bottom left right) is the same in both modes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_BUILD_DIR:-$root/build}"
out="${1:-$root/results/study-wan}"
grids_2x2="${STUDY_GRIDS_2X2:-50 100 200 400 800}"
grids_4x4="${STUDY_GRIDS_4X4:-100 200 400 800}"
repetitions="${STUDY_REPETITIONS:-1}"
tolerance="${STUDY_TOLERANCE:-1e-2}"
read -r -a wan <<< "${STUDY_WAN:---wan-latency 1ms --wan-bandwidth 100Mbit/s}"
poisson="$build/bin/mcb-poisson"
[ -x "$poisson" ] || { echo "study-wan.sh: $poisson not built (set MCB_BUILD_DIR)" >&2; exit 2; }
# shellcheck source=scripts/mpi-env.sh
source "$root/scripts/mpi-env.sh"

mkdir -p "$out"
records="$out/runs.jsonl"
# A 2x2 grid has two columns: four clusters need one rank each, given as a map.
printf '0\n1\n2\n3\n' > "$out/map-2x2-4.txt"

started=$(date +%s)
index=0
run() {  # procs ranks clusters grid sync repetition
  local procs=$1 ranks=$2 clusters=$3 grid=$4 sync=$5 rep=$6
  local split=(--clusters "$clusters")
  if [ "$procs" = 2x2 ] && [ "$clusters" = 4 ]; then split=(--cluster-map "$out/map-2x2-4.txt"); fi
  local sync_flag=()
  [ "$sync" = yes ] && sync_flag=(--sync)
  index=$((index + 1))
  mpirun -np "$ranks" "$poisson" --grid "$grid" --procs "$procs" "${split[@]}" --halo exact \
    --tolerance "$tolerance" "${sync_flag[@]}" "${wan[@]}" --counters '' --quiet \
    --campaign study-wan --run-id "study-wan-$index-r$rep" --repetition "$rep" \
    --output "$records" | sed "s/^/  $procs C=$clusters N=$grid sync=$sync: /"
}

for rep in $(seq 1 "$repetitions"); do
  for grid in $grids_2x2; do
    for clusters in 1 2 4; do
      for sync in no yes; do run 2x2 4 "$clusters" "$grid" "$sync" "$rep"; done
    done
  done
  for grid in $grids_4x4; do
    for clusters in 1 2 4; do
      for sync in no yes; do run 4x4 16 "$clusters" "$grid" "$sync" "$rep"; done
    done
  done
done
echo "study-wan.sh: $index runs in $(( $(date +%s) - started )) s -> $records"

/usr/bin/python3 - "$records" "$out" <<'PY'
import csv, json, sys
from collections import defaultdict
from statistics import mean

records_path, out = sys.argv[1], sys.argv[2]
runs = [json.loads(line) for line in open(records_path) if line.strip()]
valid = [r for r in runs if r["status"] == "valid"]
lines = []
def say(text=""):
    lines.append(text)
    print(text)

say(f"{len(valid)} valid of {len(runs)} runs; system {valid[0]['config']['system'] if valid else '-'}")
if len(valid) < len(runs):
    say("invalid or failed runs are left out: " + ", ".join(r["run_id"] for r in runs if r["status"] != "valid"))

def key(r):
    c = r["config"]
    return (c["procs"], c["grid"], c["components"], c["sync"])
groups = defaultdict(list)
for r in valid:
    groups[key(r)].append(r)
def avg(k, f):
    rs = groups.get(k, [])
    return mean(f(r) for r in rs) if rs else None

claims = []
procs_list = sorted({k[0] for k in groups})

# Table 3 / Figure 4: total runtime (non-synchronized, as the paper's Table 3) and its ratio to
# the single cluster.
say("\nTable 3 / Figure 4 analogue: runtime in s (non-synchronized) and ratio to 1 cluster")
with open(f"{out}/table3.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["procs", "grid", "iterations", "runtime_c1", "runtime_c2", "runtime_c4", "ratio_c2", "ratio_c4"])
    for procs in procs_list:
        say(f"  {procs}: {'grid':>6} {'iter':>6} {'C=1':>9} {'C=2':>9} {'C=4':>9} {'C2/C1':>7} {'C4/C1':>7}")
        ratios = {2: [], 4: []}
        for grid in sorted({k[1] for k in groups if k[0] == procs}):
            t = {c: avg((procs, grid, c, False), lambda r: r["result"]["wall_time"]) for c in (1, 2, 4)}
            its = avg((procs, grid, 1, False), lambda r: r["result"]["iterations"])
            rat = {c: (t[c] / t[1] if t[c] and t[1] else None) for c in (2, 4)}
            for c in (2, 4):
                if rat[c]:
                    ratios[c].append((grid, rat[c]))
            fmt = lambda v, p=3: f"{v:.{p}f}" if v is not None else "-"
            say(f"  {'':5} {grid:>6} {fmt(its, 0):>6} {fmt(t[1]):>9} {fmt(t[2]):>9} {fmt(t[4]):>9} {fmt(rat[2], 2):>7} {fmt(rat[4], 2):>7}")
            w.writerow([procs, grid, its, t[1], t[2], t[4], rat[2], rat[4]])
        for c in (2, 4):
            series = ratios[c]
            if len(series) >= 2:
                falls = series[-1][1] < series[0][1]
                rises = sum(1 for a, b in zip(series, series[1:]) if b[1] > a[1] * 1.05)
                claims.append((f"{procs} C={c}: ratio falls from grid {series[0][0]} ({series[0][1]:.2f}) "
                               f"to grid {series[-1][0]} ({series[-1][1]:.2f}); rises on the way: {rises}",
                               falls))

# Table 10: the paper's communication time, synchronized vs not.
say("\nTable 10 analogue: communication time for exchanging borders in s (paper definition), sync yes / no")
with open(f"{out}/table10.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["procs", "grid", "clusters", "sync_yes", "sync_no"])
    for procs in procs_list:
        say(f"  {procs}: {'grid':>6} " + " ".join(f"{'C=%d yes' % c:>9} {'no':>8}" for c in (1, 2, 4)))
        for grid in sorted({k[1] for k in groups if k[0] == procs}):
            cells = []
            for c in (1, 2, 4):
                y = avg((procs, grid, c, True), lambda r: r["result"]["comm_time_paper"])
                n = avg((procs, grid, c, False), lambda r: r["result"]["comm_time_paper"])
                w.writerow([procs, grid, c, y, n])
                cells.append(f"{y:>9.3f} {n:>8.3f}" if y is not None and n is not None else f"{'-':>9} {'-':>8}")
                if c > 1 and y is not None and n is not None:
                    claims.append((f"{procs} N={grid} C={c}: non-synchronized {n:.3f} s < synchronized {y:.3f} s", n < y))
            say(f"  {'':5} {grid:>6} " + " ".join(cells))

# Figure 10: per-process, per-direction communication time, 2 clusters, smallest grid.
say("\nFigure 10 analogue: per-process communication time per direction in s (2 clusters, smallest grid, non-synchronized)")
with open(f"{out}/fig10.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["procs", "grid", "rank", "column", "row", "cluster", "direction", "time", "time_inter"])
    for procs in procs_list:
        grids = sorted({k[1] for k in groups if k[0] == procs and k[2] == 2})
        if not grids:
            continue
        run = groups[(procs, grids[0], 2, False)][0]
        h, v = run["config"]["h"], run["config"]["v"]
        say(f"  {procs}, grid {grids[0]} (process grid drawn as in the paper: row {v - 1} on top)")
        table = {}
        for entry in run["ranks"]:
            rank = entry["rank"]
            for d in ("top", "bottom", "left", "right"):
                t = entry["channels"][d]["time"]
                table[(rank, d)] = (t["intra"] + t["inter"], t["inter"])
                w.writerow([procs, grids[0], rank, rank // v, rank % v, entry["cluster"], d,
                            t["intra"] + t["inter"], t["inter"]])
        for d in ("top", "bottom", "left", "right"):
            say(f"    {d}:")
            for row in reversed(range(v)):
                say("      " + " ".join(f"{table[(col * v + row, d)][0]:7.3f}" for col in range(h)))
        inter = sum(t for (rank, d), (total, t) in table.items())
        intra = sum(total - t for (rank, d), (total, t) in table.items())
        claims.append((f"{procs} grid {grids[0]} C=2: time waiting on cross-cluster steps {inter:.3f} s "
                       f"> on intra-cluster steps {intra:.3f} s", inter > intra))
        # On the cluster edge, the cross direction is each process's largest.
        edge = [r for r in range(h * v) if (r // v) in (h // 2 - 1, h // 2)]
        dominated = all(max(table[(r, "left")][0], table[(r, "right")][0]) >
                        max(table[(r, "top")][0], table[(r, "bottom")][0]) for r in edge)
        claims.append((f"{procs} grid {grids[0]} C=2: at every edge process left or right takes longest", dominated))

say("\nClaims")
for text, ok in claims:
    say(f"  {'yes' if ok else 'NO '}  {text}")
open(f"{out}/summary.txt", "w").write("\n".join(lines) + "\n")
PY
