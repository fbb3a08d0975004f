#!/usr/bin/env bash
# Issue 35's fitted seed 002 model against measured runs: mcb-synth on 1 and 2 emulated clusters
# over two link classes under CPU loads of 0, 25 and 50% (scripts/study-job-model/*.ini, run by
# mcb-campaign), then mcb-calibrate --job-model fits eq. 1 per job and prints the median
# |relative error| per link class (docs/nodeload.md, "Seed 002's model against the runs").
#
#   scripts/study-job-model.sh [OUT_DIR]          (default results/study-job-model)
#
# The fit is written to OUT_DIR/model (job_models.csv, which mcb-sim --job-model reads;
# job_model_runs.csv: every run predicted; job_model_links.csv: the errors per link class).
# Run again, the campaign makes only the runs without a record. Environment: MCB_BUILD_DIR
# (default build); these replace the spec's values in its copy under OUT_DIR/specs:
# STUDY_BYTES (5e8), STUDY_REPETITIONS (3), STUDY_LOADS ("none cpu=25% cpu=50%"),
# STUDY_BANDWIDTHS ("100Mbit/s 20Mbit/s").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_BUILD_DIR:-$root/build}"
out="${1:-$root/results/study-job-model}"
campaign="$build/bin/mcb-campaign"
calibrate="$build/bin/mcb-calibrate"
for program in "$campaign" "$calibrate"; do
  [ -x "$program" ] || { echo "study-job-model.sh: $program not built (set MCB_BUILD_DIR)" >&2; exit 2; }
done
# shellcheck source=scripts/mpi-env.sh
source "$root/scripts/mpi-env.sh"

mkdir -p "$out/specs"
out="$(cd "$out" && pwd)"
set_value() {  # set_value SPEC KEY VALUE: the line "KEY = ..." becomes "KEY = VALUE"
  sed -i "s|^$2 = .*|$2 = $3|" "$1"
}
started=$(date +%s)
failed=0
inputs=()
for source_spec in "$root"/scripts/study-job-model/*.ini; do
  name="$(basename "$source_spec" .ini)"
  spec="$out/specs/$name.ini"
  cp "$source_spec" "$spec"
  [ -z "${STUDY_BYTES:-}" ] || set_value "$spec" bytes "$STUDY_BYTES"
  [ -z "${STUDY_REPETITIONS:-}" ] || set_value "$spec" repetitions "$STUDY_REPETITIONS"
  [ -z "${STUDY_LOADS:-}" ] || set_value "$spec" node-load "$STUDY_LOADS"
  [ -z "${STUDY_BANDWIDTHS:-}" ] || set_value "$spec" wan-bandwidth "$STUDY_BANDWIDTHS"
  "$campaign" run "$spec" --folder "$out/$name" --progress lines || failed=1
  inputs+=(--input "$out/$name/records.jsonl")
done
echo "study-job-model.sh: campaigns done in $(( $(date +%s) - started )) s;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$calibrate" --job-model "${inputs[@]}" --output "$out/model"
[ "$failed" -eq 0 ] || { echo "study-job-model.sh: some runs failed or are not valid (above)" >&2; exit 1; }
