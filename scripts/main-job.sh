#!/usr/bin/env bash
# The main job: measure -> calibrate -> simulate -> report, on this machine.
#   1. measure    a demo campaign: Poisson and Ensflow at a few sizes on 1, 2 and 4 clusters
#                 emulated on this host (wide-area links of 1 ms and 100 Mbit/s), repeated for
#                 min/avg/max; every run verifies itself and appends its record
#   2. calibrate  the records into runtime and communication tables (mcb-calibrate)
#   3. simulate   GS/LS/LP under [no]/[co]/[rco]/[fco] for three job mixes, with the tables just
#                 measured and with the DAS-2 paper's tables (calibration/das2) (mcb-sim)
#   4. analyse    the paper's tables and figures from both (analysis/)
#   5. report     results/main/report/report.html and report.md
# Options: --das2 runs only the DAS-2 replay (scripts/das2-replay.sh). MCB_MAIN_SIZE=tiny makes
# every stage small (the end-to-end test); MCB_RESULTS_DIR moves the results.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${MCB_BUILD_DIR:-$root/build}" 2>/dev/null && pwd || echo "${MCB_BUILD_DIR:-$root/build}")"
export MCB_BUILD_DIR="$build"

if [ "${1:-}" = "--das2" ]; then
  shift
  exec "$root/scripts/das2-replay.sh" "$@"
fi
if [ $# -gt 0 ]; then
  echo "main-job: unknown argument '$1' (use --das2, or none)" >&2
  exit 2
fi

out="${MCB_RESULTS_DIR:-$root/results/main}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
size="${MCB_MAIN_SIZE:-demo}"
python=/usr/bin/python3   # Debian's, with python3-matplotlib and python3-pandas (analysis/README.md)
source "$root/scripts/mpi-env.sh"
# Ranks may run on any core: on a host shared with other work, a rank bound to one core waits
# for that core while another is free (the records' env.cores_available shows the choice).
export OMPI_MCA_hwloc_base_binding_policy="${OMPI_MCA_hwloc_base_binding_policy:-none}"
# A rank waiting for a message yields its core instead of spinning: on a busy host a spinning
# rank holds the core its partner needs (2 ranks over 1 cluster ran 3 to 5 times longer than
# over 2 emulated clusters, whose waits sleep, under a load of 12 to 18).
export OMPI_MCA_mpi_yield_when_idle="${OMPI_MCA_mpi_yield_when_idle:-1}"

# --- what the demo measures ---------------------------------------------------------------
# Poisson: the appendix study on the process grid 4x1, or at the demo size the largest of 2x1
# and 1x1 that fits the cores (grid sizes x 1/2/4 clusters up to its processes x synchronized
# or not; scripts/main-sizes.sh), and the service times the simulator needs at one grid size.
# Ensflow: the same job sizes, split into the equal components each allows. Sizes 1/2/4 on clusters of 4
# processors are the paper's 8/16/32 on clusters of 32, scaled down by eight.
# The service-time runs never put more ranks on the host than it has cores (demo: the sizes
# 1, 2, 4 up to the core count; 1 and 2 on a 2-core machine). The DAS-2 gave every process its
# own processor; with two ranks to a core a run's time is mostly its ranks waiting for the
# core, and a rank waiting on the emulated link sleeps while one waiting in its own cluster
# polls, so 2 clusters came out faster than 1 (README, "The main job's regime").
# The paper's regime (README, "The main job's regime"): Poisson runs SOR with exact halos, which
# at the simulated grid converges in about the 2,600 iterations of the paper's Table 2, and the
# wide-area links are scaled to this machine's speed (measured by probe runs below) so that
# 2 clusters take the DAS-2's share longer than 1; on a core so fast that the link's share would
# sink to the emulation's own cost, the probes grow the grid as well.
p_options=("halo = exact" "tolerance = 1e-3")
max_scale=1         # the slowest links the probe may choose: the reference 1 ms, 100 Mbit/s
das2_penalty=0.18   # Table 4, 16 processes: (766 - 649) / 649, wide area over one cluster
cores="$(nproc)"
sim_statistic=min   # the runtime table's column the measured simulations use (below)
case "$size" in
  demo)
    reps=3; p_grids="128 256 512"; p_sim_grid=1024
    e_options="members = 12
days = 4
analysis-every = 2
grid = 63
spinup-days = 20"
    e_problem="m12-d4-g63"
    export MCB_SIM_JOBS="${MCB_SIM_JOBS:-10000}" MCB_SIM_UTILIZATION="${MCB_SIM_UTILIZATION:-0.2:0.96:0.04}"
    ;;
  tiny)
    reps=2; p_grids="16"; p_sim_grid=32
    e_options="members = 4
days = 2
analysis-every = 1
grid = 15
spinup-days = 2"
    e_problem="m4-d2-g15"
    export MCB_SIM_JOBS="${MCB_SIM_JOBS:-1500}" MCB_SIM_UTILIZATION="${MCB_SIM_UTILIZATION:-0.3:0.9:0.2}"
    ;;
  *) echo "main-job: MCB_MAIN_SIZE='$size' is not demo or tiny" >&2; exit 2 ;;
esac
source "$root/scripts/main-sizes.sh"
main_sizes "$size" "$cores"
p_size_procs="$(for p in $p_sizes; do printf '%sx1 ' "$p"; done)"
p_size_procs="${p_size_procs% }"
p_clusters="$(for c in 1 2 4; do if [ "$c" -le "${p_sizes##* }" ]; then printf '%s ' "$c"; fi; done)"
p_clusters="${p_clusters% }"
sim_clusters=4x4

for program in mcb-campaign mcb-poisson mcb-ensflow mcb-calibrate mcb-sim; do
  [ -x "$build/bin/$program" ] || { echo "main-job: $build/bin/$program is not built" >&2; exit 1; }
done
"$python" -c "import matplotlib, pandas" 2>/dev/null ||
  { echo "main-job: $python lacks matplotlib or pandas (apt-get install python3-matplotlib python3-pandas)" >&2; exit 1; }

if [ -e "$out" ]; then rm -rf "$out.previous"; mv "$out" "$out.previous"; fi
mkdir -p "$out/specs" "$out/mixes"
start=$SECONDS
declare -A took
stage() {  # stage NUMBER NAME TEXT
  printf '\n[%s/5 %s, %ds] %s\n' "$1" "$2" "$((SECONDS - start))" "$3"
}

# --- 1. measure ----------------------------------------------------------------------------
spec() {  # spec NAME APP OPTIONS...: writes a campaign spec, prints its path
  local name="$1" app="$2"
  shift 2
  {
    echo "# Written by scripts/main-job.sh (MCB_MAIN_SIZE=$size)."
    echo "name = main-$name"
    echo "app = $app"
    echo "binary = $build/bin/mcb-$app"
    echo "repetitions = $reps"
    echo "folder = $out/campaign/$name"
    echo "timeout = 300"
    echo "[options]"
    printf '%s\n' "$@"
    echo "wan-latency = ${wan[0]}"
    echo "wan-bandwidth = ${wan[1]}"
  } >"$out/specs/$name.ini"
  echo "$out/specs/$name.ini"
}
# --- the links and the grid, scaled to this machine ----------------------------------------
# The links are chosen so that a 2-process job on 2 clusters takes das2_penalty longer than on
# 1 cluster, as at the paper's grid (Table 4). Probe runs: Poisson on 2 processes at the
# simulated grid, 300 iterations (they stop at the cap, unconverged and so INVALID: they time
# iterations and feed no table), on 1 and on 2 clusters in turn, three times each; per iteration
# the fastest of the three counts (the least disturbed by other work on the host). First over
# the reference link (1 ms, 100 Mbit/s), then over it scaled by the first estimate; the fit
# through both is analysis/mcb_analysis/link_scale.py. The same two probes give the emulation's
# floor (what a link costs per iteration however fast it is scaled): when the link's share is
# not well above it (a fast core), the grid grows and the probes run again there.
probe_pairs() {  # probe_pairs GRID LATENCY BANDWIDTH FILE
  local k clusters
  for k in 1 2 3; do
    for clusters in 1 2; do
      mpirun -np 2 "$build/bin/mcb-poisson" --grid "$1" --procs 2x1 \
        --clusters "$clusters" --halo exact --max-iterations 300 --wan-latency "$2" \
        --wan-bandwidth "$3" --output "$4" >>"$out/probe/run.log" 2>&1 || true
    done
  done
}
# The fastest time per iteration on 1 and on 2 clusters in FILE: "T1 T2".
probe_times() {
  "$python" "$root/analysis/main_job_records.py" probe "$1"
}
# probe_round GRID: both probes at GRID; prints "T1 T2 S1 U1 U2".
probe_round() {
  local fit=("$python" "$root/analysis/main_job_links.py")
  local t1 t2 link u1 u2
  probe_pairs "$1" 1ms 100Mbit/s "$out/probe/reference-$1.jsonl"
  read -r t1 t2 < <(probe_times "$out/probe/reference-$1.jsonl")
  read -r -a link < <("${fit[@]}" first --target "$das2_penalty" --max-scale "$max_scale" "$t1" "$t2")
  probe_pairs "$1" "${link[0]}" "${link[1]}" "$out/probe/scaled-$1.jsonl"
  read -r u1 u2 < <(probe_times "$out/probe/scaled-$1.jsonl")
  echo "$t1 $t2 ${link[2]} $u1 $u2"
}
# Prints "LATENCY BANDWIDTH SCALE T1 W_REF PROBED_PENALTY GRID FLOOR_SHARE".
scale_links() {
  mkdir -p "$out/probe"
  local fit=("$python" "$root/analysis/main_job_links.py")
  local probes grid floor
  read -r -a probes < <(probe_round "$p_sim_grid")
  read -r grid floor < <("${fit[@]}" grid --target "$das2_penalty" --grid "$p_sim_grid" "${probes[@]}")
  if [ "$grid" != "$p_sim_grid" ]; then
    read -r -a probes < <(probe_round "$grid")
    read -r _ floor < <("${fit[@]}" grid --target "$das2_penalty" --grid "$grid" "${probes[@]}")
  fi
  echo "$("${fit[@]}" final --target "$das2_penalty" --max-scale "$max_scale" "${probes[@]}") $grid $floor"
}
p_start_grid="$p_sim_grid"
[ "$size" = tiny ] && wan=(1ms 100Mbit/s 1 - - - "$p_sim_grid" -) || {
  read -r -a wan < <(scale_links) && [ "${#wan[@]}" -eq 8 ] ||
    { echo "main job: the link probe failed (see $out/probe/run.log)" >&2; exit 1; }
}
p_sim_grid="${wan[6]}"

specs=()
specs+=("$(spec poisson-appendix poisson "procs = $p_appendix_procs" "grid = $p_grids" \
  "clusters = $p_appendix_clusters" "sync = off on" "${p_options[@]}")")
specs+=("$(spec poisson-sizes poisson "procs = $p_size_procs" "grid = $p_sim_grid" \
  "clusters = $p_clusters" "sync = off" "${p_options[@]}")")
for entry in "${e_sizes[@]}"; do
  ranks="${entry%%:*}"
  specs+=("$(spec "ensflow-$ranks" ensflow "ranks = $ranks" "clusters = ${entry#*:}" "$e_options")")
done

stage 1 measure "demo campaign: ${#specs[@]} specs in $out/specs, links ${wan[0]} / ${wan[1]} between emulated clusters"
t=$SECONDS
failed=0
folders=()
for s in "${specs[@]}"; do
  name="$(basename "$s" .ini)"
  folders+=("$out/campaign/$name")
  echo "  $name:"
  # On a terminal mcb-campaign redraws one progress line; in a log it writes a line per run.
  "$build/bin/mcb-campaign" run "$s" --progress auto || failed=1
done
took[measure]=$((SECONDS - t))
# Runs that did not verify stay out of every table (the calibration uses valid runs only).
# The system label each application's records carry says whether its links were emulated.
read -r records not_valid systems < <("$python" "$root/analysis/main_job_records.py" summary \
  "${folders[@]/%//records.jsonl}")
echo "  $records records, $not_valid not VALID; systems recorded: ${systems//;/ }"
[ "$failed" -eq 0 ] || echo "  (a campaign reported failures; the calibration uses valid runs only)"

# --- 2. calibrate --------------------------------------------------------------------------
stage 2 calibrate "records -> runtime and communication tables ($out/tables)"
t=$SECONDS
"$build/bin/mcb-calibrate" --input "${folders[@]}" --output "$out/tables" \
  --runtime-where sync=false --quiet ||
  { echo "main job: mcb-calibrate refused the records (above); they are kept in $out/campaign" >&2
    exit 1; }
for f in runtimes comm_time comm_sync rank_comm transfer_rates; do
  printf '    %-19s %5d rows\n' "$f.csv" "$(($(wc -l <"$out/tables/$f.csv") - 1))"
done
took[calibrate]=$((SECONDS - t))

# --- 3. simulate ---------------------------------------------------------------------------
# Job mixes of the measured sizes, named as the paper's mixes.
e_list=""
for entry in "${e_sizes[@]}"; do e_list="$e_list ${entry%%:*}"; done
printf '[poisson]\nsizes = %s\n' "$p_sizes" >"$out/mixes/poisson.ini"
printf '[ensflow]\nsizes =%s\n' "$e_list" >"$out/mixes/ensflow.ini"
printf '[poisson]\nsizes = %s\n[ensflow]\nsizes =%s\n' "$p_sizes" "$e_list" >"$out/mixes/mixed.ini"

stage 3 simulate "GS/LS/LP x [no]/[co]/[rco]/[fco] x 3 job mixes, $MCB_SIM_JOBS jobs per point, net utilization $MCB_SIM_UTILIZATION"
t=$SECONDS
echo "  with the tables measured here (clusters $sim_clusters; Poisson ${p_sim_grid}x${p_sim_grid} on $p_sizes processes, Ensflow on$e_list):"
# The fastest repetition of each configuration is its service time: the paper's Table 4 holds
# single runs on nodes PBS gave to one job at a time (Table 2, "we ran the application once"),
# and on a shared host other work only ever adds time to a run.
MCB_SIM_PROBLEMS="poisson=${p_sim_grid}x${p_sim_grid} ensflow=$e_problem" \
  "$root/scripts/das2-sweeps.sh" "$out/sim/measured" "$out/tables" "$out/mixes" "$sim_clusters" \
  -- --statistic "$sim_statistic"
echo "  with the DAS-2 paper's tables (calibration/das2, clusters 4x32):"
"$root/scripts/das2-sweeps.sh" "$out/sim/das2"
took[simulate]=$((SECONDS - t))

# --- 4. analyse ----------------------------------------------------------------------------
stage 4 analyse "tables and figures as in the DAS-2 paper ($out/analysis)"
t=$SECONDS
"$python" "$root/analysis/measurement.py" --calibration "$out/tables" \
  --output "$out/analysis/measurements" --procs "$p_appendix_procs" \
  --title "Measurements on this machine" | sed 's/^/    /'
"$python" "$root/analysis/simulation.py" --sweep "$out/sim/measured/poisson" \
  --sweep "$out/sim/measured/ensflow" --sweep "$out/sim/measured/mixed" \
  --output "$out/analysis/sim-measured" --prefix measured- \
  --title "Simulations with the tables measured here" | sed 's/^/    /'
"$python" "$root/analysis/simulation.py" --sweep "$out/sim/das2/poisson" \
  --sweep "$out/sim/das2/ensflow" --sweep "$out/sim/das2/mixed" \
  --output "$out/analysis/sim-das2" --prefix das2- \
  --title "Simulations with the DAS-2 paper's tables" | sed 's/^/    /'
took[analyse]=$((SECONDS - t))

# --- 5. report -----------------------------------------------------------------------------
stage 5 report "$out/report"
# The co-allocation penalty of the simulated sizes beside the paper's Table 4, and the load the
# runs saw (their records).
record_args=()
for f in "${folders[@]}"; do record_args+=(--records "$f/records.jsonl"); done
penalty_md="$("$python" "$root/analysis/main_job_penalty.py" --runtimes "$out/tables/runtimes.csv" \
  --problem "${p_sim_grid}x${p_sim_grid}" --statistic "$sim_statistic" --cores "$(nproc)" \
  "${record_args[@]}")" || penalty_md="(no Poisson runtimes at the simulated grid to compare with Table 4)"
load_note="see the table below."
echo "$penalty_md" | sed 's/^/    /'

e_list_intro="$(printf '%s;' "${e_sizes[@]}")"
"$python" "$root/analysis/main_job_intro.py" --output "$out/intro.md" \
  host="$(hostname)" cores="$(nproc)" date="$(date -u +%Y-%m-%dT%H:%MZ)" \
  took_measure="$((took[measure]))" took_calibrate="$((took[calibrate]))" \
  took_simulate="$((took[simulate]))" took_analyse="$((took[analyse]))" specs="${#specs[@]}" \
  records="$records" not_valid="$not_valid" wan_latency="${wan[0]}" wan_bandwidth="${wan[1]}" \
  wan_scale="${wan[2]}" probe_t1="${wan[3]}" probe_w_ref="${wan[4]}" probe_penalty="${wan[5]}" \
  probe_floor="${wan[7]}" p_start_grid="$p_start_grid" \
  das2_penalty="$das2_penalty" systems="$systems" load_note="$load_note" \
  p_sim_grid="$p_sim_grid" p_appendix_procs="$p_appendix_procs" p_grids="$p_grids" \
  p_appendix_clusters="$p_appendix_clusters" p_sizes="$p_sizes" e_problem="$e_problem" \
  e_sizes="$e_list_intro" reps="$reps" sim_jobs="$MCB_SIM_JOBS" \
  sim_utilization="$MCB_SIM_UTILIZATION" sim_clusters="$sim_clusters" \
  sim_statistic="$sim_statistic" penalty="$penalty_md"
attach=()
for s in "${specs[@]}"; do attach+=(--attach "campaign $(basename "$s" .ini)=$s"); done
for m in poisson ensflow mixed; do attach+=(--attach "job mix $m (measured tables)=$out/mixes/$m.ini"); done
"$python" "$root/analysis/report.py" --part "$out/analysis/measurements" \
  --part "$out/analysis/sim-measured" --part "$out/analysis/sim-das2" --output "$out/report" \
  --title "mcb main job: measure, calibrate, simulate" --intro "$out/intro.md" "${attach[@]}" \
  --summary measured-table-saturation --summary das2-table-saturation \
  | sed 's/^/    /'

printf '\nmain job: done in %ds (measure %ds, calibrate %ds, simulate %ds, analyse %ds)\n' \
  "$((SECONDS - start))" "${took[measure]}" "${took[calibrate]}" "${took[simulate]}" "${took[analyse]}"
echo "report: $out/report/report.html (self-contained) and $out/report/report.md"
[ "$failed" -eq 0 ] || { echo "main job: some runs failed (see the campaign folders)" >&2; exit 1; }
