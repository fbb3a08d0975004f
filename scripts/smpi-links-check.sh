#!/usr/bin/env bash
# SMPI against the on-host emulation (docs/smpi.md, "Validation"): mcb-links across two clusters
# with the emulated link (--wan-latency/--wan-bandwidth, the real MPI build) and under smpirun on
# the equivalent platform (scripts/smpi-platform.sh, the SMPI build), then the one-way time per
# message size side by side (analysis/smpi_links.py), and with the time the emulation books
# (latency + N / bandwidth). Exit 0 when every size agrees within MCB_SMPI_TOLERANCE (default
# 0.05) in both, 1 when not, 3 when SMPI agrees with the model but the emulation's own run is
# INVALID (an overloaded host: its record fails its own 10% check) and cannot be compared.
#   scripts/smpi-links-check.sh OUT
# Settings (environment): MCB_SMPI_LATENCY (1ms), MCB_SMPI_BANDWIDTH in Mbit/s (100),
# MCB_SMPI_SIZES (1:4MiB), MCB_SMPI_LINKS_ARGS (extra mcb-links options, e.g. --repetitions 2),
# MCB_SMPI_EMULATION (1; 0 compares with the model only, without running the emulation),
# MCB_SMPI_MODEL (CM02; SMPI is SimGrid's default, for comparison), MCB_BUILD_DIR (build),
# MCB_SMPI_BUILD_DIR (build-smpi). Both builds must exist
# (./mcb build, ./mcb smpi-build).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -eq 1 ] || { echo "usage: smpi-links-check.sh OUT" >&2; exit 2; }
out="$1"
build="${MCB_BUILD_DIR:-$root/build}" smpi_build="${MCB_SMPI_BUILD_DIR:-$root/build-smpi}"
latency="${MCB_SMPI_LATENCY:-1ms}" mbit="${MCB_SMPI_BANDWIDTH:-100}"
sizes="${MCB_SMPI_SIZES:-1:4MiB}" tolerance="${MCB_SMPI_TOLERANCE:-0.05}"
model="${MCB_SMPI_MODEL:-CM02}"
read -r -a extra <<< "${MCB_SMPI_LINKS_ARGS:-}"
[[ "$mbit" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "smpi-links-check.sh: MCB_SMPI_BANDWIDTH: '$mbit' is not a number of Mbit/s" >&2; exit 2; }
for program in "$build/bin/mcb-links" "$smpi_build/bin/mcb-links"; do
  [ -x "$program" ] || { echo "smpi-links-check.sh: $program: missing (./mcb build, ./mcb smpi-build)" >&2; exit 2; }
done
mkdir -p "$out"
rm -f "$out/emulation.jsonl" "$out/smpi.jsonl"
source "$root/scripts/mpi-env.sh"

# The emulation: two ranks on this host, one per cluster, the link between them emulated.
# An INVALID verdict (exit 1) is kept: it is reported below and the comparison refuses it.
emulation="${MCB_SMPI_EMULATION:-1}"
[ "$emulation" = 0 ] || mpirun -np 2 "$build/bin/mcb-links" --clusters 2 --sizes "$sizes" --wan-latency "$latency" \
  --wan-bandwidth "${mbit}Mbit/s" --counters '' --output "$out/emulation.jsonl" "${extra[@]}" \
  > "$out/emulation.log" 2>&1 || [ $? -eq 1 ]

# SMPI: the same two ranks on the platform of that link. CM02 with no factors and no
# cross-traffic: a message takes latency + size / bandwidth, as the emulation books it
# (docs/smpi.md argues against the default SMPI model). Host speed equal to the platform's:
# computing bursts last what they last on this host, as in the emulation.
"$root/scripts/smpi-platform.sh" 2 1 "$latency" "${mbit}Mbps" "$out/platform.xml"
"$root/scripts/smpi-hostfile.sh" c0,c1 2 > "$out/hosts"
smpirun -np 2 -platform "$out/platform.xml" -hostfile "$out/hosts" \
  --cfg=network/model:"$model" --cfg=network/crosstraffic:0 --cfg=smpi/host-speed:1Gf \
  --log=root.thres:warning \
  "$smpi_build/bin/mcb-links" --clusters 2 --sizes "$sizes" --output "$out/smpi.jsonl" "${extra[@]}" \
  > "$out/smpi.log" 2>&1

# SMPI against the time the emulation books (latency + N / B), then against the emulation as
# measured, which must be valid: on an overloaded host it is not, and that comparison is void.
latency_s="$(/usr/bin/python3 -c 'import sys; t = sys.argv[1]
for unit, f in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("s", 1)):
    if t.endswith(unit): print(float(t[:-len(unit)]) * f); break' "$latency")"
echo "== SMPI against the emulation's model"
model=0
/usr/bin/python3 "$root/analysis/smpi_links.py" --model "$latency_s,$(/usr/bin/python3 -c "print($mbit / 8)")" \
  --smpi "$out/smpi.jsonl" --tolerance "$tolerance" --csv "$out/model-agreement.csv" || model=$?
[ "$emulation" = 0 ] && exit "$model"
echo "== SMPI against the emulation as measured"
measured=0
/usr/bin/python3 "$root/analysis/smpi_links.py" --emulation "$out/emulation.jsonl" \
  --smpi "$out/smpi.jsonl" --tolerance "$tolerance" --csv "$out/agreement.csv" || measured=$?
grep -E "^(VALID|INVALID)" "$out/emulation.log" || true
[ "$model" -le 1 ] || exit "$model"
if [ "$measured" -eq 2 ]; then
  echo "the emulation's run is not valid (see above): SMPI compared with its model only" >&2
  [ "$model" -eq 0 ] && exit 3 || exit 1
fi
[ "$model" -eq 0 ] && [ "$measured" -eq 0 ]
