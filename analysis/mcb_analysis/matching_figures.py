"""Seed 002's Figures 5-8 from mcb-match-study's output (matches.csv, study.json): the
communication slowdown of the Optimal and Non-Saturated matchers against the per-node bandwidth
(PNBW) and the local activity (LA) (Fig. 5), the solver time against the same axes (Fig. 6),
the Optimal matcher's solver time against PNBW and LA for several node counts (Fig. 7), and the
solver time of the three matchers against the number of inter-cluster links (Fig. 8). The paper
draws Figs. 5-7 as surfaces; here each is a family of curves over the same axes. The slowdown
plotted is the mean over the matches found (a point where no replication found a matching is
left out of its curve). The solver time is, as section 4 defines it, the time "to obtain a
feasible solution": the mean over the matches found; a search that ends in a proof of
infeasibility obtains none and is left out of the curve, and figures.csv and figures.md give
those separately (their count and mean time). The figures plot the solver's CPU time, which
on a machine shared with other work stands for the elapsed time on a dedicated one; the tables
give the wall time too. A study whose verdict is not VALID is refused.
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .cli import BadInput, save_png  # noqa: E402
from .inputs import read_csv, read_json  # noqa: E402

COLUMNS = ("figure", "clusters", "nodes_per_cluster", "nodes", "links", "pnbw", "local_activity",
           "replication", "seed", "matcher", "status", "hit_time_limit", "valid", "sp", "sc",
           "time", "saturated", "seconds", "cpu_seconds", "variables", "constraints")
NUMERIC = ("clusters", "nodes_per_cluster", "nodes", "links", "pnbw", "local_activity",
           "replication", "hit_time_limit", "valid", "sp", "sc", "time", "saturated", "seconds",
           "cpu_seconds", "variables", "constraints")
KEYS = ["figure", "matcher", "clusters", "nodes", "pnbw", "local_activity"]
LABELS = {"optimal": "Optimal", "non-saturated": "Non-Saturated",
          "first-feasible": "Non-Saturated, first feasible"}


def load(folder):
    """The study's matches and its document; refuses an INVALID study."""
    doc, _ = read_json(os.path.join(folder, "study.json"), required=("verdict", "config"))
    if doc["verdict"] != "VALID":
        raise BadInput(f"{folder}/study.json: verdict '{doc['verdict']}': an invalid study "
                       "feeds no figure")
    frame, _ = read_csv(os.path.join(folder, "matches.csv"), COLUMNS, numeric=NUMERIC,
                        strings=("valid", "sp", "sc", "time", "saturated"))
    return frame, doc


def summarise(frame):
    """One row per point and matcher: matches, found, infeasible, at the time limit, mean SC,
    share of matches that saturate a link; the solver's CPU and wall time to obtain a solution
    (mean and largest over the matches found) and its mean CPU time on the proofs of
    infeasibility."""
    rows = []
    nan = float("nan")
    for key, g in frame.groupby(KEYS, sort=True):
        found = g[g.status.isin(["optimal", "feasible"])]
        none = g[g.status == "infeasible"]
        some = len(found) > 0
        rows.append(dict(zip(KEYS, key), matches=len(g), found=len(found),
                         infeasible=len(none), time_limit=int(g.hit_time_limit.sum()),
                         sc_mean=found.sc.mean() if some else nan,
                         saturated_share=found.saturated.mean() if some else nan,
                         cpu_mean=found.cpu_seconds.mean() if some else nan,
                         cpu_max=found.cpu_seconds.max() if some else nan,
                         seconds_mean=found.seconds.mean() if some else nan,
                         seconds_max=found.seconds.max() if some else nan,
                         infeasible_cpu_mean=none.cpu_seconds.mean() if len(none) else nan))
    return pd.DataFrame(rows)


def _curves(ax, table, x, family, value, fmt):
    for level, g in table.groupby(family):
        g = g.sort_values(x)
        ax.plot(g[x], g[value], marker="o", label=fmt(level))


def _panel(ax, table, x, family, value, fmt, title, xlabel, ylabel):
    _curves(ax, table, x, family, value, fmt)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)



def draw(table, out):
    """Writes fig5.png .. fig8.png into out; returns their paths."""
    la = lambda v: f"LA {v:.0%}"  # noqa: E731
    paths = []
    f56 = table[table.figure == "5-6"]
    for number, value, ylabel in ((5, "sc_mean", "communication slowdown SC"),
                                  (6, "cpu_mean", "solver CPU time to a solution (s)")):
        fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=(number == 5))
        for i, (ax, m) in enumerate(zip(axes, ("optimal", "non-saturated"))):
            _panel(ax, f56[f56.matcher == m], "pnbw", "local_activity", value, la,
                   LABELS[m], "PNBW (share of a node's link)", ylabel if i == 0 else "")
        fig.suptitle(f"Fig. {number}: {ylabel} against PNBW and local activity")
        paths.append(os.path.join(out, f"fig{number}.png"))
        save_png(fig, paths[-1])
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    nodes = lambda v: f"{int(v)} nodes"  # noqa: E731
    _panel(axes[0], table[table.figure == "7-pnbw"], "pnbw", "nodes", "cpu_mean", nodes,
           "Optimal, LA 25%", "PNBW (share of a node's link)", "solver CPU time (s)")
    _panel(axes[1], table[table.figure == "7-la"], "local_activity", "nodes", "cpu_mean",
           nodes, "Optimal, PNBW 0.5", "local activity (share of nodes)", "solver CPU time (s)")
    fig.suptitle("Fig. 7: solver time of the Optimal matcher against the number of nodes")
    paths.append(os.path.join(out, "fig7.png"))
    save_png(fig, paths[-1])
    fig, ax = plt.subplots(figsize=(6, 4))
    f8 = table[table.figure == "8"]
    _panel(ax, f8, "clusters", "matcher", "cpu_mean", lambda m: LABELS[m],
           "8 nodes per cluster, PNBW 0.5, LA 25%", "inter-cluster links (clusters)",
           "solver CPU time to a solution (s)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    fig.suptitle("Fig. 8: solver time against the number of inter-cluster links")
    paths.append(os.path.join(out, "fig8.png"))
    save_png(fig, paths[-1])
    return paths


def markdown(table, doc):
    """The numbers behind the figures, one table per figure."""
    lines = [f"# Seed 002, Figs. 5-8: {doc['matches']} matches, verdict {doc['verdict']}", "",
             "Configuration: " + ", ".join(f"{k} {v}" for k, v in doc["config"].items()), ""]
    for fig, cols in (("5-6", ["matcher", "pnbw", "local_activity"]),
                      ("7-pnbw", ["nodes", "pnbw"]), ("7-la", ["nodes", "local_activity"]),
                      ("8", ["matcher", "links"])):
        t = table[table.figure == fig].rename(columns={"clusters": "links"})
        t = t.sort_values(cols)
        lines += [f"## Figure {fig}", "",
                  "| " + " | ".join(cols) + " | found/matches | infeasible | SC | saturated | "
                  "CPU s to a solution (mean) | (max) | wall s (mean) | (max) | "
                  "CPU s to infeasible (mean) |",
                  "|" + "---|" * (len(cols) + 9)]
        for _, r in t.iterrows():
            cells = [r[c] if isinstance(r[c], str) else f"{r[c]:g}" for c in cols] + [
                f"{r.found}/{r.matches}", str(r.infeasible), f"{r.sc_mean:.3f}",
                f"{r.saturated_share:.2f}", f"{r.cpu_mean:.4f}", f"{r.cpu_max:.4f}",
                f"{r.seconds_mean:.4f}", f"{r.seconds_max:.4f}", f"{r.infeasible_cpu_mean:.4f}"]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)
