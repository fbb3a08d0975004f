#!/usr/bin/env bash
# Runs every libFuzzer harness in fuzz/ for SECONDS each (default 60), one per core at a time, under
# AddressSanitizer and UndefinedBehaviorSanitizer, in the clang build folder (build-fuzz) that
# ./mcb sanitize shares (scripts/sanitizer-build.sh).
#   scripts/fuzz.sh [SECONDS [HARNESS...]]
# Seeds come from tests/fixtures (and fuzz/seeds); each harness keeps its growing corpus in
# build-fuzz/corpus/NAME and writes any crashing input to build-fuzz/findings/NAME/. Prints one
# line per harness with its executions and coverage (libFuzzer's covered edges and features), and
# exits 1 when any harness found a crash, a sanitizer report or an exception other than the usage
# error.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "mcb fuzz: SECONDS '$seconds' is not a whole number > 0" >&2; exit 2; }
build="${MCB_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="$(nproc 2>/dev/null || echo 2)"

# Seeds of each harness: fixture files (globs relative to the source root).
declare -A seeds=(
  [swf]="tests/fixtures/traces/*.swf tests/fixtures/simulator/*.swf"
  [job_list]="tests/fixtures/simulator/joblist.csv"
  [runtime_table]="tests/fixtures/simulator/das2-study/*service_times.csv tests/fixtures/simulator/tables-*/runtimes.csv"
  [run_record]="tests/fixtures/records/*/*.jsonl"
  [campaign_spec]="jobscripts/examples/*.ini"
  [mix_file]="tests/fixtures/simulator/mix-small.ini"
  [platform_file]="fuzz/seeds/platform_file/*"
  [cluster_map]="fuzz/seeds/cluster_map/*"
  [config]="tests/fixtures/simulator/sim.ini fuzz/seeds/config/*"
  [command_line]="fuzz/seeds/command_line/*"
)
names=(swf job_list runtime_table run_record campaign_spec mix_file platform_file cluster_map config
       command_line)
if [ $# -gt 1 ]; then
  shift
  for name in "$@"; do
    [ -n "${seeds[$name]+set}" ] || { echo "mcb fuzz: HARNESS '$name' is not one of: ${names[*]}" >&2; exit 2; }
  done
  names=("$@")
fi

source "$root/scripts/sanitizer-build.sh"
configure_sanitizer_build "$root" "$build"
cmake --build "$build" --target fuzzers -j "$jobs"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# One harness for SECONDS; leaves its table row in findings/NAME.row and its exit status (0, or
# 1 for a finding) in findings/NAME.status.
fuzz_one() {
  local name="$1"
  local corpus="$build/corpus/$name" findings="$build/findings/$name"
  mkdir -p "$corpus" "$findings"
  ( cd "$root" && for f in ${seeds[$name]}; do [ -f "$f" ] && cp -f "$f" "$corpus/seed-$(basename "$f")"; done ) || true
  local log="$build/findings/$name.log"
  local status=0
  # Large lines (SWF has 18 fields, specs long words): inputs up to 64 KiB.
  "$build/bin/${name}_fuzz" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" \
    >"$log" 2>&1 || status=$?
  local execs cov verdict
  execs="$(awk '/stat::number_of_executed_units/ { print $2 }' "$log" | tail -n 1)"
  execs="${execs:-0}"
  # The last status line libFuzzer printed: "... cov: EDGES ft: FEATURES ...".
  cov="$(awk '/ cov: / { for (i = 1; i < NF; ++i) { if ($i == "cov:") c = $(i + 1);
                                                    if ($i == "ft:") f = $(i + 1) } }
               END { print (c ? c : "-"), (f ? f : "-") }' "$log")"
  verdict="0 crashes, 0 sanitizer reports"
  if [ "$status" -ne 0 ]; then
    verdict="FOUND: $(grep -m1 -E 'ERROR: |runtime error|not a UsageError|deadly signal' "$log" || echo "exit $status") (see $log)"
  fi
  # shellcheck disable=SC2086
  printf '%-14s %8s %12s %10s %6s %7s  %s\n' "$name" "$seconds" "$execs" "$((execs / seconds))" $cov "$verdict" \
    > "$build/findings/$name.row"
  echo "$execs" > "$build/findings/$name.execs"
  [ "$status" -eq 0 ] && echo 0 > "$build/findings/$name.status" || echo 1 > "$build/findings/$name.status"
}

# As many harnesses at a time as there are cores (MCB_FUZZ_JOBS), each for its full SECONDS: on
# two cores the ten take five rounds instead of ten (keep their number even).
parallel="${MCB_FUZZ_JOBS:-$jobs}"
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || { echo "mcb fuzz: MCB_FUZZ_JOBS '$parallel' is not a whole number > 0" >&2; exit 2; }
mkdir -p "$build/findings"
running=0
for name in "${names[@]}"; do
  rm -f "$build/findings/$name.row" "$build/findings/$name.status" "$build/findings/$name.execs"
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$name" &
  running=$((running + 1))
done
wait || true

failed=0
total=0
printf '%-14s %8s %12s %10s %6s %7s  %s\n' harness seconds executions exec/s cov ft verdict
for name in "${names[@]}"; do
  if [ -f "$build/findings/$name.row" ]; then
    cat "$build/findings/$name.row"
    total=$((total + $(cat "$build/findings/$name.execs")))
    [ "$(cat "$build/findings/$name.status")" -eq 0 ] || failed=1
  else
    echo "$name: the harness's run did not finish (see $build/findings/$name.log)"
    failed=1
  fi
done
echo "total executions: $total"
exit "$failed"
