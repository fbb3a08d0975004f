#!/usr/bin/python3
"""Tables and figures of measurements, laid out as in the DAS-2 paper, from one calibration folder
(mcb-calibrate's output): Tables 2, 3, 9, 10 and Figures 2, 3, 4, 9, 10, 11, 12.

  /usr/bin/python3 analysis/measurement.py --calibration results/main/tables --output DIR

Writes DIR/<item>.md and .csv for tables, DIR/<item>.png, .svg and .json (the numbers drawn) for
figures, and DIR/manifest.json naming every input. Items whose data the folder lacks (e.g. no
Ensflow runs) are listed in the manifest as skipped, with the reason.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import measure_figures as figs  # noqa: E402
from mcb_analysis import measure_tables as tabs  # noqa: E402
from mcb_analysis.calibration import (Calibration, Setups, mode_name, of_setup,  # noqa: E402
                                      problems_of, setups_of)
from mcb_analysis.inputs import natural_key  # noqa: E402
from mcb_analysis.output import Outputs, Table  # noqa: E402

PROG = "measurement.py"


def parse(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("--calibration", required=True, metavar="DIR",
                   help="calibration output folder (runtimes.csv, runtimes.json, comm tables)")
    p.add_argument("--output", required=True, metavar="DIR", help="folder for the outputs")
    p.add_argument("--procs", metavar="HxV",
                   help="process grid of Table 3 and the appendix figures (default: the Poisson "
                        "grid measured at the most grid sizes)")
    p.add_argument("--baseline", metavar="SYSTEM",
                   help="one-cluster system the normalised figures divide by (default: local, "
                        "else the first one-cluster system)")
    p.add_argument("--fig9-grids", metavar="N[,N..]",
                   help="grid sizes of Figure 9 (default: the smallest and the largest)")
    p.add_argument("--fig10-grid", metavar="N", help="grid size of Figure 10 (default: smallest)")
    p.add_argument("--fig10-clusters", metavar="C", type=int,
                   help="number of clusters of Figure 10 (default: 2, else the smallest above 1)")
    p.add_argument("--fig10-system", metavar="SYSTEM", help="system of Figure 10's setup")
    p.add_argument("--comm-mode", choices=["sync", "nosync"], default="sync",
                   help="mode of Figures 9, 10, 12 and Table 9 (default sync, as the paper's "
                        "appendix; the other mode when only it was run)")
    p.add_argument("--label", help="system label for the figures' corner (default: from the "
                                   "tables: systems, hosts, suite revision)")
    p.add_argument("--title", default="Measurements", help="title of this part in the report")
    return p.parse_args(argv)


def problem_name(text, problems, option):
    """'100' or '100x100' -> the problem label present in the data."""
    for p in problems:
        if text == p or text == p.split("x")[0]:
            return p
    raise cli.BadInput(f"--{option}: no grid '{text}' in the data (have: {', '.join(problems)})")


def default_label(cal):
    systems = sorted(set(cal.runtimes["system"]), key=natural_key)
    prov = cal.provenance()
    hosts = prov["hosts"] or ["?"]
    revisions = prov["revisions"] or [((prov.get("generated_by") or {}).get("revision", "?"))]
    host_text = ", ".join(hosts[:3]) + (f" +{len(hosts) - 3}" if len(hosts) > 3 else "")
    return (f"system {', '.join(systems)} · host {host_text} · mcb {', '.join(revisions)}")


def source_text(cal, files):
    prov = cal.provenance()
    parts = [", ".join(os.path.join(cal.dir, f) for f in files)]
    if prov["runtime_records"]:
        parts.append(f"{prov['runtime_records']} runtime records")
    counts = prov.get("record_counts") or {}
    if counts.get("used") is not None:
        parts.append(f"{counts['used']} valid records used by the calibration")
    if prov["hosts"]:
        parts.append("hosts " + ", ".join(prov["hosts"]))
    if prov["dates"]:
        parts.append("dates " + ", ".join(prov["dates"]))
    if prov["revisions"]:
        parts.append("revision " + ", ".join(prov["revisions"]))
    filters = prov.get("filters") or {}
    for k, v in filters.items():
        if v:
            parts.append(f"{k.replace('_', '-')} {' '.join(v)}")
    return "; ".join(parts)


RUNTIME_FILES = ["runtimes.csv", "runtimes.json"]
COMM_ITEMS = ("table9-poisson-comm-sync", "table10-poisson-comm-sync-vs-nosync", "fig9-rank-comm",
              "fig10-rank-comm-directions", "fig11-comm-normalised", "fig12-transfer-rate")


# The calibration's warnings concern one output file each; the communication tables share the
# records (and so the warnings) of comm_time.csv, and a compute fit is a fit of the runtimes.
WARNING_TABLES = {"runtimes.csv": {"runtimes.csv", "compute_fits.csv"},
                  "comm_time.csv": {"comm_time.csv"}, "comm_sync.csv": {"comm_time.csv"},
                  "rank_comm.csv": {"comm_time.csv"}, "transfer_rates.csv": {"comm_time.csv"}}


def calibration_warnings(cal, files, app):
    """The mcb-calibrate warnings (calibration.json) about the files an item is made from, for
    one application, each as a note beginning 'Warning:'."""
    tables = set().union(*(WARNING_TABLES.get(f, set()) for f in files))
    out, seen = [], set()
    for w in (cal.manifest or {}).get("warnings", []):
        what = w.get("what", "")
        if w.get("table") in tables and what not in seen and (
                what.startswith(app + ",") or what.startswith(f"compute fit {app},")):
            seen.add(what)  # one note per configuration or fit, the first table's
            out.append(f"Warning: {w.get('text')}")
    return out


def put(out, cal, item, files, notes=(), app="poisson"):
    """Adds a table or figure with its source (the files it was made from), its notes and the
    calibration's warnings about those files."""
    item.source = source_text(cal, files)
    if isinstance(item, Table):  # beside the table; its figures show the same numbers
        item.notes.extend(calibration_warnings(cal, files, app))
    item.notes.extend(notes)
    out.add(item)


def main(argv):
    args = parse(argv)
    cli.check_output_dir("--output", args.output)
    cal = Calibration(args.calibration)
    label = args.label or default_label(cal)
    out = Outputs("measurement", args.title, label, cal.sources, cal.provenance())

    # The baseline must exist somewhere; a subset without it just has no normalised figure.
    Setups(setups_of([cal.runtimes, cal.comm_sync]), args.baseline)
    for app in cal.apps():
        add_runtime_by_procs(cal, args, out, app, label)

    procs, known = tabs.choose_procs(cal, args.procs)
    if args.procs and procs is None:
        raise cli.BadInput(f"--procs: no Poisson runs on process grid '{args.procs}' "
                           f"(have: {', '.join(known) or 'none'})")
    if procs is None:
        for item in ("table3-poisson-runtime", "fig4-runtime-normalised") + COMM_ITEMS:
            out.skip(item, "no Poisson runs in the calibration folder")
    else:
        add_poisson_runtime(cal, args, out, procs, label)
        frames = [f[f["procs"] == procs] for f in (cal.comm_time, cal.comm_sync, cal.rank_comm,
                                                    cal.transfer) if f is not None]
        comm_setups = Setups(setups_of(frames), args.baseline, strict=False) \
            if any(len(f) for f in frames) else None
        add_comm_items(cal, args, out, procs, comm_setups, label)
    return out.write_and_list(PROG, args.output, argv)


def add_runtime_by_procs(cal, args, out, app, label):
    """Table 2 (or its Ensflow counterpart) and Figure 3 (Figure 2) of one application."""
    poisson = app == "poisson"
    setups = Setups(setups_of([cal.runtimes[cal.runtimes["app"] == app]]), args.baseline,
                    strict=False)
    put(out, cal, tabs.runtime_by_procs(cal, app, setups),
        RUNTIME_FILES + (["comm_time.csv"] if poisson else []), app=app)
    fig_id = "fig3-poisson-runtime-by-procs" if poisson else f"fig2-{app}-runtime-by-procs"
    name = "Figure 3" if poisson else "Figure 2"
    put(out, cal, figs.runtime_by_procs(cal, app, setups, label, fig_id,
                                        f"{name} layout: {app} runtime (s) by processors and "
                                        "clusters; bars average, whiskers min to max"),
        RUNTIME_FILES, app=app)


def add_poisson_runtime(cal, args, out, procs, label):
    """Table 3 and Figure 4: the Poisson runtimes on one process grid."""
    rt = cal.poisson_runtimes(procs)
    if not len(rt):
        out.skip("table3-poisson-runtime", f"no Poisson runtimes for process grid {procs}")
        return
    setups = Setups(setups_of([rt]), args.baseline, strict=False)
    put(out, cal, tabs.runtime_min_avg_max(cal, procs, setups), RUNTIME_FILES)
    if setups.baseline is None:
        out.skip("fig4-runtime-normalised", "no one-cluster Poisson runs on process "
                 f"grid {procs} to normalise by")
        return
    put(out, cal, figs.runtime_normalised(cal, procs, setups, label), RUNTIME_FILES)


def add_comm_items(cal, args, out, procs, setups, label):
    """Tables 9, 10 and Figures 9-12: the border-exchange times on one process grid."""
    if cal.comm_time is None or setups is None:
        for item in COMM_ITEMS:
            out.skip(item, "no communication tables (no Poisson runs, or a converted table)")
        return
    want_sync = args.comm_mode == "sync"
    modes = set(cal.comm_time[cal.comm_time["procs"] == procs]["sync"])
    sync = want_sync if want_sync in modes else (not want_sync)
    note = [] if sync == want_sync else [
        f"Only {mode_name(sync)} runs were measured; shown instead of the mode asked for."]
    put(out, cal, tabs.comm_min_avg_max(cal, procs, setups, sync),
        ["comm_time.csv", "calibration.json"], note)
    both_modes = cal.comm_sync is not None and len(cal.comm_sync[cal.comm_sync["procs"] == procs])
    if both_modes:
        put(out, cal, tabs.comm_sync_vs_nosync(cal, procs, setups),
            ["comm_sync.csv", "calibration.json"])

    if cal.rank_comm is not None:
        rc = cal.rank_comm[(cal.rank_comm["procs"] == procs) & (cal.rank_comm["sync"] == sync)]
        problems = problems_of(rc)
        if problems:
            if args.fig9_grids:
                chosen = [problem_name(g.strip(), problems, "fig9-grids")
                          for g in args.fig9_grids.split(",") if g.strip()]
            else:
                chosen = [problems[0]] if len(problems) == 1 else [problems[0], problems[-1]]
            put(out, cal, figs.rank_comm_grid(cal, procs, setups, chosen, sync, label),
                ["rank_comm.csv", "calibration.json"], note)
            add_fig10(cal, args, out, procs, setups, rc, problems, sync, label, note)
        else:
            out.skip("fig9-rank-comm", f"no per-rank times for process grid {procs}")
    if both_modes:
        if setups.baseline is not None:
            put(out, cal, figs.comm_normalised(cal, procs, setups, label),
                ["comm_sync.csv", "calibration.json"])
        else:
            out.skip("fig11-comm-normalised", f"no one-cluster runs on process grid {procs} to "
                     "normalise by")
    if cal.transfer is not None and len(cal.transfer[cal.transfer["procs"] == procs]):
        put(out, cal, figs.transfer_rate(cal, procs, setups, sync, label),
            ["transfer_rates.csv", "calibration.json"],
            note + ["Transfer rate as the paper's appendix A.4: the largest per-process border "
                    "traffic (sent plus received) divided by the communication time."])


def add_fig10(cal, args, out, procs, setups, rc, problems, sync, label, note):
    problem = problem_name(args.fig10_grid, problems, "fig10-grid") if args.fig10_grid \
        else problems[0]
    at_problem = rc[rc["problem"] == problem]
    here = {(s, int(c)) for s, c in zip(at_problem["system"], at_problem["components"])}
    multi = sorted({c for _, c in here if c > 1})
    if args.fig10_clusters is not None:
        clusters = args.fig10_clusters
    elif 2 in multi:
        clusters = 2
    elif multi:
        clusters = multi[0]
    else:
        out.skip("fig10-rank-comm-directions", f"no multi-cluster runs at grid {problem}")
        return
    candidates = [s for s in setups.order if s[1] == clusters and s in here and
                  (args.fig10_system is None or s[0] == args.fig10_system)]
    if not candidates:
        raise cli.BadInput(f"--fig10-clusters/--fig10-system: no {clusters}-cluster runs"
                           f"{' on ' + args.fig10_system if args.fig10_system else ''} at grid "
                           f"{problem}")
    setup = candidates[-1]
    directions = of_setup(at_problem, setup)
    directions = directions[directions["direction"] != "total"]
    if not len(directions) or not (directions["avg"].fillna(0) > 0).any():
        out.skip("fig10-rank-comm-directions", f"no per-direction times for "
                 f"{setups.label(setup)} at grid {problem}")
        return
    put(out, cal, figs.rank_comm_directions(cal, procs, setup, setups, problem, sync, label),
        ["rank_comm.csv", "calibration.json"], note)


if __name__ == "__main__":
    cli.run(PROG, main)
