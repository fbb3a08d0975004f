#!/usr/bin/env bash
# Seed 002's Figures 5-8 (link-aware matching) as one study: mcb-match-study matches a 12-task
# job on synthetic multiclusters with the three matchers (GLPK), varying the per-node bandwidth,
# the local activity, the nodes and the inter-cluster links, then analysis/matching_figures.py
# draws the four figures and writes the numbers (figures.md, figures.csv).
#
#   scripts/study-matching.sh [OUT_DIR] [-- extra mcb-match-study options, e.g. --seed 2]
#
# OUT_DIR defaults to results/study-matching (MCB_RESULTS_DIR); MCB_MATCH_REPLICATIONS platforms
# per point (10). The seed (1) and the time limit per match (60 s) are mcb-match-study options.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${MCB_BUILD_DIR:-$root/build}" 2>/dev/null && pwd || echo "${MCB_BUILD_DIR:-$root/build}")"
out="${MCB_RESULTS_DIR:-$root/results/study-matching}"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
[ -x "$build/bin/mcb-match-study" ] || {
  echo "study-matching: $build/bin/mcb-match-study is not built" >&2
  exit 1
}
"$build/bin/mcb-match-study" --output "$out" --replications "${MCB_MATCH_REPLICATIONS:-10}" "$@"
exec /usr/bin/python3 "$root/analysis/matching_figures.py" "$out"
