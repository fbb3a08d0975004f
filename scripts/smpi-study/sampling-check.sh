#!/usr/bin/env bash
# Accuracy of the study's sampled sweep against full execution, where both are affordable:
# Poisson 4x4 on the simulated DAS-2 (PBS and Globus-2), 100 iterations, at grids 1000 and 2000.
#   full:    every sweep executed on this host; smpi/host-speed = this host's sweep rate / the
#            DAS-2 rate x 1Gf, so each executed sweep lasts what it would on a DAS-2 processor
#            (SMPI scales all host computation between MPI calls by the same factor);
#   sampled: the study's way, --sample 10 --sweep-rate DAS2_RATE at smpi/host-speed 1Gf.
#   scripts/smpi-study/sampling-check.sh [OUT]   (MCB_SMPI_BUILD_DIR: the SMPI build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
platforms="$root/platforms/smpi"
model=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0)
smpi_build="${MCB_SMPI_BUILD_DIR:-$root/build-smpi}"
out="${1:-$root/results/smpi-sampling-check}"
poisson="$smpi_build/bin/mcb-poisson"
[ -x "$poisson" ] || { echo "sampling-check: $poisson is not built (./mcb smpi-build)" >&2; exit 1; }
das2_rate=$(awk 'BEGIN { printf "%.6g", 4000 * 4000 / 8 * 2630 / 1230 }')
mkdir -p "$out"
rm -f "$out/records.jsonl"
echo fs0-0 >"$out/bench.hosts"
"$root/scripts/smpi-hostfile.sh" fs0 16 2 >"$out/1.hosts"
"$root/scripts/smpi-hostfile.sh" fs0,fs1 16 2 >"$out/2.hosts"
run() {  # platform clusters host-speed grid [options]
  local platform=$1 clusters=$2 speed=$3 grid=$4
  shift 4
  smpirun -np 16 -platform "$platforms/$platform.xml" -hostfile "$out/$clusters.hosts" \
    "${model[@]}" --cfg=smpi/host-speed:"$speed" --log=root.thres:error "$poisson" --grid "$grid" --procs 4x4 \
    --clusters "$clusters" --iterations 100 --system "$platform" --output "$out/records.jsonl" \
    --quiet "$@" >/dev/null
}
for grid in 1000 2000; do
  # This host's sweep rate at this grid's per-rank size, from one simulated rank at 1Gf.
  smpirun -np 1 -platform "$platforms/das2-pbs.xml" -hostfile "$out/bench.hosts" \
    "${model[@]}" --cfg=smpi/host-speed:1Gf --log=root.thres:error "$poisson" --grid $((grid / 4)) \
    --iterations 200 --no-instrument --output "$out/bench-$grid.jsonl" --quiet >/dev/null
  rate=$(/usr/bin/python3 - "$out/bench-$grid.jsonl" "$root/analysis" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from mcb_analysis.inputs import read_records
print("%.6g" % read_records(sys.argv[1])[-1]["verdict"]["figure_of_merit"]["value"])
PY
)
  speed=$(awk -v h="$rate" -v d="$das2_rate" 'BEGIN { printf "%.6gf", h / d * 1e9 }')
  for p in das2-pbs:1 das2-globus:2; do
    run "${p%:*}" "${p#*:}" "$speed" "$grid" --campaign full
    run "${p%:*}" "${p#*:}" 1Gf "$grid" --campaign sampled --sample 10 --sweep-rate "$das2_rate"
  done
  echo "grid $grid: host sweep rate $rate points/s, full execution at smpi/host-speed $speed"
done
/usr/bin/python3 - "$out/records.jsonl" "$root/analysis" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from mcb_analysis.inputs import read_records
runs = {}
for r in read_records(sys.argv[1]):
    c = r["config"]
    assert r["status"] == "valid", r.get("reason")
    runs[(c["grid"], c["system"], r["campaign"])] = r["result"]
print("| grid | platform | full wall (s) | sampled wall (s) | difference | full compute (s) | sampled compute (s) |")
print("|---|---|---:|---:|---:|---:|---:|")
for (grid, system, kind), full in sorted(runs.items()):
    if kind != "full":
        continue
    s = runs[(grid, system, "sampled")]
    print(f"| {grid} | {system} | {full['wall_time']:.3f} | {s['wall_time']:.3f} | "
          f"{(s['wall_time'] - full['wall_time']) / full['wall_time'] * 100:+.1f}% | "
          f"{full['compute_time']['avg']:.3f} | {s['compute_time']['avg']:.3f} |")
PY
