#!/usr/bin/env bash
# The DAS-2 replay: no measurement. Simulates the paper's workloads with the paper's own service
# times (calibration/das2, Tables 4 and 5) and draws the paper's simulation figures (Figure 5,
# Figures 6-8, the saturation table) into a report, with the Figure 5 study (scripts/study-fig5.sh:
# saturation points with intervals and the paper's claims held or failed). Results in
# results/das2 (MCB_RESULTS_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${MCB_BUILD_DIR:-$root/build}" 2>/dev/null && pwd || echo "${MCB_BUILD_DIR:-$root/build}")"
out="${MCB_RESULTS_DIR:-$root/results/das2}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
python=/usr/bin/python3   # Debian's, with python3-matplotlib and python3-pandas (analysis/README.md)
export MCB_BUILD_DIR="$build"
start=$SECONDS

for program in mcb-sim; do
  [ -x "$build/bin/$program" ] || { echo "das2: $build/bin/$program is not built" >&2; exit 1; }
done
if [ -e "$out" ]; then rm -rf "$out.previous"; mv "$out" "$out.previous"; fi
mkdir -p "$out"

echo "[1/4 ${SECONDS}s] simulate: GS/LS/LP x [no]/[co]/[rco]/[fco] x three job mixes on 4x32 with calibration/das2"
"$root/scripts/das2-sweeps.sh" "$out/sim"

echo "[2/4 $((SECONDS - start))s] Figure 5 study: saturation points and the paper's claims"
"$root/scripts/study-fig5.sh" "$out/fig5-study" >"$out/fig5-study.log"
head -1 "$out/fig5-study.log" | sed 's/^/    /'

echo "[3/4 $((SECONDS - start))s] figures"
"$python" "$root/analysis/simulation.py" --sweep "$out/sim/poisson" --sweep "$out/sim/ensflow" \
  --sweep "$out/sim/mixed" --output "$out/analysis" --prefix das2- \
  --title "Simulations with the DAS-2 paper's service times" | sed 's/^/    /'

echo "[4/4 $((SECONDS - start))s] report"
cat >"$out/intro.md" <<INTRO
This report replays the DAS-2 co-allocation study (Banen, Bucur and Epema, JSSPP 2003) without
measuring anything: the simulator \`mcb-sim\` is given the paper's own service times
(\`calibration/das2/runtimes.csv\`: Table 4, Poisson on a 4000x4000 grid, and Table 5, Ensflow)
and the paper's system (4 clusters of 32 processors, unordered requests placed by Worst Fit,
FCFS queues, Poisson arrivals). For each job mix (Poisson only, Ensflow only, an even mix) it
sweeps the offered net utilization under the policies GS, LS and LP and the co-allocation rules
[no], [co], [rco] and [fco], and draws the response time against the gross utilization
(Figure 5) and against gross and net utilization (Figures 6-8, one per policy).

What to compare with the paper: [co] saturates first for every policy and mix; limiting the
component size ([rco]) and the number of components ([fco]) moves saturation to higher
utilizations; with co-allocation LS and LP do better than GS, and without it GS is best; LP
without co-allocation is LS. The largest utilization each curve reached before saturating is in
the saturation table.

Made by \`./mcb das2\` (scripts/das2-replay.sh): ${MCB_SIM_JOBS:-20000} jobs per simulated point,
offered net utilization ${MCB_SIM_UTILIZATION:-0.2:0.96:0.02} (first:last:step), seed
${MCB_SIM_SEED:-1}; simulations and figures took $((SECONDS - start)) s.

INTRO
cat "$out/fig5-study/claims.md" >>"$out/intro.md"
"$python" "$root/analysis/report.py" --part "$out/analysis" --output "$out/report" \
  --title "DAS-2 replay: the paper's simulations with its own service times" \
  --intro "$out/intro.md" --attach "runtime tables=$root/calibration/das2/runtimes.csv" \
  --attach "saturation points=$out/fig5-study/saturation.csv" \
  | sed 's/^/    /'
echo "das2: done in $((SECONDS - start))s; open $out/report/report.html (or report.md)"
