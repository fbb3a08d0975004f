#!/usr/bin/python3
"""Figures of simulator sweeps laid out as in the DAS-2 paper: Figure 5 (response time vs gross
utilization: policies x job mixes, one curve per co-allocation rule, saturation marked),
Figures 6-8 (response time vs gross and net utilization, one figure per policy) and the
saturation table. One sweep folder per job mix (mcb-sim --workload MIX ... --output DIR).

  /usr/bin/python3 analysis/simulation.py --sweep sim/poisson --sweep sim/ensflow \\
      --sweep sim/mixed --output DIR [--prefix das2- --title "..."]

Writes DIR/<item>.png, .svg and .json (the numbers drawn), the table as .md and .csv, and
DIR/manifest.json naming every input. A folder of a one-point run (summary.json and jobs.csv, as
one trace replay writes) gets its own items: the run's summary table, its jobs' response
times (distribution and over time), utilization and queue length over time, and, when the run
wrote batsim_jobs.csv (mcb-sim --schedule batsim), a Gantt chart of the processors.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import point_figures as pf  # noqa: E402
from mcb_analysis import schedule_figures as schedf  # noqa: E402
from mcb_analysis import sim_figures as sf  # noqa: E402
from mcb_analysis.inputs import natural_key  # noqa: E402
from mcb_analysis.output import Outputs  # noqa: E402
from mcb_analysis.sweeps import load  # noqa: E402

PROG = "simulation.py"
TITLE = "Simulations"  # the part's default title; another one is added to the item titles


def parse(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("--sweep", action="append", required=True, metavar="DIR",
                   help="sweep folder (sweep.csv + sweep.json) of one job mix, or folder of a "
                        "one-point run (summary.json + jobs.csv); repeatable")
    p.add_argument("--output", required=True, metavar="DIR", help="folder for the outputs")
    p.add_argument("--prefix", default="", help="prefix of the item names (e.g. das2-)")
    p.add_argument("--title", default=TITLE, help="title of this part in the report")
    p.add_argument("--label", help="system label for the figures' corner (default: the tables' "
                                   "systems, the clusters and the suite revision)")
    return p.parse_args(argv)


def default_label(sweeps):
    systems = sorted({s for w in sweeps for s in w.chosen_systems()}, key=natural_key)
    clusters = sorted({w.clusters() for w in sweeps})
    revisions = sorted({(w.doc.get("env") or {}).get("revision", "?") for w in sweeps})
    return (f"tables {', '.join(systems) or '?'} · clusters {', '.join(clusters)} · "
            f"mcb {', '.join(revisions)}")


def source_text(sweeps):
    parts = []
    for w in sweeps:
        p = w.provenance()
        wl = p["workload"]
        tables = p["tables"]
        parts.append(
            f"{w.csv_source.path} (mix {w.mix}, {wl.get('jobs', '?')} jobs per point, "
            f"{p['points']} points, {p['replications']} replication(s), seeds "
            f"{(p.get('seeds') or {}).get('base', '?')}, clusters {p['clusters']}, tables "
            f"{tables.get('files')} [{tables.get('statistic')}], host {p['env'].get('host')}, "
            f"{p['env'].get('date')}, revision {p['env'].get('revision')})")
    return "; ".join(parts)


def points_only(args, argv):
    """Every folder given is a one-point run: its own table and figure per run."""
    points = [pf.Point(p) for p in args.sweep]
    revisions = sorted({(p.doc.get("env") or {}).get("revision", "?") for p in points})
    label = args.label or f"one-point runs · mcb {', '.join(revisions)}"
    sources = [s for p in points for s in p.sources]
    out = Outputs("simulation", args.title, label, sources,
                  {"sweeps": [p.provenance() for p in points]})
    for k, p in enumerate(points):
        name = f"{args.prefix}run{k + 1 if len(points) > 1 else ''}"
        src = f"{p.summary_source.path}, {p.jobs_source.path}"
        for item in (pf.summary_table(p, f"{name}-summary"),
                     pf.jobs_figure(p, f"{name}-responses", label),
                     schedf.load_figure(p, f"{name}-load", label)):
            item.source = src
            out.add(item)
        if os.path.exists(os.path.join(p.path, "batsim_jobs.csv")):
            out.add(schedf.gantt_figure(p, f"{name}-gantt", label))
        else:
            out.skip(f"{name}-gantt", f"{p.path} has no batsim_jobs.csv (mcb-sim --schedule "
                     "batsim writes the processor ids a Gantt chart needs)")
    return out.write_and_list(PROG, args.output, argv)


def main(argv):
    args = parse(argv)
    cli.check_output_dir("--output", args.output)
    one_point = [pf.is_point(p) for p in args.sweep]
    if all(one_point):
        return points_only(args, argv)
    if any(one_point):
        raise cli.BadInput(f"--sweep: '{args.sweep[one_point.index(True)]}' is a one-point run "
                           "and others are sweeps; give them to separate runs of simulation.py")
    sweeps, curves = load(args.sweep)
    label = args.label or default_label(sweeps)
    sources = list({s.path: s for w in sweeps for s in w.sources}.values())  # each file once
    out = Outputs("simulation", args.title, label, sources,
                  {"sweeps": [w.provenance() for w in sweeps]})
    suffix = f" ({args.title})" if args.title != TITLE else ""
    src = source_text(sweeps)

    f = sf.figure5(curves, label, f"{args.prefix}fig5-response-vs-gross", suffix)
    f.source = src
    out.add(f)
    for key in sorted(sf.row_keys(curves),
                      key=lambda k: (sf.paper_figure_number(k[0]) or 99, k)):
        policy = key[0]
        number = sf.paper_figure_number(policy)
        name = f"Figure {number}" if number else "Figure"
        figure_id = f"{args.prefix}fig{number or ''}-gross-net-{'-'.join(k for k in key if k)}"
        if not any(c.rule != "no" for c in curves.values() if c.scheduler == key):
            out.skip(figure_id, f"{policy}: no co-allocation rule simulated (net = gross "
                     "without it)")
            continue
        f = sf.gross_net_figure(curves, key, label, figure_id, name, suffix)
        f.source = src
        out.add(f)
    t = sf.saturation_table(curves, f"{args.prefix}table-saturation",
                            "Largest utilization before saturation, gross and net, per job mix, "
                            "policy and co-allocation rule" + suffix)
    t.source = src
    out.add(t)

    return out.write_and_list(PROG, args.output, argv)


if __name__ == "__main__":
    cli.run(PROG, main)
