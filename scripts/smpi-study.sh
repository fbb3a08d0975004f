#!/usr/bin/env bash
# The DAS-2 paper's Poisson measurements (seed 000, Tables 2, 3, 9 and 10) replayed at the
# paper's sizes on a simulated DAS-2 (SimGrid SMPI), calibrated, simulated with GS/LS/LP, and
# reported beside the paper's numbers (docs/smpi-study.md).
#   scripts/smpi-study.sh [OUT]        (default results/smpi-study; ./mcb smpi-study runs it)
# Environment:
#   MCB_SMPI_BUILD_DIR   the SMPI build (default build-smpi: ./mcb smpi-build)
#   MCB_BUILD_DIR        the native build, for mcb-calibrate and mcb-sim (default build)
#   MCB_STUDY_ITERATIONS iterations simulated per table configuration (default 50), scaled to
#                        the paper's count by the analysis
#   MCB_STUDY_SAMPLE     sweeps executed per rank before SMPI charges their mean (default 10)
#   MCB_STUDY_GRIDS      grids of Tables 3, 9, 10 (default "50 100 200 400 1000 2000 4000")
#   MCB_STUDY_T2_GRIDS   grids of Table 2 (default "100 1000 2000 4000")
#   MCB_STUDY_FULL       1 (default): also run Table 4's configurations under one system label,
#                        calibrate and simulate; 0 skips that step
#   MCB_STUDY_T4_GRID    grid of those runs (default 4000, the paper's); MCB_STUDY_T4_ITERATIONS
#                        their iterations (default MCB_STUDY_ITERATIONS; the paper's counts,
#                        2630-2651, run whole but take hours of simulation under load)
#   MCB_SIM_JOBS         jobs per simulated point (default 5000)
#   MCB_STUDY_REFERENCE  the paper's tables (default ../shared/reference/das2-study)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
platforms="$root/platforms/smpi"
smpi_build="${MCB_SMPI_BUILD_DIR:-$root/build-smpi}"
build="${MCB_BUILD_DIR:-$root/build}"
out="${1:-${MCB_RESULTS_DIR:-$root/results/smpi-study}}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
python=/usr/bin/python3
iterations="${MCB_STUDY_ITERATIONS:-50}"
sample="${MCB_STUDY_SAMPLE:-10}"
grids="${MCB_STUDY_GRIDS:-50 100 200 400 1000 2000 4000}"
t2_grids="${MCB_STUDY_T2_GRIDS:-100 1000 2000 4000}"
full="${MCB_STUDY_FULL:-1}"
t4_grid="${MCB_STUDY_T4_GRID:-4000}"
t4_iterations="${MCB_STUDY_T4_ITERATIONS:-$iterations}"
sim_jobs="${MCB_SIM_JOBS:-5000}"
reference="${MCB_STUDY_REFERENCE:-$root/../shared/reference/das2-study}"
# One DAS-2 processor sweeps 4000^2 / 8 points 2630 times in 1230 s on 8 processors (Table 2,
# PBS, whose communication is under 1% of the runtime: Table 9), i.e. 4.28e6 points per second.
das2_rate=$(awk 'BEGIN { printf "%.6g", 4000 * 4000 / 8 * 2630 / 1230 }')
start=$SECONDS

die() { echo "smpi-study: $*" >&2; exit 2; }
for n in "$iterations" "$sample" "$sim_jobs"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "MCB_STUDY_ITERATIONS, MCB_STUDY_SAMPLE, MCB_SIM_JOBS: '$n' is not a positive whole number"
done
command -v smpirun >/dev/null || { echo "smpi-study: smpirun not found (Debian: libsimgrid-dev)" >&2; exit 1; }
[ -x "$smpi_build/bin/mcb-poisson" ] || { echo "smpi-study: $smpi_build/bin/mcb-poisson is not built (./mcb smpi-build)" >&2; exit 1; }
[ -d "$reference" ] || die "MCB_STUDY_REFERENCE: '$reference' is not a folder"
if [ "$full" = 1 ]; then
  for p in mcb-calibrate mcb-sim; do
    [ -x "$build/bin/$p" ] || { echo "smpi-study: $build/bin/$p is not built (./mcb build)" >&2; exit 1; }
  done
fi
if [ -e "$out" ]; then rm -rf "$out.previous"; mv "$out" "$out.previous"; fi
mkdir -p "$out/hosts" "$out/logs"

# One run line per configuration: GRID PROCS RANKS CLUSTERS NETWORK SYNC ITERATIONS SYSTEM.
runs="$out/runs.txt"
: >"$runs"
ranks_of() { echo $((${1%x*} * ${1#*x})); }
# The DAS-2 clusters a run takes: the first C of platforms/smpi/ (fs0 has 72 dual nodes, the
# others 32), with two processes on each dual node, one per processor (seed 000, section 3.2:
# "we assign only one process to a processor").
clusters_of() {
  case "$1" in 1) echo fs0 ;; 2) echo fs0,fs1 ;; 4) echo fs0,fs1,fs2,fs3 ;; *) die "no DAS-2 placement for $1 clusters" ;; esac
}
add() {  # grid procs clusters network sync iterations system
  local hostfile="$out/hosts/$2-$3" n
  n=$(ranks_of "$2")
  [ -e "$hostfile" ] || "$root/scripts/smpi-hostfile.sh" "$(clusters_of "$3")" "$n" 2 >"$hostfile"
  echo "$1 $2 $n $3 $4 $5 $6 $7" >>"$runs"
}
iterations_of() {  # the paper's iteration count of a cell: Table 2 (grid, procs) or Table 9 (grid)
  awk -F, -v g="$1" -v p="$2" 'NR > 1 && $1 == g && $3 == p { print $4; exit }' \
    "$reference/poisson_runtime_by_procs.csv"
}
for grid in $t2_grids; do
  for procs in 4x2 4x4 8x4 8x8; do
    add "$grid" "$procs" 1 pbs off "$iterations" smpi-das2-pbs
    [ "$procs" = 8x8 ] || add "$grid" "$procs" 1 globus off "$iterations" smpi-das2-globus
    add "$grid" "$procs" 2 globus off "$iterations" smpi-das2-globus
    add "$grid" "$procs" 4 globus off "$iterations" smpi-das2-globus
  done
done
for grid in $grids; do
  for c in pbs:1 globus:1 globus:2 globus:4; do
    net=${c%:*} clusters=${c#*:} system=smpi-das2-${c%:*}
    case " $t2_grids " in *" $grid "*) ;; *) add "$grid" 4x4 "$clusters" "$net" off "$iterations" "$system" ;; esac
    add "$grid" 4x4 "$clusters" "$net" on "$iterations" "$system"
  done
done
if [ "$full" = 1 ]; then
  # Table 4's configurations (grid 4000; 8, 16, 32 processors; 1, 2, 4 components): the
  # service times of the simulations, under one system label as in Table 4 (PBS for one
  # component, Globus-C for C). They ran t4_iterations of the paper's 2630-2651 iterations:
  # every service time is short by the same factor (within 0.5%), which leaves the sweeps'
  # utilizations and saturation points as they are (response times are for the short runs);
  # the analysis scales Table 4 by t4_iterations / 2644 (the paper's count at 4x4).
  for procs in 4x2 4x4 8x4; do
    n="$t4_iterations"
    add "$t4_grid" "$procs" 1 pbs off "$n" smpi-das2
    add "$t4_grid" "$procs" 2 globus off "$n" smpi-das2
    [ "$procs" = 4x2 ] || add "$t4_grid" "$procs" 4 globus off "$n" smpi-das2
  done
fi
total=$(wc -l <"$runs")

echo "[1/4 $((SECONDS - start))s] measure: $total simulated runs, $iterations iterations each, sweep sampled after $sample, 2 at a time"
measure_one() {  # the fields of one line of runs.txt
  local grid=$1 procs=$2 n=$3 clusters=$4 net=$5 sync=$6 its=$7 system=$8
  local name="$system-$grid-$procs-$clusters-$sync-$its" flag=()
  [ "$sync" = on ] && flag=(--sync)
  smpirun -np "$n" -platform "$platforms/das2-$net.xml" -hostfile "$out/hosts/$procs-$clusters" \
    --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=smpi/host-speed:1Gf \
    --log=root.thres:error \
    "$smpi_build/bin/mcb-poisson" --grid "$grid" --procs "$procs" --clusters "$clusters" \
    --iterations "$its" --sample "$sample" --sweep-rate "$das2_rate" ${flag[@]+"${flag[@]}"} --system "$system" \
    --campaign smpi-study --run-id "smpi-study-$name" \
    --output "$out/records/$name.jsonl" --quiet >"$out/logs/$name.log" 2>&1 \
    || echo "smpi-study: run $name failed (see $out/logs/$name.log)" >&2
}
export -f measure_one
export out platforms smpi_build sample das2_rate
mkdir -p "$out/records"
measure_start=$SECONDS
xargs -P 2 -L 1 bash -c 'measure_one "$@"' _ <"$runs"
cat "$out"/records/*.jsonl >"$out/records.jsonl"
valid=$(grep -c '"status":"valid"' "$out/records.jsonl" || true)
echo "    $valid of $total runs valid in $((SECONDS - measure_start))s"

calibrated=""
if [ "$full" = 1 ]; then
  echo "[2/4 $((SECONDS - start))s] calibrate: Table 4's runs into runtime tables"
  "$build/bin/mcb-calibrate" --input "$out/records.jsonl" --where system=smpi-das2 \
    --output "$out/tables" --quiet
  speed=$(awk -v k="$t4_iterations" 'BEGIN { printf "%.6g", k / 2644 }')
  echo "    simulate: GS/LS/LP x [no]/[co]/[rco]/[fco], Poisson jobs on 4x32, with the simulated tables ($t4_iterations iterations) and with the paper's (Table 4)"
  for t in simulated:"$out/tables" paper:"$root/calibration/das2"; do
    "$build/bin/mcb-sim" --workload poisson --tables "${t#*:}" --clusters 4x32 \
      --policy gs,ls,lp --rule no,co,rco,fco --utilization 0.2:0.96:0.04 --jobs "$sim_jobs" \
      --seed 1 --no-jobs-csv --output "$out/sim-${t%%:*}" >/dev/null &
  done
  wait
  calibrated="--tables $out/tables/runtimes.csv --tables-scale $speed --sweep simulated=$out/sim-simulated --sweep paper=$out/sim-paper"
fi

echo "[3/4 $((SECONDS - start))s] analysis: the paper's tables beside the simulated ones"
# shellcheck disable=SC2086
"$python" "$root/analysis/smpi_study.py" --records "$out/records.jsonl" \
  --system PBS=smpi-das2-pbs --system Globus=smpi-das2-globus --reference "$reference" \
  --output "$out/analysis" $calibrated | sed 's/^/    /'
cat >"$out/intro.md" <<INTRO
The DAS-2 paper's Poisson measurements (Banen, Bucur and Epema, JSSPP 2003: Tables 2, 3, 9 and 10)
replayed with the unchanged mcb-poisson on a simulated DAS-2 (SimGrid SMPI, network model CM02;
platforms platforms/smpi/das2-pbs.xml and das2-globus.xml, docs/smpi.md and docs/smpi-study.md). Each configuration ran
$iterations iterations; each rank executed its first $sample sweeps, and every sweep was charged
at $das2_rate points per second (a DAS-2 processor, from Table 2); times are scaled to the
paper's iteration count of each cell. $valid of $total runs valid; the
whole study took $((SECONDS - start)) s.
INTRO
echo "[4/4 $((SECONDS - start))s] report"
"$python" "$root/analysis/report.py" --part "$out/analysis" --output "$out/report" \
  --title "The DAS-2 paper's Poisson tables on a simulated DAS-2" --intro "$out/intro.md" \
  | sed 's/^/    /'
echo "smpi-study: done in $((SECONDS - start))s; open $out/report/report.html (or $out/analysis/smpi-study.md)"
