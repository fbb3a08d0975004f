"""The introduction of the main job's report (scripts/main-job.sh, stage 5): first a short
summary (what ran, and the penalty section, main_job.penalty_section, against the paper's), then
the details of each stage with the links the probe chose and the stages' times. The facts come from the main job; this module only
lays them out."""

# The facts the introduction needs, each a string as the main job has it.
FACTS = ("host", "cores", "date", "took_measure", "took_calibrate", "took_simulate",
         "took_analyse", "specs", "records", "not_valid", "wan_latency", "wan_bandwidth",
         "wan_scale", "probe_t1", "probe_w_ref", "probe_penalty", "probe_floor", "p_start_grid",
         "das2_penalty", "systems",
         "load_note", "p_sim_grid", "p_appendix_procs", "p_grids", "p_appendix_clusters",
         "p_sizes", "e_problem", "e_sizes", "reps", "sim_jobs", "sim_utilization",
         "sim_clusters", "sim_statistic", "penalty")

TEMPLATE = """\
**What ran:** the main job of mcb on {host} ({cores} cores), {date}: {specs} small campaigns
({records} runs, {not_valid} not VALID) on clusters emulated on this host with links of
{wan_latency} and {wan_bandwidth}, calibrated into runtime tables and replayed in the
co-allocation simulator beside the DAS-2 paper's own tables, laid out as in Banen, Bucur and
Epema (JSSPP 2003).

{penalty}

**Details of each stage:**

- **Measure** ({took_measure} s): {specs} campaigns (specs below), {records} runs, each run
  verifying itself (records that are not VALID: {not_valid}; they never enter a table). Clusters
  are emulated on this one host: every run is given links of {wan_latency} latency and {wan_bandwidth}
  per direction between its clusters (`--wan-latency`, `--wan-bandwidth`), the reference
  link of 1 ms and 100 Mbit/s scaled by {wan_scale}: probe runs (2 processes on 1 and on 2
  clusters, grid {p_sim_grid}, 300 iterations, the fastest of three each) took {probe_t1} s per
  iteration on one cluster and {probe_w_ref} s more per iteration on two over the reference link,
  and {probe_penalty} times as long on two as on one over the first scaled link; the scale is chosen
  so that two clusters take {das2_penalty} longer than one, the DAS-2's share in the paper's
  Table 4 (README, "The main job's regime"). The probes chose the grid too: starting at
  {p_start_grid}, it grows until that share is at least three times the emulation's own cost per
  iteration (not scaled with the link), which came to {probe_floor} of an iteration at grid
  {p_sim_grid}. The
  system label each application's records carry says what was emulated: {systems_listed}.
  The machine's share and load are in every record (`env.ranks_per_core`,
  `env.load_average`); {load_note}
  Poisson on the process grid {p_appendix_procs} at grid sizes {p_grids} on {appendix_clusters_listed} clusters,
  synchronized and not (the appendix), and on {p_sizes_listed} processes at
  {p_sim_grid}x{p_sim_grid} (the service times); Ensflow ({e_problem}) on
  {ensflow_listed}
  {reps} repetitions of each configuration.
- **Calibrate** ({took_calibrate} s): `mcb-calibrate --runtime-where sync=false` (runtimes of
  the unsynchronized runs, as the paper's; the communication tables keep both modes).
- **Simulate** ({took_simulate} s): `mcb-sim`, unordered requests, Worst Fit, FCFS,
  {sim_jobs} jobs per point, offered net utilization {sim_utilization}. With the tables
  measured here the system is {sim_clusters} and the job sizes are the measured ones ({p_sizes_listed}
  processes for both applications: the paper's job sizes and clusters scaled down by eight);
  with the paper's tables it is the paper's 4x32. The measured tables' service times are the
  {sim_statistic} of each configuration's repetitions (`mcb-sim --statistic {sim_statistic}`).
- **Analyse** ({took_analyse} s) and report.

Times here are measured on a machine that may be shared: each ratio above compares runs of one
job, made minutes apart, and the min/avg/max of the repetitions show the noise.
"""


def intro_markdown(facts):
    """The introduction in Markdown from `facts` (a dict with every name in FACTS, each a
    string). Lists are joined as the report prints them: `systems` ("app:labels;...") with "; ",
    the cluster counts and sizes (blank-separated) with ", ", and `e_sizes` (Ensflow's
    "ranks:components" entries, separated by ";") as "R processes (components: C); " each."""
    missing = [name for name in FACTS if name not in facts]
    if missing:
        raise KeyError(", ".join(missing))
    ensflow = "".join(f"{e.split(':', 1)[0]} processes (components: {e.split(':', 1)[1]}); "
                      for e in facts["e_sizes"].split(";") if e)
    return TEMPLATE.format(
        **facts, systems_listed=facts["systems"].replace(";", "; "),
        appendix_clusters_listed=facts["p_appendix_clusters"].replace(" ", ", "),
        p_sizes_listed=facts["p_sizes"].replace(" ", ", "), ensflow_listed=ensflow)
