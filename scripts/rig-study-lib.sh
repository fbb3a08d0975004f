# shellcheck shell=bash
# Sourced by the studies that run on the rig of separate batch systems (study-coalloc.sh,
# study-ensemble.sh): their common start, background workload and load generator.
#   rig_study_begin NAME DEFAULT_OUT "$@"   parses [--quick] [OUT_DIR], checks that the programs
#       in RIG_STUDY_PROGRAMS are built, exits 77 where the rig cannot run, starts the rig in
#       OUT/rig and stops it (and any load) on exit. Sets root, bin, quick, out, rig, systems.
#   rig_study_background SEED JOBS   Lublin-Feitelson jobs of a 16-processor machine (seed
#       003's model) into OUT/background.swf.
#   rig_study_load DIR JOBS FACTOR   replays them into every system, in the background, into DIR/load.
#   rig_study_load_end NAME DIR      stops that load and checks that it wrote its summary.
# say and fail print with the study's name; fail exits 1.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${MCB_BUILD_DIR:-$root/build}" 2>/dev/null && pwd || echo "${MCB_BUILD_DIR:-$root/build}")"
bin="$build/bin"
systems="slurm-a slurm-b gridengine"
rig_study_name=study
load_pid=""
say() { echo "$rig_study_name: $*"; }
fail() {
  echo "$rig_study_name: $*" >&2
  exit 1
}

rig_study_cleanup() {
  if [ -n "$load_pid" ]; then kill -INT "$load_pid" 2> /dev/null || true; wait "$load_pid" || true; fi
  "$bin/mcb-rig" stop "$rig" >> "$out/rig.log" 2>&1 || true
}

# shellcheck disable=SC2034 # quick is read by the study that sources this
rig_study_begin() {
  rig_study_name=$1
  local default_out=$2
  shift 2
  quick=0
  if [ "${1:-}" = "--quick" ]; then
    quick=1
    shift
  fi
  out="${1:-${MCB_RESULTS_DIR:-$root/results/$default_out}}"
  local p
  for p in mcb-rig mcb-load mcb-batchgrid ${RIG_STUDY_PROGRAMS:-}; do
    [ -x "$bin/$p" ] || fail "$bin/$p is not built"
  done
  if [ -e "$out/table.csv" ] || [ -d "$out/rig" ]; then fail "$out holds a study already"; fi
  local why
  if ! why="$("$bin/mcb-rig" check 2>&1)"; then
    echo "$rig_study_name: skipped: $why" >&2
    exit 77
  fi
  mkdir -p "$out"
  out="$(cd "$out" && pwd)"
  rig="$out/rig"
  "$bin/mcb-rig" start "$rig" $$ > "$out/rig.log" 2>&1 || fail "the rig did not start (see $out/rig.log)"
  trap rig_study_cleanup EXIT
  # shellcheck source=scripts/mpi-env.sh
  source "$root/scripts/mpi-env.sh"
}

rig_study_background() {
  # A quarter of their processors (a system has 4); each job goes to one system at random.
  "$bin/mcb-batchgrid" generate --size 16 --jobs "$2" --seed "$1" --interarrival 1000 \
    --output "$out/background.swf" > "$out/generate.log" ||
    fail "mcb-batchgrid generate failed (see $out/generate.log)"
}

rig_study_load() {
  "$bin/mcb-load" --systems "$rig/rig.env" --select "${systems// /,}" --trace "$out/background.swf" \
    --count "$2" --factor "$3" --procs-scale 0.25 --assign random --seed 7 \
    --output "$1/load" > "$1/load.log" 2>&1 &
  load_pid=$!
}

rig_study_load_end() {
  kill -INT "$load_pid" 2> /dev/null || true
  wait "$load_pid" || true
  load_pid=""
  [ -f "$2/load/load.json" ] || fail "$1: the background load wrote no load.json (see $2/load.log)"
}
