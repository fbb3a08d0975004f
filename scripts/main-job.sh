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
# Sized for a 2-core machine: at most 4 processes per run. Poisson: the appendix study on the
# process grid 4x1 (grid sizes x 1/2/4 clusters x synchronized or not) and the service times the
# simulator needs at one grid size (1, 2 and 4 processes). Ensflow: 1, 2 and 4 processes, split
# into the equal components each allows. Sizes 1/2/4 on clusters of 4 processors are the
# paper's 8/16/32 on clusters of 32, scaled down by eight.
# The paper's regime (README, "The main job's regime"): Poisson runs SOR with exact halos, which
# at the simulated grid converges in about the 2,600 iterations of the paper's Table 2, and the
# wide-area links are scaled to this machine's speed (measured by a probe run below) so that
# wide-area time per iteration is the DAS-2's share of compute per iteration.
p_options=("halo = exact" "tolerance = 1e-3")
das2_penalty=0.18   # Table 4, 16 processes: (766 - 649) / 649, wide area over compute
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
p_appendix_procs=4x1
p_size_procs="1x1 2x1 4x1"
p_sizes="1 2 4"
e_sizes=("1:1" "2:1 2" "4:1 2 4")
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
# --- the links, scaled to this machine ----------------------------------------------------
# Two probes: Poisson on 2 processes at the simulated grid, in 1 cluster and in 2 clusters over
# the reference link (1 ms, 100 Mbit/s: the DAS-2 backbone's bandwidth), 300 iterations each
# (they stop at the cap, unconverged and so INVALID: they time iterations and feed no table).
# Per iteration, compute is the 2-cluster run's compute time, and wide-area time is what the
# 2-cluster run spends beyond compute less what the 1-cluster run does (so waiting that is not
# the link's cancels out); when the 1-cluster run waited half as long or more (a busy host, whose
# spinning waits cost more than the link's sleeping ones), the 2-cluster run's alone. Latency and transfer
# time scale together by s, chosen so that wide-area time per iteration is das2_penalty times
# compute per iteration: the DAS-2's share at the paper's grid (Table 4).
scale_links() {  # prints "LATENCY BANDWIDTH SCALE COMPUTE_PER_ITERATION WAN_PER_ITERATION"
  local probe="$out/probe" clusters
  mkdir -p "$probe"
  for clusters in 1 2; do
    mpirun -np 2 "$build/bin/mcb-poisson" --grid "$p_sim_grid" --procs 2x1 \
      --clusters "$clusters" --halo exact --max-iterations 300 --wan-latency 1ms \
      --wan-bandwidth 100Mbit/s --output "$probe/records.jsonl" >>"$probe/run.log" 2>&1 || true
  done
  "$python" - "$probe/records.jsonl" "$das2_penalty" <<'PY'
import json, sys
runs = {r["config"]["components"]: r["result"]
        for r in map(json.loads, open(sys.argv[1]).read().splitlines())}
def per_iteration(r):
    compute = r["compute_time"]["avg"] / r["iterations"]
    return compute, r["wall_time"] / r["iterations"] - compute
compute, over_2 = per_iteration(runs[2])
_, over_1 = per_iteration(runs[1])
wan = max(over_2 - over_1 if over_1 < over_2 / 2 else over_2, 1e-9)
s = float(sys.argv[2]) * compute / wan
# Reference link 1 ms and 100 Mbit/s; the emulation is not meant below a few microseconds.
latency_us = max(1000.0 * s, 5.0)
bandwidth = 100.0 / (latency_us / 1000.0)
print(f"{latency_us:.0f}us {bandwidth:.0f}Mbit/s {s:.4g} {compute:.4g} {wan:.4g}")
PY
}
[ "$size" = tiny ] && wan=(1ms 100Mbit/s 1 - -) || {
  read -r -a wan < <(scale_links) ||
    { echo "main job: the link probe failed (see $out/probe/run.log)" >&2; exit 1; }
}

specs=()
specs+=("$(spec poisson-appendix poisson "procs = $p_appendix_procs" "grid = $p_grids" \
  "clusters = 1 2 4" "sync = off on" "${p_options[@]}")")
specs+=("$(spec poisson-sizes poisson "procs = $p_size_procs" "grid = $p_sim_grid" \
  "clusters = 1 2 4" "sync = off" "${p_options[@]}")")
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
read -r records not_valid systems < <("$python" - "${folders[@]/%//records.jsonl}" <<'PY'
import json, os, sys
runs = [json.loads(l) for f in sys.argv[1:] if os.path.exists(f) for l in open(f) if l.strip()]
systems = {}
for r in runs:
    systems.setdefault(r.get("app"), set()).add(str((r.get("config") or {}).get("system")))
print(len(runs), sum(r.get("status") != "valid" for r in runs),
      ";".join(f"{app}:{','.join(sorted(s))}" for app, s in sorted(systems.items())))
PY
)
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
MCB_SIM_PROBLEMS="poisson=${p_sim_grid}x${p_sim_grid} ensflow=$e_problem" \
  "$root/scripts/das2-sweeps.sh" "$out/sim/measured" "$out/tables" "$out/mixes" "$sim_clusters"
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
penalty_md="$("$python" - "$out/tables/runtimes.csv" "poisson" "${p_sim_grid}x${p_sim_grid}" \
  "${folders[@]/%//records.jsonl}" <<'PY'
import csv, json, os, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["app"] == sys.argv[2] and r["problem"] == sys.argv[3]]
avg = {(int(r["total_size"]), int(r["components"])): float(r["avg"]) for r in rows}
lo = {(int(r["total_size"]), int(r["components"])): float(r["min"]) for r in rows}
hi = {(int(r["total_size"]), int(r["components"])): float(r["max"]) for r in rows}
paper = {8: (1230.0, 1390.0, None), 16: (649.0, 766.0, 767.0), 32: (357.0, 402.0, 440.0)}
out = [f"**Co-allocation penalty of the simulated sizes** (Poisson {sys.argv[3]}: average "
       "runtime on C clusters over that on one cluster; runtimes in seconds, min-max of the "
       "repetitions in brackets), beside the paper's Table 4 (4000x4000, sizes eight times "
       "larger):", "",
       "| size | 1 cluster (s) | 2 clusters (s) | 4 clusters (s) | penalty 2 | penalty 4 "
       "| paper size | paper penalty 2 | paper penalty 4 |",
       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
def cell(k):
    return f"{avg[k]:.3g} ({lo[k]:.3g}-{hi[k]:.3g})" if k in avg else "—"
for size in sorted({s for s, _ in avg}):
    p = paper.get(8 * size)
    pen = [f"{avg[(size, c)] / avg[(size, 1)]:.2f}" if (size, c) in avg and (size, 1) in avg
           else "—" for c in (2, 4)]
    pp = [f"{p[i] / p[0]:.2f}" if p and p[i] else "—" for i in (1, 2)]
    out.append(f"| {size} | {cell((size, 1))} | {cell((size, 2))} | {cell((size, 4))} | "
               f"{pen[0]} | {pen[1]} | {8 * size} | {pp[0]} | {pp[1]} |")
loads = [json.loads(l)["env"].get("load_average") for f in sys.argv[4:] if os.path.exists(f)
         for l in open(f) if l.strip()]
loads = [x for x in loads if isinstance(x, (int, float))]
if loads:
    out += ["", f"Load average of the host when the runs began: {min(loads):.1f} to "
            f"{max(loads):.1f} (median {sorted(loads)[len(loads) // 2]:.1f}) on "
            f"{os.cpu_count()} cores."]
print("\n".join(out))
PY
)" || penalty_md="(no Poisson runtimes at the simulated grid to compare with Table 4)"
load_note="see the table below."
echo "$penalty_md" | sed 's/^/    /'

cat >"$out/intro.md" <<INTRO
This is the main job of mcb on $(hostname) ($(nproc) cores), run $(date -u +%Y-%m-%dT%H:%MZ):
a small campaign measured here, calibrated into runtime tables, replayed in the co-allocation
simulator next to the DAS-2 paper's own tables, and laid out as in Banen, Bucur and Epema
(JSSPP 2003).

- **Measure** ($((took[measure])) s): ${#specs[@]} campaigns (specs below), $records runs, each run
  verifying itself (records that are not VALID: $not_valid; they never enter a table). Clusters
  are emulated on this one host: every run is given links of ${wan[0]} latency and ${wan[1]}
  per direction between its clusters (\`--wan-latency\`, \`--wan-bandwidth\`), the reference
  link of 1 ms and 100 Mbit/s scaled by ${wan[2]}: two probe runs (2 processes on 1 and on 2
  clusters, grid ${p_sim_grid}) measured ${wan[3]} s of compute and ${wan[4]} s of wide-area time
  per iteration over the reference link, and the scale makes wide-area time $das2_penalty of compute per
  iteration, the DAS-2's share in the paper's Table 4 (README, "The main job's regime"). The
  system label each application's records carry says what was emulated: ${systems//;/; }.
  The machine's share and load are in every record (\`env.ranks_per_core\`,
  \`env.load_average\`); $load_note
  Poisson on the process grid $p_appendix_procs at grid sizes $p_grids on 1, 2 and 4 clusters,
  synchronized and not (the appendix), and on $p_sizes processes at
  ${p_sim_grid}x${p_sim_grid} (the service times); Ensflow ($e_problem) on
  $(for e in "${e_sizes[@]}"; do printf '%s processes (components: %s); ' "${e%%:*}" "${e#*:}"; done)
  $reps repetitions of each configuration.
- **Calibrate** ($((took[calibrate])) s): \`mcb-calibrate --runtime-where sync=false\` (runtimes of
  the unsynchronized runs, as the paper's; the communication tables keep both modes).
- **Simulate** ($((took[simulate])) s): \`mcb-sim\`, unordered requests, Worst Fit, FCFS,
  $MCB_SIM_JOBS jobs per point, offered net utilization $MCB_SIM_UTILIZATION. With the tables
  measured here the system is $sim_clusters and the job sizes are the measured ones ($p_sizes
  processes for both applications: the paper's job sizes and clusters scaled down by eight);
  with the paper's tables it is the paper's 4x32.
- **Analyse** ($((took[analyse])) s) and report.

$penalty_md

Times here are measured on a machine that may be shared: each ratio above compares runs of one
job, made minutes apart, and the min/avg/max of the repetitions show the noise. The DAS-2
replay shows the paper's own simulations for comparison.
INTRO
attach=()
for s in "${specs[@]}"; do attach+=(--attach "campaign $(basename "$s" .ini)=$s"); done
for m in poisson ensflow mixed; do attach+=(--attach "job mix $m (measured tables)=$out/mixes/$m.ini"); done
"$python" "$root/analysis/report.py" --part "$out/analysis/measurements" \
  --part "$out/analysis/sim-measured" --part "$out/analysis/sim-das2" --output "$out/report" \
  --title "mcb main job: measure, calibrate, simulate" --intro "$out/intro.md" "${attach[@]}" \
  | sed 's/^/    /'

printf '\nmain job: done in %ds (measure %ds, calibrate %ds, simulate %ds, analyse %ds)\n' \
  "$((SECONDS - start))" "${took[measure]}" "${took[calibrate]}" "${took[simulate]}" "${took[analyse]}"
echo "report: $out/report/report.html (self-contained) and $out/report/report.md"
[ "$failed" -eq 0 ] || { echo "main job: some runs failed (see the campaign folders)" >&2; exit 1; }
