#!/usr/bin/env bash
# Seed 000's expectation (section 7): an application that overlaps communication with computation
# should suffer less from slow wide-area links. Poisson (2x2 ranks) on 1 and 2 clusters joined by
# emulated DAS-2-like links (1 ms, 100 Mbit/s), with --halo exact and --halo overlap, over a range
# of grid sizes; analysis/study_overlap.py then gives each mode's multicluster penalty (runtime on
# 2 clusters / on 1, medians of the repetitions) and says whether overlap lowers it.
#
#   scripts/study-overlap.sh [OUT_DIR]          (default results/study-overlap)
#
# The campaign spec is scripts/study-overlap/poisson-overlap.ini, run by mcb-campaign into
# OUT_DIR/campaign (run again, it makes only the runs without a record). Environment:
# MCB_BUILD_DIR (default build); these replace the spec's values in its copy under OUT_DIR/specs:
# STUDY_GRIDS ("100 200 400 800"), STUDY_REPETITIONS (3), STUDY_WAN_LATENCY (1ms),
# STUDY_WAN_BANDWIDTH (100Mbit/s).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_BUILD_DIR:-$root/build}"
out="${1:-$root/results/study-overlap}"
campaign="$build/bin/mcb-campaign"
[ -x "$campaign" ] || { echo "study-overlap.sh: $campaign not built (set MCB_BUILD_DIR)" >&2; exit 2; }
# shellcheck source=scripts/mpi-env.sh
source "$root/scripts/mpi-env.sh"

mkdir -p "$out/specs"
out="$(cd "$out" && pwd)"
spec="$out/specs/poisson-overlap.ini"
cp "$root/scripts/study-overlap/poisson-overlap.ini" "$spec"
set_value() {  # set_value KEY VALUE: the line "KEY = ..." becomes "KEY = VALUE"
  sed -i "s|^$1 = .*|$1 = $2|" "$spec"
}
[ -z "${STUDY_GRIDS:-}" ] || set_value grid "$STUDY_GRIDS"
[ -z "${STUDY_REPETITIONS:-}" ] || set_value repetitions "$STUDY_REPETITIONS"
[ -z "${STUDY_WAN_LATENCY:-}" ] || set_value wan-latency "$STUDY_WAN_LATENCY"
[ -z "${STUDY_WAN_BANDWIDTH:-}" ] || set_value wan-bandwidth "$STUDY_WAN_BANDWIDTH"

started=$(date +%s)
failed=0
"$campaign" run "$spec" --folder "$out/campaign" --progress lines || failed=1
echo "study-overlap.sh: campaign done in $(( $(date +%s) - started )) s -> $out/campaign"
/usr/bin/python3 "$root/analysis/study_overlap.py" --records "$out/campaign/records.jsonl" \
  --output "$out"
[ "$failed" -eq 0 ] || { echo "study-overlap.sh: some runs failed or are not valid (above)" >&2; exit 1; }
