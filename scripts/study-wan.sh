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
# The study is three campaign specs (scripts/study-wan/: 2x2 on 1 and 2 clusters, 2x2 on 4
# clusters of one rank, 4x4 on 1, 2 and 4), run by mcb-campaign into OUT_DIR/campaign/<spec>
# (run again, it makes only the runs without a record); analysis/study_wan.py reads their records
# and writes table3.csv, table10.csv, fig10.csv and summary.txt into OUT_DIR.
#
# Environment: MCB_BUILD_DIR (default build); these replace the specs' values (in the copies
# under OUT_DIR/specs): STUDY_GRIDS_2X2 ("50 100 200 400 800"), STUDY_GRIDS_4X4 ("100 200 400
# 800"), STUDY_REPETITIONS (1), STUDY_TOLERANCE (1e-2), STUDY_WAN_LATENCY (1ms),
# STUDY_WAN_BANDWIDTH (100Mbit/s).
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
campaign="$build/bin/mcb-campaign"
[ -x "$campaign" ] || { echo "study-wan.sh: $campaign not built (set MCB_BUILD_DIR)" >&2; exit 2; }
# shellcheck source=scripts/mpi-env.sh
source "$root/scripts/mpi-env.sh"

# The specs as committed, with the values the environment sets instead.
mkdir -p "$out/specs"
out="$(cd "$out" && pwd)"
cp "$root/scripts/study-wan/map-2x2-4.txt" "$out/specs/"
set_value() {  # set_value SPEC KEY VALUE: the line "KEY = ..." becomes "KEY = VALUE"
  sed -i "s|^$2 = .*|$2 = $3|" "$1"
}
specs=(poisson-2x2 poisson-2x2-c4 poisson-4x4)
for name in "${specs[@]}"; do
  spec="$out/specs/$name.ini"
  cp "$root/scripts/study-wan/$name.ini" "$spec"
  # mcb-campaign checks a run in the spec's folder but starts it in the campaign folder: the
  # map's full path serves both.
  set_value "$spec" cluster-map "$out/specs/map-2x2-4.txt"
  case "$name" in
    poisson-2x2*) [ -z "${STUDY_GRIDS_2X2:-}" ] || set_value "$spec" grid "$STUDY_GRIDS_2X2" ;;
    poisson-4x4) [ -z "${STUDY_GRIDS_4X4:-}" ] || set_value "$spec" grid "$STUDY_GRIDS_4X4" ;;
  esac
  [ -z "${STUDY_REPETITIONS:-}" ] || set_value "$spec" repetitions "$STUDY_REPETITIONS"
  [ -z "${STUDY_TOLERANCE:-}" ] || set_value "$spec" tolerance "$STUDY_TOLERANCE"
  [ -z "${STUDY_WAN_LATENCY:-}" ] || set_value "$spec" wan-latency "$STUDY_WAN_LATENCY"
  [ -z "${STUDY_WAN_BANDWIDTH:-}" ] || set_value "$spec" wan-bandwidth "$STUDY_WAN_BANDWIDTH"
done

started=$(date +%s)
failed=0
records=()
for name in "${specs[@]}"; do
  echo "study-wan.sh: $name"
  "$campaign" run "$out/specs/$name.ini" --folder "$out/campaign/$name" --progress lines ||
    failed=1
  records+=(--records "$out/campaign/$name/records.jsonl")
done
echo "study-wan.sh: campaigns done in $(( $(date +%s) - started )) s -> $out/campaign"

/usr/bin/python3 "$root/analysis/study_wan.py" "${records[@]}" --output "$out"
[ "$failed" -eq 0 ] || { echo "study-wan.sh: some runs failed or are not valid (above)" >&2; exit 1; }
