#!/usr/bin/env bash
# The DAS-2 paper's Figure 5 as a study: every curve's saturation point (job mix x GS/LS/LP x
# [no]/[co]/[rco]/[fco], 4x32, Worst Fit, FCFS, the paper's Tables 4 and 5) located by bisection
# with a 95% interval over replications, and every conclusion of sections 5 and 6 evaluated as
# held or failed (analysis/fig5_study.py says how). Prints the claims table.
#
#   scripts/study-fig5.sh [OUT_DIR] [-- extra mcb-sim options, e.g. --arrival-pass no]
#
# OUT_DIR defaults to results/study-fig5 (MCB_RESULTS_DIR). Settings from the environment:
# MCB_FIG5_JOBS (jobs per run, 20000), MCB_FIG5_REPLICATIONS (10), MCB_FIG5_RESOLUTION (0.005,
# offered net utilization), MCB_FIG5_KNEE (seconds:20000, or response:F, backlog), MCB_FIG5_SEED (1),
# MCB_FIG5_WORKERS (2), MCB_FIG5_TABLES (calibration/das2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${MCB_BUILD_DIR:-$root/build}" 2>/dev/null && pwd || echo "${MCB_BUILD_DIR:-$root/build}")"
out="${MCB_RESULTS_DIR:-$root/results/study-fig5}"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
[ -x "$build/bin/mcb-sim" ] || { echo "study-fig5: $build/bin/mcb-sim is not built" >&2; exit 1; }
exec /usr/bin/python3 "$root/analysis/fig5_study.py" --mcb-sim "$build/bin/mcb-sim" \
  --tables "${MCB_FIG5_TABLES:-$root/calibration/das2}" --output "$out" \
  --jobs "${MCB_FIG5_JOBS:-20000}" --replications "${MCB_FIG5_REPLICATIONS:-10}" \
  --resolution "${MCB_FIG5_RESOLUTION:-0.005}" --knee "${MCB_FIG5_KNEE:-seconds:20000}" \
  --seed "${MCB_FIG5_SEED:-1}" --workers "${MCB_FIG5_WORKERS:-2}" -- "$@"
