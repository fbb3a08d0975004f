#!/usr/bin/env bash
# The slowest tests of a build folder's CTest runs, from CTest's own cost data
# (Testing/Temporary/CTestCostData.txt: each test's average seconds over its runs), so the next
# cut of the suite's time is measured rather than guessed. CI prints them after each test step.
#   scripts/slowest-tests.sh BUILD [COUNT]   (COUNT defaults to 15)
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: slowest-tests.sh BUILD [COUNT]" >&2
  exit 2
fi
costs="$1/Testing/Temporary/CTestCostData.txt"
count="${2:-15}"
[[ "$count" =~ ^[1-9][0-9]*$ ]] || { echo "slowest-tests.sh: COUNT '$count' is not a whole number > 0" >&2; exit 2; }
[ -f "$costs" ] || { echo "slowest-tests.sh: $costs: no cost data (run ctest in $1 first)" >&2; exit 2; }
# Lines "NAME RUNS AVERAGE_SECONDS", up to the "---" that starts the list of failed tests.
tests() { awk '$0 == "---" { exit } NF == 3' "$costs"; }
printf '%-60s %10s\n' "slowest tests (CTest cost data)" seconds
tests | sort -k3,3gr | awk -v count="$count" 'NR <= count { printf "%-60s %10.1f\n", $1, $3 }'
tests | awk '{ n++; total += $3 } END { printf "%-60s %10.1f\n", "all " n " tests, one after another", total }'
