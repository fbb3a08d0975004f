#!/usr/bin/env bash
# Seed 002's measurements ran on non-dedicated clusters under a local load. This study runs each
# campaign spec of scripts/study-nodeload/ (Poisson, and every other application with a spec
# there) on 1 and 2 emulated clusters with every host under a CPU load of 0, 25, 50 and 75%
# (--node-load, mcb-nodeload), and analysis/study_nodeload.py gives per application, problem and
# load the co-allocation penalty (runtime on 2 clusters / on 1) and the slowdown the load causes.
#
#   scripts/study-nodeload.sh [OUT_DIR]          (default results/study-nodeload)
#
# Each spec runs by mcb-campaign into OUT_DIR/<spec name> (run again, it makes only the runs
# without a record). Environment: MCB_BUILD_DIR (default build); these replace the specs' values
# in their copies under OUT_DIR/specs: STUDY_GRIDS (Poisson's "200 400"), STUDY_REPETITIONS (3),
# STUDY_LOADS ("none cpu=25% cpu=50% cpu=75%").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_BUILD_DIR:-$root/build}"
out="${1:-$root/results/study-nodeload}"
campaign="$build/bin/mcb-campaign"
[ -x "$campaign" ] || { echo "study-nodeload.sh: $campaign not built (set MCB_BUILD_DIR)" >&2; exit 2; }
# shellcheck source=scripts/mpi-env.sh
source "$root/scripts/mpi-env.sh"

mkdir -p "$out/specs"
out="$(cd "$out" && pwd)"
set_value() {  # set_value SPEC KEY VALUE: the line "KEY = ..." becomes "KEY = VALUE"
  sed -i "s|^$2 = .*|$2 = $3|" "$1"
}
started=$(date +%s)
failed=0
records=()
for source_spec in "$root"/scripts/study-nodeload/*.ini; do
  name="$(basename "$source_spec" .ini)"
  spec="$out/specs/$name.ini"
  cp "$source_spec" "$spec"
  [ -z "${STUDY_GRIDS:-}" ] || set_value "$spec" grid "$STUDY_GRIDS"
  [ -z "${STUDY_REPETITIONS:-}" ] || set_value "$spec" repetitions "$STUDY_REPETITIONS"
  [ -z "${STUDY_LOADS:-}" ] || set_value "$spec" node-load "$STUDY_LOADS"
  "$campaign" run "$spec" --folder "$out/$name" --progress lines || failed=1
  records+=(--records "$out/$name/records.jsonl")
done
echo "study-nodeload.sh: campaigns done in $(( $(date +%s) - started )) s"
/usr/bin/python3 "$root/analysis/study_nodeload.py" "${records[@]}" --output "$out"
[ "$failed" -eq 0 ] || { echo "study-nodeload.sh: some runs failed or are not valid (above)" >&2; exit 1; }
