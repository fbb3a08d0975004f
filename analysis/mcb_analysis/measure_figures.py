"""The DAS-2 paper's measurement figures from a calibration folder: Figures 2/3 (runtime by
processors and clusters), 4 (runtime normalised to one cluster), 9 (per-process border-exchange
time over the process grid), 10 (the same per direction), 11 (border-exchange time normalised,
synchronized and not) and 12 (border-exchange transfer rate). Each returns an output.Figure whose
data are the numbers drawn."""

import math
import textwrap

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import colors as mcolors
from matplotlib import ticker as mticker

from .inputs import natural_key
from .output import Figure, clean, corner

PALETTE = ["#1b4f9c", "#e08214", "#2a9d3a", "#c0392b", "#7b3294", "#8c564b", "#17becf",
           "#7f7f7f"]
DIRECTIONS = ["top", "bottom", "left", "right"]
MB = 1e6  # the paper's Mbyte/s: 10^6 bytes per second


def legend_right(ax):
    """The legend beside the axes, entries in the order the bars or curves are drawn."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, borderaxespad=0)


def wrap(title, fig, points=9.5):
    """Breaks a title into lines that fit the figure's width."""
    width = fig.get_figwidth() * 72 / (points * 0.55)
    return "\n".join(textwrap.wrap(title, max(int(width), 30)))


def colour(i):
    return PALETTE[i % len(PALETTE)]


def grid_of(problem):
    """'100x100' -> 100 (the grid side), for axis positions."""
    try:
        return int(str(problem).split("x")[0])
    except ValueError:
        return None


def _bars(ax, categories, series, ylabel, log=False, baseline_line=None):
    """Grouped bars: one group per category, one bar per series (in legend order)."""
    n = max(len(series), 1)
    width = 0.8 / n
    x = np.arange(len(categories))
    for i, s in enumerate(series):
        y = np.array([np.nan if v is None else v for v in s["y"]], dtype=float)
        kw = {}
        if s.get("ymin") is not None:
            lo = np.array([np.nan if v is None else v for v in s["ymin"]], dtype=float)
            hi = np.array([np.nan if v is None else v for v in s["ymax"]], dtype=float)
            kw["yerr"] = np.vstack([np.nan_to_num(y - lo), np.nan_to_num(hi - y)])
            kw["error_kw"] = {"elinewidth": 0.8, "capsize": 1.5, "ecolor": "0.25"}
        ax.bar(x - 0.4 + width * (i + 0.5), np.nan_to_num(y), width, label=s["label"],
               color=colour(s["colour"]), **kw)
    ax.set_xticks(x)
    ax.set_xticklabels(categories)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    if baseline_line is not None:
        ax.axhline(baseline_line, color="0.3", linewidth=0.8, linestyle="--")
    ax.grid(axis="y", linewidth=0.4, alpha=0.5)
    ax.set_axisbelow(True)


def _panel(title, xlabel, ylabel, categories, series, kind="bars", **extra):
    out = {"title": title, "xlabel": xlabel, "ylabel": ylabel, "kind": kind,
           "x": list(categories), "series": [], "legend": [s["label"] for s in series]}
    for s in series:
        entry = {"label": s["label"], "y": clean(s["y"])}
        if s.get("ymin") is not None:
            entry["ymin"] = clean(s["ymin"])
            entry["ymax"] = clean(s["ymax"])
        out["series"].append(entry)
    out.update(extra)
    return out


def runtime_by_procs(cal, app, setups, label, figure_id, title):
    """Runtime (s) by processors and clusters, one panel per problem (Figure 2 for Ensflow,
    Figure 3 for Poisson); bars are averages, whiskers minimum to maximum."""
    rt = cal.runtimes[cal.runtimes["app"] == app]
    problems = sorted(set(rt["problem"]), key=natural_key)
    cols = min(len(problems), 4)
    rows = math.ceil(len(problems) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.0 * cols + 1.8, 2.5 * rows + 0.9),
                             squeeze=False, layout="constrained")
    panels = []
    for k, problem in enumerate(problems):
        ax = axes[k // cols][k % cols]
        sub = rt[rt["problem"] == problem]
        sizes = sorted(set(int(s) for s in sub["total_size"]))
        series = []
        for i, setup in enumerate(setups.order):
            hit = {int(r["total_size"]): r for _, r in sub.iterrows()
                   if (r["system"], int(r["components"])) == setup}
            if not hit:
                continue
            series.append({"label": setups.label(setup), "colour": i,
                           "y": [hit[s]["avg"] if s in hit else None for s in sizes],
                           "ymin": [hit[s]["min"] if s in hit else None for s in sizes],
                           "ymax": [hit[s]["max"] if s in hit else None for s in sizes]})
        _bars(ax, [str(s) for s in sizes], series, "runtime (s)")
        ax.set_xlabel("processors")
        ax.set_title(f"{app} {problem}")
        panels.append(_panel(f"{app} {problem}", "processors", "runtime (s)",
                             [str(s) for s in sizes], series))
    for k in range(len(problems), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    legend_right(axes[0][cols - 1] if len(problems) >= cols else axes[0][0])
    fig.suptitle(wrap(title, fig), fontsize=9.5)
    corner(fig, label)
    return Figure(figure_id, title, fig, {"panels": panels})


def runtime_normalised(cal, procs, setups, label):
    """Figure 4: for every grid size the average runtime of each setup divided by the
    baseline's (one cluster) for one process grid."""
    rt = cal.runtimes[cal.runtimes["app"] == "poisson"]
    rt = rt[[cal.procs("poisson", r["problem"], r["total_size"], r["components"], r["system"])
             == procs for _, r in rt.iterrows()]]
    problems = sorted(set(rt["problem"]), key=natural_key)
    base = {r["problem"]: r["avg"] for _, r in rt.iterrows()
            if (r["system"], int(r["components"])) == setups.baseline}
    series = []
    missing = [p for p in problems if p not in base]
    for i, setup in enumerate(setups.order):
        vals = {r["problem"]: r["avg"] for _, r in rt.iterrows()
                if (r["system"], int(r["components"])) == setup}
        if not vals:
            continue
        series.append({"label": setups.label(setup), "colour": i,
                       "y": [vals[p] / base[p] if p in vals and p in base and base[p] > 0
                             else None for p in problems]})
    fig, ax = plt.subplots(figsize=(max(5.0, 0.8 * len(problems) + 3.6), 3.4),
                           layout="constrained")
    base_label = setups.label(setups.baseline)
    _bars(ax, problems, series, f"runtime relative to {base_label}", baseline_line=1.0)
    ax.set_xlabel("grid size (points per side)")
    legend_right(ax)
    title = (f"Figure 4: Poisson runtime normalised to {base_label}, process grid {procs}")
    fig.suptitle(wrap(title, fig), fontsize=9.5)
    corner(fig, label)
    f = Figure("fig4-runtime-normalised", title, fig, {"panels": [
        _panel(title, "grid size (points per side)", f"runtime relative to {base_label}",
               problems, series, baseline=base_label)]})
    if missing:
        f.notes.append(f"No {base_label} runs for {', '.join(missing)}: no bars there.")
    return f


def _grid_arrays(frame, h, v, value="avg"):
    values = np.full((v, h), np.nan)
    ranks = np.full((v, h), -1, dtype=int)
    clusters = np.full((v, h), -1, dtype=int)
    for _, r in frame.iterrows():
        c, w = int(r["column"]), int(r["row"])
        if 0 <= c < h and 0 <= w < v:
            values[w, c] = r[value]
            ranks[w, c] = int(r["rank"])
            clusters[w, c] = int(r["cluster"])
    return values, ranks, clusters


def _draw_grid(ax, values, clusters, norm, cmap, fontsize):
    v, h = values.shape
    im = ax.imshow(values, origin="lower", cmap=cmap, norm=norm, aspect="equal")
    for w in range(v):
        for c in range(h):
            if not np.isnan(values[w, c]):
                shade = cmap(norm(values[w, c]))
                light = sum(shade[:3]) / 3 > 0.55
                ax.text(c, w, _short(values[w, c]), ha="center", va="center",
                        fontsize=fontsize, color="black" if light else "white")
    # Cluster boundaries: a thick line where a process's cluster differs from its neighbour's.
    for w in range(v):
        for c in range(h):
            if c + 1 < h and clusters[w, c] != clusters[w, c + 1]:
                ax.plot([c + 0.5, c + 0.5], [w - 0.5, w + 0.5], color="black", linewidth=2.2)
            if w + 1 < v and clusters[w, c] != clusters[w + 1, c]:
                ax.plot([c - 0.5, c + 0.5], [w + 0.5, w + 0.5], color="black", linewidth=2.2)
    ax.set_xticks(range(h))
    ax.set_yticks(range(v))
    ax.set_xlabel("process column (rank / v)")
    ax.set_ylabel("process row (rank % v)")
    ax.tick_params(length=0)
    return im


def _short(x):
    a = abs(x)
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    if a >= 0.01:
        return f"{x:.2f}"
    return "0" if a == 0 else f"{x:.1g}"


def _hv(procs):
    h, v = procs.split("x")
    return int(h), int(v)


def _grid_panel(title, values, ranks, clusters, setup_label, **extra):
    out = {"title": title, "kind": "grid", "setup": setup_label,
           "columns": int(values.shape[1]), "rows": int(values.shape[0]),
           "values": [clean(row) for row in values.tolist()],
           "ranks": ranks.tolist(), "clusters": clusters.tolist(),
           "row_order": "row 0 (bottom of the picture) first",
           "units": "s"}
    out.update(extra)
    return out


def rank_comm_grid(cal, procs, setups, problems, sync, label):
    """Figure 9: each process's total border-exchange time (s, average of the runs), drawn over
    the process grid; one row of panels per grid size, one panel per setup."""
    f = cal.rank_comm
    f = f[(f["procs"] == procs) & (f["sync"] == sync) & (f["direction"] == "total")]
    h, v = _hv(procs)
    present = [s for s in setups.order
               if len(f[(f["system"] == s[0]) & (f["components"] == s[1])])]
    fig, axes = plt.subplots(len(problems), len(present),
                             figsize=(max(2.2, 0.55 * h + 1.0) * len(present) + 0.9,
                                      (0.55 * v + 1.3) * len(problems) + 0.6),
                             squeeze=False, layout="constrained")
    cmap = plt.get_cmap("YlOrRd")
    panels = []
    for i, problem in enumerate(problems):
        sub = f[f["problem"] == problem]
        top = max(float(sub["avg"].max()), 1e-12) if len(sub) else 1.0
        norm = mcolors.Normalize(vmin=0, vmax=top)
        im = None
        for j, setup in enumerate(present):
            ax = axes[i][j]
            cell = sub[(sub["system"] == setup[0]) & (sub["components"] == setup[1])]
            values, ranks, clusters = _grid_arrays(cell, h, v)
            im = _draw_grid(ax, values, clusters, norm, cmap, 7 if h * v <= 32 else 5)
            ax.set_title(f"{setups.label(setup)}, grid {problem}")
            if j > 0:
                ax.set_ylabel("")
            panels.append(_grid_panel(f"{setups.label(setup)}, grid {problem}", values, ranks,
                                      clusters, setups.label(setup), problem=problem,
                                      runs=_runs(cell)))
        fig.colorbar(im, ax=list(axes[i]), shrink=0.9, label="border-exchange time (s)")
    mode = "synchronized" if sync else "non-synchronized"
    title = (f"Figure 9: total per-process border-exchange time (s), {mode}, process grid "
             f"{procs}; thick lines separate clusters")
    fig.suptitle(wrap(title, fig), fontsize=9.5)
    corner(fig, label)
    return Figure("fig9-rank-comm", title, fig,
                  {"panels": panels, "sync": sync, "procs": procs, "problems": problems})


def _runs(frame):
    return sorted({int(n) for n in frame["n"]}) if len(frame) else []


def rank_comm_directions(cal, procs, setup, setups, problem, sync, label):
    """Figure 10: per process and per direction (top, bottom, left, right) the total
    border-exchange time (s) for one setup and grid size."""
    f = cal.rank_comm
    f = f[(f["procs"] == procs) & (f["sync"] == sync) & (f["problem"] == problem) &
          (f["system"] == setup[0]) & (f["components"] == setup[1])]
    h, v = _hv(procs)
    # A direction without neighbours anywhere (top and bottom of a one-row grid) is left out.
    directions = [d for d in DIRECTIONS if len(f[f["direction"] == d]) and
                  (f[f["direction"] == d]["avg"].fillna(0) > 0).any()]
    fig, axes = plt.subplots(1, len(directions),
                             figsize=(max(2.2, 0.55 * h + 1.0) * len(directions) + 0.9,
                                      0.55 * v + 1.6), squeeze=False,
                             layout="constrained")
    cmap = plt.get_cmap("YlOrRd")
    top = max(float(f[f["direction"].isin(directions)]["avg"].max()), 1e-12)
    norm = mcolors.Normalize(vmin=0, vmax=top)
    panels = []
    im = None
    for j, d in enumerate(directions):
        ax = axes[0][j]
        cell = f[f["direction"] == d]
        values, ranks, clusters = _grid_arrays(cell, h, v)
        inter, _, _ = _grid_arrays(cell, h, v, value="inter_avg")
        im = _draw_grid(ax, values, clusters, norm, cmap, 7 if h * v <= 32 else 5)
        ax.set_title(d)
        if j > 0:
            ax.set_ylabel("")
        panels.append(_grid_panel(d, values, ranks, clusters, setups.label(setup), direction=d,
                                  inter_cluster=[clean(r) for r in inter.tolist()],
                                  runs=_runs(cell)))
    fig.colorbar(im, ax=list(axes[0]), shrink=0.9, label="border-exchange time (s)")
    mode = "synchronized" if sync else "non-synchronized"
    title = (f"Figure 10: per-process border-exchange time (s) in each direction, "
             f"{setups.label(setup)}, grid {problem}, {mode}, process grid {procs}")
    fig.suptitle(wrap(title, fig), fontsize=9.5)
    corner(fig, label)
    return Figure("fig10-rank-comm-directions", title, fig,
                  {"panels": panels, "sync": sync, "procs": procs, "problem": problem,
                   "setup": setups.label(setup)})


def comm_normalised(cal, procs, setups, label):
    """Figure 11: average total border-exchange time of each setup divided by the baseline's,
    synchronized (top) and non-synchronized (bottom)."""
    f = cal.comm_sync
    f = f[f["procs"] == procs]
    problems = sorted(set(f["problem"]), key=natural_key)
    base_label = setups.label(setups.baseline)
    fig, axes = plt.subplots(2, 1, figsize=(max(5.0, 0.8 * len(problems) + 3.6), 5.4),
                             sharex=True, layout="constrained")
    panels = []
    notes = []
    for ax, (column, mode) in zip(axes, [("sync_avg", "synchronized"),
                                         ("nosync_avg", "non-synchronized")]):
        base = {r["problem"]: r[column] for _, r in f.iterrows()
                if (r["system"], int(r["components"])) == setups.baseline}
        series = []
        for i, setup in enumerate(setups.order):
            vals = {r["problem"]: r[column] for _, r in f.iterrows()
                    if (r["system"], int(r["components"])) == setup}
            if not vals:
                continue
            y = []
            for p in problems:
                ok = p in vals and p in base and not math.isnan(vals[p]) and \
                    not math.isnan(base[p]) and base[p] > 0
                y.append(vals[p] / base[p] if ok else None)
            series.append({"label": setups.label(setup), "colour": i, "y": y})
        if all(v is None for s in series for v in s["y"]):
            notes.append(f"No {mode} runs with a {base_label} baseline.")
        _bars(ax, problems, series, f"time relative to {base_label}", baseline_line=1.0)
        ax.set_title(f"{mode} operation")
        panels.append(_panel(f"{mode} operation", "grid size (points per side)",
                             f"communication time relative to {base_label}", problems, series,
                             baseline=base_label, mode=mode))
    axes[1].set_xlabel("grid size (points per side)")
    legend_right(axes[0])
    title = (f"Figure 11: total border-exchange time normalised to {base_label}, "
             f"process grid {procs}")
    fig.suptitle(wrap(title, fig), fontsize=9.5)
    corner(fig, label)
    out = Figure("fig11-comm-normalised", title, fig, {"panels": panels, "procs": procs})
    out.notes.extend(notes)
    return out


def transfer_rate(cal, procs, setups, sync, label):
    """Figure 12: border-exchange data-transfer rate (MB/s = 10^6 bytes/s) by grid size, one
    line per setup; the whiskers span the runs' minimum to maximum."""
    f = cal.transfer
    f = f[(f["procs"] == procs) & (f["sync"] == sync)]
    problems = sorted(set(f["problem"]), key=natural_key)
    xs = [grid_of(p) for p in problems]
    fig, ax = plt.subplots(figsize=(6.2, 3.6), layout="constrained")
    series = []
    for i, setup in enumerate(setups.order):
        rows = {r["problem"]: r for _, r in f.iterrows()
                if (r["system"], int(r["components"])) == setup}
        if not rows:
            continue
        y = [rows[p]["avg"] / MB if p in rows else None for p in problems]
        lo = [rows[p]["min"] / MB if p in rows else None for p in problems]
        hi = [rows[p]["max"] / MB if p in rows else None for p in problems]
        series.append({"label": setups.label(setup), "colour": i, "y": y, "ymin": lo,
                       "ymax": hi})
    # Legend in the order of the curves from top to bottom at the right-most grid size.
    def last_value(s):
        vals = [v for v in s["y"] if v is not None]
        return vals[-1] if vals else -1
    series.sort(key=last_value, reverse=True)
    for s in series:
        y = np.array([np.nan if v is None else v for v in s["y"]], dtype=float)
        lo = np.array([np.nan if v is None else v for v in s["ymin"]], dtype=float)
        hi = np.array([np.nan if v is None else v for v in s["ymax"]], dtype=float)
        ax.errorbar(xs, y, yerr=np.vstack([np.nan_to_num(y - lo), np.nan_to_num(hi - y)]),
                    marker="o", markersize=3.5, linewidth=1.3, capsize=2, elinewidth=0.7,
                    color=colour(s["colour"]), label=s["label"])
    ax.set_xscale("log")
    values = [v for s in series for v in s["ymin"] + s["ymax"] + s["y"] if v and v > 0]
    if values and max(values) / min(values) > 20:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda y, _: f"{y:g}"))
    else:
        ax.set_ylim(bottom=0)
    ax.set_xticks(xs)
    ax.set_xticklabels([str(x) for x in xs])
    ax.minorticks_off()
    ax.set_xlabel("grid size (points per side)")
    ax.set_ylabel("transfer rate (MB/s)")
    ax.grid(linewidth=0.4, alpha=0.5)
    legend_right(ax)
    mode = "synchronized" if sync else "non-synchronized"
    title = f"Figure 12: border-exchange transfer rate, {mode}, process grid {procs}"
    fig.suptitle(wrap(title, fig), fontsize=9.5)
    corner(fig, label)
    return Figure("fig12-transfer-rate", title, fig, {
        "panels": [_panel(title, "grid size (points per side)", "transfer rate (MB/s)",
                          problems, series, kind="lines", grid=xs, units="MB/s (10^6 bytes/s)",
                          mode=mode)],
        "procs": procs, "sync": sync})
