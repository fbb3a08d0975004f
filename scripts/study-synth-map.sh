#!/usr/bin/env bash
# Issue 35's map of the co-allocation penalty: mcb-synth swept over the ratio of computation to
# communication (the triad's bytes per iteration at a fixed nearest-neighbour exchange) and the
# number of clusters (1, 2 and 4 at the same 4 ranks; 1..4 at 12 ranks with STUDY_RANKS) over
# emulated DAS-2-like links; Poisson and Ensflow on 1 and 2 clusters over the same links, to place
# them on the map. analysis/study_synth_map.py gives the penalty (runtime on C clusters / on 1,
# medians of the repetitions), draws it as a heat map with the two applications on it and says
# where co-allocation stays within 1.25 (docs/synth-map.md).
#
#   scripts/study-synth-map.sh [--quick] [OUT_DIR]     (default results/study-synth-map)
#
# --quick: two computation levels, clusters 1 and 2, 4 iterations, one repetition, Poisson at
# grid 40 and Ensflow at its smallest (the CTest test study_synth_map_quick; tens of seconds).
# The campaign specs are scripts/study-synth-map/*.ini, run by mcb-campaign into
# OUT_DIR/campaign/<app> (run again, it makes only the runs without a record). Environment:
# MCB_BUILD_DIR (default build); these replace the specs' values in their copies under
# OUT_DIR/specs: STUDY_BYTES (the levels), STUDY_CLUSTERS ("1 2 4": mcb-campaign splits the
# ranks evenly, so "1 2 3 4" needs STUDY_RANKS=12), STUDY_RANKS (4; mcb-synth's only),
# STUDY_PATTERN (nearest), STUDY_MESSAGE_SIZE (64KiB), STUDY_ITERATIONS (10), STUDY_REPETITIONS
# (3), STUDY_WAN_LATENCY (1ms), STUDY_WAN_BANDWIDTH (100Mbit/s). Every record holds the host's
# load average at its start (env.load_average); the summary gives their range.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_BUILD_DIR:-$root/build}"
quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
out="${1:-$root/results/study-synth-map}"
campaign="$build/bin/mcb-campaign"
[ -x "$campaign" ] || { echo "study-synth-map.sh: $campaign not built (set MCB_BUILD_DIR)" >&2; exit 2; }
# shellcheck source=scripts/mpi-env.sh
source "$root/scripts/mpi-env.sh"

if [ "$quick" -eq 1 ]; then
  : "${STUDY_BYTES:=1e6 1e8}" "${STUDY_CLUSTERS:=1 2}" "${STUDY_ITERATIONS:=4}"
  : "${STUDY_REPETITIONS:=1}" "${STUDY_MESSAGE_SIZE:=16KiB}"
fi

mkdir -p "$out/specs"
out="$(cd "$out" && pwd)"
set_value() {  # set_value SPEC KEY VALUE: the line "KEY = ..." becomes "KEY = VALUE"
  sed -i "s|^$2 = .*|$2 = $3|" "$1"
}
apps=(synth poisson ensflow)
for app in "${apps[@]}"; do
  spec="$out/specs/$app.ini"
  case "$app" in
    synth) cp "$root/scripts/study-synth-map/synth-map.ini" "$spec" ;;
    *) cp "$root/scripts/study-synth-map/$app-place.ini" "$spec" ;;
  esac
  [ -z "${STUDY_REPETITIONS:-}" ] || set_value "$spec" repetitions "$STUDY_REPETITIONS"
  [ -z "${STUDY_WAN_LATENCY:-}" ] || set_value "$spec" wan-latency "$STUDY_WAN_LATENCY"
  [ -z "${STUDY_WAN_BANDWIDTH:-}" ] || set_value "$spec" wan-bandwidth "$STUDY_WAN_BANDWIDTH"
done
spec="$out/specs/synth.ini"
[ -z "${STUDY_BYTES:-}" ] || set_value "$spec" bytes "$STUDY_BYTES"
[ -z "${STUDY_CLUSTERS:-}" ] || set_value "$spec" clusters "$STUDY_CLUSTERS"
[ -z "${STUDY_RANKS:-}" ] || set_value "$spec" ranks "$STUDY_RANKS"
[ -z "${STUDY_PATTERN:-}" ] || set_value "$spec" pattern "$STUDY_PATTERN"
[ -z "${STUDY_MESSAGE_SIZE:-}" ] || set_value "$spec" message-size "$STUDY_MESSAGE_SIZE"
[ -z "${STUDY_ITERATIONS:-}" ] || set_value "$spec" iterations "$STUDY_ITERATIONS"
if [ "$quick" -eq 1 ]; then
  set_value "$out/specs/poisson.ini" grid 40
  set_value "$out/specs/ensflow.ini" members 4
  set_value "$out/specs/ensflow.ini" days 2
  set_value "$out/specs/ensflow.ini" spinup-days 1
  set_value "$out/specs/ensflow.ini" analysis-every 1
  printf 'grid = 15\nobservations = 10\n' >> "$out/specs/ensflow.ini"
fi

started=$(date +%s)
failed=0
records=()
for app in "${apps[@]}"; do
  echo "study-synth-map.sh: $app"
  "$campaign" run "$out/specs/$app.ini" --folder "$out/campaign/$app" --progress lines ||
    failed=1
  records+=(--records "$out/campaign/$app/records.jsonl")
done
echo "study-synth-map.sh: campaigns done in $(( $(date +%s) - started )) s -> $out/campaign"
/usr/bin/python3 "$root/analysis/study_synth_map.py" "${records[@]}" --output "$out"
[ "$failed" -eq 0 ] || { echo "study-synth-map.sh: some runs failed or are not valid (above)" >&2; exit 1; }
