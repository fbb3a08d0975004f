"""Seed 004 section 3 from a scripts/study-redundant.sh folder: global jobs' queuing times
normalized to Ideal Min by duplication factor and ranker (Figure 1, FCFS and conservative
backfilling), local jobs' queuing times across sites (Figure 2), the reduction by one
duplicate on the heterogeneous grid (Figure 5), and the paper's observations checked with 95%
intervals over the replications (the same seeds for every ranker and factor, so differences
are paired)."""

import math
import os

from mcb_analysis import cli
from mcb_analysis.fig5_claims import interval
from mcb_analysis.inputs import read_csv, read_json

RUNS = ("fcfs", "cons", "hetero")
NUMERIC = ("duplicates", "replication", "global_wait_mean", "local_wait_min", "local_wait_avg",
           "local_wait_max", "jobs_simulated", "wall_seconds")
REQUIRED = ("queue", "ranker", "verdict") + NUMERIC
RANKERS = ("random", "qlen", "workload", "est-qt", "ideal-min")
LABEL = {"random": "Random", "qlen": "Qlen", "workload": "Workload", "est-qt": "Est. QT",
         "ideal-min": "Ideal Min"}


def load_runs(study, runs, required, numeric, key):
    """{run: (rows by key(row), summary json)} for each study folder in runs; every row must be
    VALID. Both figure modules of the study read their runs through here."""
    out = {}
    for run in runs:
        path = os.path.join(study, run, "redundant.csv")
        frame, _ = read_csv(path, required, numeric)
        summary, _ = read_json(os.path.join(study, run, "redundant.json"), ("config", "speed"),
                               schema="mcb-redundant/1")
        rows = {}
        for i, r in frame.iterrows():
            if r["verdict"] != "VALID":
                raise cli.BadInput(f"{path}:{i + 2}: verdict '{r['verdict']}' is not VALID")
            rows[key(r)] = r
        out[run] = (rows, summary)
    return out


def load(study):
    """{run: (rows by (ranker, d, replication), summary json)}; every row must be VALID."""
    return load_runs(study, RUNS, REQUIRED, NUMERIC,
                     lambda r: (r["ranker"], int(r["duplicates"]), int(r["replication"])))


def series(rows, ranker, d, column, base=None):
    """Values by replication of one point; divided by `base` (a dict by replication)."""
    vals = {k[2]: float(r[column]) for k, r in rows.items() if k[0] == ranker and k[1] == d}
    if base is not None:
        vals = {rep: v / base[rep] for rep, v in vals.items() if rep in base}
    return vals


def factors(rows, ranker):
    return sorted({k[1] for k in rows if k[0] == ranker})


def normalized(rows, ranker, d):
    """Global wait / Ideal Min's without duplicates, per replication."""
    base = series(rows, "ideal-min", 0, "global_wait_mean")
    return series(rows, ranker, d, "global_wait_mean", base)


def paired(a, b):
    """Mean and half-width of a - b over the common replications."""
    reps = sorted(set(a) & set(b))
    return interval([a[r] - b[r] for r in reps])


def error_bars(stats):
    """Half-widths for matplotlib, or None when they are not all finite: one replication has no
    interval (interval() gives inf), and errorbar() fails on bars none of which is finite."""
    halves = [h for _, h in stats]
    return halves if halves and all(math.isfinite(h) for h in halves) else None


def draw(data, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    for run in ("fcfs", "cons"):
        rows, summary = data[run]
        fig, ax = plt.subplots(figsize=(6, 4))
        for ranker in RANKERS:
            ds = factors(rows, ranker)
            if not ds:
                continue
            stats = [interval(list(normalized(rows, ranker, d).values())) for d in ds]
            ax.errorbar(ds, [m for m, _ in stats], yerr=error_bars(stats), marker="o",
                        capsize=3, label=LABEL[ranker])
        cfg = summary["config"]
        ax.set_yscale("log")
        ax.set_xlabel("duplicates per global job")
        ax.set_ylabel("global queuing time / Ideal Min (d = 0)")
        ax.set_title(f"{run.upper()}, local load {cfg['local_load']}, global {cfg['global_load']}")
        ax.legend()
        paths.append(os.path.join(out, f"fig1-{run}.png"))
        cli.save_png(fig, paths[-1])
    rows, _ = data["cons"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, ranker in zip(axes, ("random", "qlen")):
        ds = factors(rows, ranker)
        for column, label in (("local_wait_max", "Local Max"), ("local_wait_avg", "Local Avg"),
                              ("local_wait_min", "Local Min")):
            stats = [interval(list(series(rows, ranker, d, column).values())) for d in ds]
            ax.errorbar(ds, [m for m, _ in stats], yerr=error_bars(stats), marker="o",
                        capsize=3, label=label)
        ax.set_title(f"local jobs, {LABEL[ranker]} (conservative)")
        ax.set_xlabel("duplicates per global job")
        ax.legend()
    axes[0].set_ylabel("mean queuing time over a site's local jobs (s)")
    paths.append(os.path.join(out, "fig2-local.png"))
    cli.save_png(fig, paths[-1])
    fig, ax = plt.subplots(figsize=(5, 4))
    bars = reductions(data)
    names = [f"{LABEL[r]}\n{g}" for (r, g) in bars]
    ax.bar(range(len(bars)), [m for m, _ in bars.values()],
           yerr=error_bars(bars.values()), capsize=4)
    ax.set_xticks(range(len(bars)), names)
    ax.set_ylabel("reduction of global queuing time by 1 duplicate (%)")
    paths.append(os.path.join(out, "fig5-hetero.png"))
    cli.save_png(fig, paths[-1])
    return paths


def reductions(data):
    """{(ranker, grid): (mean %, half-width)} of 1 - wait(d=1)/wait(d=0) per replication."""
    out = {}
    for ranker in ("qlen", "workload"):
        for run, grid in (("cons", "8x64"), ("hetero", "4x64+4x32")):
            rows, _ = data[run]
            w0 = series(rows, ranker, 0, "global_wait_mean")
            w1 = series(rows, ranker, 1, "global_wait_mean")
            out[(ranker, grid)] = interval([100 * (1 - w1[r] / w0[r]) for r in w0 if r in w1])
    return out


def fmt(mean, half):
    return f"{mean:.3g} ± {half:.2g}"


def observations(data):
    """The paper's observations, each (id, statement, held, evidence)."""
    obs = []
    for run in ("fcfs", "cons"):
        rows, _ = data[run]
        n = {(r, d): normalized(rows, r, d) for r in RANKERS for d in factors(rows, r)}
        top = max(factors(rows, "random"))
        # Duplication narrows the gap to Ideal Min: d = 2 below d = 0 for the simple rankers.
        ev, held = [], True
        for r in ("random", "qlen", "workload"):
            m, h = paired(n[(r, 2)], n[(r, 0)])
            held &= m + h < 0
            ev.append(f"{LABEL[r]} {fmt(*interval(list(n[(r, 0)].values())))} at d=0, "
                      f"{fmt(*interval(list(n[(r, 2)].values())))} at d=2")
        obs.append((f"{run}-gap", "2 duplicates narrow the gap to Ideal Min (Random, Qlen, "
                    "Workload)", held, "; ".join(ev)))
        # Random gains most from duplication (ratio d=0 / d=2).
        gain = {r: interval([n[(r, 0)][k] / n[(r, 2)][k] for k in n[(r, 0)] if k in n[(r, 2)]])
                for r in ("random", "qlen", "workload", "est-qt")}
        best = max(gain, key=lambda r: gain[r][0])
        obs.append((f"{run}-random", "Random gains most from duplication (d=0 / d=2)",
                    best == "random",
                    "; ".join(f"{LABEL[r]} {fmt(*g)}x" for r, g in gain.items())))
        # Qlen with 2 duplicates ~ Est. QT without.
        m, h = paired(n[("qlen", 2)], n[("est-qt", 0)])
        est = interval(list(n[("est-qt", 0)].values()))[0]
        obs.append((f"{run}-qlen2", "Qlen with 2 duplicates is within a marginal difference "
                    "(10%) of Est. QT without", abs(m) <= 0.1 * est or abs(m) <= h,
                    f"Qlen d=2 {fmt(*interval(list(n[('qlen', 2)].values())))}, Est. QT d=0 "
                    f"{fmt(*interval(list(n[('est-qt', 0)].values())))}, difference {fmt(m, h)}"))
        # Local jobs: 1 or 2 duplicates help, flooding degrades (Figure 2: conservative).
        for r in ("random", "qlen"):
            ev, helps = [], True
            for column in ("local_wait_avg", "local_wait_max", "local_wait_min"):
                base = series(rows, r, 0, column)
                best_d = min((1, 2), key=lambda d: interval(list(series(rows, r, d, column)
                                                                 .values()))[0])
                m, h = paired(series(rows, r, best_d, column), base)
                helps &= m < 0
                ev.append(f"{column.split('_')[-1]} d=0 {interval(list(base.values()))[0]:.0f} s,"
                          f" d={best_d} {m:+.0f} ± {h:.0f} s")
            obs.append((f"{run}-local-{r}", f"{LABEL[r]}: 1 or 2 duplicates reduce local "
                        "jobs' min, avg and max queuing times", helps, "; ".join(ev)))
            flood = series(rows, r, top, "local_wait_avg")
            m, h = paired(flood, series(rows, r, 0, "local_wait_avg"))
            obs.append((f"{run}-flood-{r}", f"{LABEL[r]}: flooding (d={top}) degrades local "
                        "jobs against no duplication", m - h > 0, f"avg {m:+.0f} ± {h:.0f} s"))
    red = reductions(data)
    ev = "; ".join(f"{LABEL[r]} {g}: {fmt(*v)}%" for (r, g), v in red.items())
    het = [v for (r, g), v in red.items() if g != "8x64"]
    obs.append(("hetero", "1 duplicate cuts Qlen's and Workload's global queuing time by about "
                "42% on the heterogeneous grid (within 15 points)",
                all(abs(m - 42) <= 15 for m, _ in het), ev))
    return obs


def markdown(data, obs):
    lines = ["# Redundant requests (seed 004 section 3)", ""]
    for run in RUNS:
        rows, summary = data[run]
        cfg, speed = summary["config"], summary["speed"]
        lines.append(f"- **{run}**: {cfg['clusters']}, {cfg['queue']}, local load "
                     f"{cfg['local_load']}, global load {cfg['global_load']} (of one "
                     f"{cfg['global_load_of']}), {cfg['global_jobs']} global jobs, "
                     f"{cfg['replications']} replications; "
                     f"{speed['jobs_simulated']} jobs in {speed['wall_seconds']:.1f} s "
                     f"({speed['jobs_per_second']:.0f} jobs/s; with duplicates "
                     f"{speed['with_duplicates_jobs_per_second']:.0f} jobs/s); every run VALID")
    for run in ("fcfs", "cons"):
        rows, _ = data[run]
        ds = factors(rows, "random")
        lines += ["", f"## Global queuing time / Ideal Min at d=0, {run} (mean ± 95%)", "",
                  "| ranker | " + " | ".join(f"d={d}" for d in ds) + " |",
                  "|---|" + "---|" * len(ds)]
        for r in RANKERS:
            cells = [fmt(*interval(list(normalized(rows, r, d).values()))) for d in ds]
            lines.append(f"| {LABEL[r]} | " + " | ".join(cells) + " |")
        base = interval(list(series(rows, "ideal-min", 0, "global_wait_mean").values()))
        lines.append(f"\nIdeal Min at d=0 waits {fmt(*base)} s.")
        lines += ["", f"## Local jobs' mean queuing time across sites (s), {run}", "",
                  "| ranker | d | min | avg | max |", "|---|---|---|---|---|"]
        for r in ("random", "qlen"):
            for d in ds:
                cells = [fmt(*interval(list(series(rows, r, d, c).values())))
                         for c in ("local_wait_min", "local_wait_avg", "local_wait_max")]
                lines.append(f"| {LABEL[r]} | {d} | " + " | ".join(cells) + " |")
    lines += ["", "## The paper's observations", "", "| id | observation | verdict | numbers |",
              "|---|---|---|---|"]
    for oid, text, held, ev in obs:
        lines.append(f"| {oid} | {text} | {'held' if held else '**failed**'} | {ev} |")
    return "\n".join(lines)
