"""Seed 004 section 3, co-allocation over two sites, from a scripts/study-redundant.sh folder:
the average co-allocation time under stop-and-wait normalized to Ideal Min without duplicates
(Figure 3), and the reduction of the average queuing time of all jobs against stop-and-wait
without duplicates, by hibernation and by 2 duplicates (Figure 4; resubmission beside them),
with the paper's observations checked on 95% intervals over the replications (the same seeds
for every point, so differences are paired)."""

import os

from mcb_analysis import cli
from mcb_analysis.fig5_claims import interval
from mcb_analysis.redundant_figures import error_bars, load_runs

RUNS = ("coalloc-saw", "coalloc-hib")
NUMERIC = ("duplicates", "replication", "global_wait_mean", "all_wait_mean",
           "coalloc_hold_mean", "releases", "part_mean", "jobs_simulated", "wall_seconds")
REQUIRED = ("queue", "ranker", "sync", "verdict") + NUMERIC
RANKERS = ("random", "qlen", "est-qt", "ideal-min")
LABEL = {"random": "Random", "qlen": "Qlen", "est-qt": "Est. QT", "ideal-min": "Ideal Min"}
METHODS = (("hibernation", 0, "hibernation"), ("stop-and-wait", 2, "stop-and-wait, 2 duplicates"),
           ("resubmission", 0, "resubmission"))


def load(study):
    """{run: (rows by (sync, ranker, d, replication), summary json)}; every row VALID."""
    return load_runs(study, RUNS, REQUIRED, NUMERIC,
                     lambda r: (r["sync"], r["ranker"], int(r["duplicates"]),
                                int(r["replication"])))


def rows_of(data):
    rows = {}
    for run in RUNS:
        rows.update(data[run][0])
    return rows


def series(rows, sync, ranker, d, column):
    """Values by replication of one point."""
    return {k[3]: float(r[column]) for k, r in rows.items()
            if k[0] == sync and k[1] == ranker and k[2] == d}


def factors(rows, ranker):
    return sorted({k[2] for k in rows if k[0] == "stop-and-wait" and k[1] == ranker})


def normalized(rows, ranker, d):
    """Co-allocation time under stop-and-wait / Ideal Min's without duplicates, per replication."""
    base = series(rows, "stop-and-wait", "ideal-min", 0, "global_wait_mean")
    vals = series(rows, "stop-and-wait", ranker, d, "global_wait_mean")
    return {rep: v / base[rep] for rep, v in vals.items() if rep in base}


def reduction(rows, ranker, sync, d):
    """% reduction of all jobs' mean queuing time against stop-and-wait without duplicates."""
    base = series(rows, "stop-and-wait", ranker, 0, "all_wait_mean")
    vals = series(rows, sync, ranker, d, "all_wait_mean")
    return {rep: 100 * (1 - v / base[rep]) for rep, v in vals.items() if rep in base}


def fmt(mean, half):
    return f"{mean:.3g} ± {half:.2g}"


def stat(values):
    return interval(list(values.values()))


def draw(data, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = rows_of(data)
    fig, ax = plt.subplots(figsize=(6, 4))
    for ranker in RANKERS:
        ds = factors(rows, ranker)
        stats = [stat(normalized(rows, ranker, d)) for d in ds]
        ax.errorbar(ds, [m for m, _ in stats], yerr=error_bars(stats), marker="o",
                    capsize=3, label=LABEL[ranker])
    ax.set_yscale("log")
    ax.set_xlabel("duplicates per part request")
    ax.set_ylabel("co-allocation time / Ideal Min (d = 0)")
    ax.set_title("stop-and-wait, conservative, local 0.6, global 0.4")
    ax.legend()
    paths = [os.path.join(out, "fig3-coalloc.png")]
    cli.save_png(fig, paths[-1])
    fig, ax = plt.subplots(figsize=(7, 4))
    rankers = RANKERS[:3]
    width = 0.8 / len(METHODS)
    for k, (sync, d, label) in enumerate(METHODS):
        stats = [stat(reduction(rows, r, sync, d)) for r in rankers]
        ax.bar([i + (k - 1) * width for i in range(len(rankers))], [m for m, _ in stats],
               width, yerr=error_bars(stats), capsize=3, label=label)
    ax.axhline(0, color="black", linewidth=0.5)
    ax.set_xticks(range(len(rankers)), [LABEL[r] for r in rankers])
    ax.set_ylabel("reduction of all jobs' queuing time (%)")
    ax.set_title("against stop-and-wait without duplicates")
    ax.legend()
    paths.append(os.path.join(out, "fig4-hibernation.png"))
    cli.save_png(fig, paths[-1])
    return paths


def observations(data):
    """The paper's Figure 3 and 4 observations, each (id, statement, held, evidence)."""
    rows = rows_of(data)
    n = {(r, d): normalized(rows, r, d) for r in RANKERS for d in factors(rows, r)}
    obs = []
    ev, held = [], True
    for r in ("random", "qlen", "est-qt"):
        m, h = stat({k: n[(r, 2)][k] - n[(r, 0)][k] for k in n[(r, 0)] if k in n[(r, 2)]})
        held &= m + h < 0
        ev.append(f"{LABEL[r]} {fmt(*stat(n[(r, 0)]))} at d=0, {fmt(*stat(n[(r, 2)]))} at d=2")
    obs.append(("fig3-dup", "duplication (2 duplicates) shortens the co-allocation time of "
                "Random, Qlen and Est. QT", held, "; ".join(ev)))
    ev, held = [], True
    for d in sorted({k[1] for k in n}):
        est = stat(n[("est-qt", d)])[0]
        others = {r: stat(n[(r, d)])[0] for r in ("random", "qlen")}
        held &= all(est <= v for v in others.values())
        ev.append(f"d={d}: Est. QT {est:.3g}, Qlen {others['qlen']:.3g}, "
                  f"Random {others['random']:.3g}")
    obs.append(("fig3-estqt", "Est. QT performs better than Random and Qlen", held,
                "; ".join(ev)))
    m, h = stat({k: n[("qlen", 2)][k] - n[("est-qt", 2)][k] for k in n[("qlen", 2)]
                 if k in n[("est-qt", 2)]})
    est = stat(n[("est-qt", 2)])[0]
    obs.append(("fig3-qlen2", "with 2 duplicates Qlen is within a marginal difference (10%) of "
                "Est. QT", abs(m) <= 0.1 * est or abs(m) <= h,
                f"Qlen {fmt(*stat(n[('qlen', 2)]))}, Est. QT {fmt(*stat(n[('est-qt', 2)]))}, "
                f"difference {fmt(m, h)}"))
    low = all(stat(n[("ideal-min", 0)])[0] <= stat(n[(r, 0)])[0] for r in RANKERS)
    obs.append(("fig3-idealmin", "Ideal Min gives the shortest co-allocation time (d=0)", low,
                "; ".join(f"{LABEL[r]} {stat(n[(r, 0)])[0]:.3g}" for r in RANKERS)))
    ev, helps, similar = [], True, True
    for r in RANKERS[:3]:
        hib = reduction(rows, r, "hibernation", 0)
        dup = reduction(rows, r, "stop-and-wait", 2)
        diff = stat({k: dup[k] - hib[k] for k in hib if k in dup})
        helps &= stat(hib)[0] - stat(hib)[1] > 0
        similar &= abs(diff[0]) <= 10 or abs(diff[0]) <= diff[1]
        ev.append(f"{LABEL[r]}: hibernation {fmt(*stat(hib))}%, 2 duplicates "
                  f"{fmt(*stat(dup))}%, difference {fmt(*diff)} points")
    obs.append(("fig4-hib", "hibernation reduces the average queuing time of all jobs against "
                "stop-and-wait", helps, "; ".join(ev)))
    obs.append(("fig4-similar", "2 duplicates give a reduction similar to hibernation's (within "
                "10 points)", similar, "; ".join(ev)))
    return obs


def markdown(data):
    """The co-allocation section of redundant.md (tables; observations are listed with the
    others)."""
    rows = rows_of(data)
    lines = ["", "## Co-allocation (Figures 3 and 4)", ""]
    for run in RUNS:
        _, summary = data[run]
        cfg, speed = summary["config"], summary["speed"]
        lines.append(f"- **{run}**: {cfg['clusters']}, {cfg['queue']}, local load "
                     f"{cfg['local_load']}, global load {cfg['global_load']}, "
                     f"{', '.join(cfg['syncs'])}, lower bound {cfg['coalloc_lower']} of the "
                     f"upper, {cfg['global_jobs']} global jobs, {cfg['replications']} "
                     f"replications; {speed['jobs_simulated']} jobs in "
                     f"{speed['wall_seconds']:.1f} s ({speed['jobs_per_second']:.0f} jobs/s)")
    ds = factors(rows, "random")
    lines += ["", "Co-allocation time under stop-and-wait / Ideal Min at d=0 (mean ± 95%):", "",
              "| ranker | " + " | ".join(f"d={d}" for d in ds) + " |", "|---|" + "---|" * len(ds)]
    for r in RANKERS:
        lines.append(f"| {LABEL[r]} | " + " | ".join(fmt(*stat(normalized(rows, r, d)))
                                                      for d in ds) + " |")
    base = stat(series(rows, "stop-and-wait", "ideal-min", 0, "global_wait_mean"))
    lines.append(f"\nIdeal Min at d=0 co-allocates in {fmt(*base)} s.")
    lines += ["", "All jobs' mean queuing time (s) and idle holding (processor-s per global job):",
              "", "| ranker | method | d | all jobs' wait | reduction % | co-allocation time | "
              "held idle |", "|---|---|---|---|---|---|---|"]
    for r in RANKERS[:3]:
        for sync, d in (("stop-and-wait", 0),) + tuple((s, k) for s, k, _ in METHODS):
            cells = [fmt(*stat(series(rows, sync, r, d, c)))
                     for c in ("all_wait_mean",)]
            red = "" if (sync, d) == ("stop-and-wait", 0) else fmt(*stat(reduction(rows, r, sync,
                                                                                    d)))
            cells += [red] + [fmt(*stat(series(rows, sync, r, d, c)))
                              for c in ("global_wait_mean", "coalloc_hold_mean")]
            lines.append(f"| {LABEL[r]} | {sync} | {d} | " + " | ".join(cells) + " |")
    return lines
