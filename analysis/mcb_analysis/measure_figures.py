"""The DAS-2 paper's measurement figures from a calibration folder: Figures 2/3 (runtime by
processors and clusters), 4 (runtime normalised to one cluster), 9 (per-process border-exchange
time over the process grid), 10 (the same per direction), 11 (border-exchange time normalised,
synchronized and not) and 12 (border-exchange transfer rate). Each returns an output.Figure whose
data are the numbers drawn."""

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import colors as mcolors
from matplotlib import ticker as mticker

from .calibration import grid_shape, mode_name, of_setup, problems_of
from .output import Figure, clean, headline, number

PALETTE = ["#1b4f9c", "#e08214", "#2a9d3a", "#c0392b", "#7b3294", "#8c564b", "#17becf",
           "#7f7f7f"]
DIRECTIONS = ["top", "bottom", "left", "right"]

# What a direction of Figure 10 is (apps/poisson/halo.hpp), which its panel titles cannot say.
DIRECTIONS_CAPTION = (
    "Each panel is an exchange step, not a neighbour: in step 'left' every process sends its "
    "border to its left neighbour and receives its right neighbour's, so a process's time there "
    "is its wait for the border of the neighbour on its right (in 'right' on its left, in 'top' "
    "below it, in 'bottom' above it), counted once the earlier steps' borders were in (top, "
    "bottom, left, right in turn).")


def comm_normalised(cal, procs, setups, label):
    """Figure 11: average total border-exchange time of each setup divided by the baseline's,
    synchronized (top) and non-synchronized (bottom)."""
    f = cal.comm_sync
    f = f[f["procs"] == procs]
    problems = problems_of(f)
    base_label = setups.label(setups.baseline)
    fig, axes = plt.subplots(2, 1, figsize=(max(5.0, 0.8 * len(problems) + 3.6), 5.4),
                             sharex=True, layout="constrained")
    panels = []
    notes = []
    for ax, (column, sync) in zip(axes, [("sync_avg", True), ("nosync_avg", False)]):
        mode = mode_name(sync)
        series = _normalised(f, column, problems, setups)
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
    headline(fig, title, label)
    out = Figure("fig11-comm-normalised", title, fig, {"panels": panels, "procs": procs})
    out.notes.extend(notes)
    return out


def transfer_rate(cal, procs, setups, sync, label):
    """Figure 12: border-exchange data-transfer rate (MB/s = 10^6 bytes/s) by grid size, one
    line per setup; the whiskers span the runs' minimum to maximum."""
    f = cal.transfer
    f = f[(f["procs"] == procs) & (f["sync"] == sync)]
    problems = problems_of(f)
    xs = [grid_of(p) for p in problems]
    fig, ax = plt.subplots(figsize=(6.2, 3.6), layout="constrained")
    # transfer_rates.csv is in MB/s (10^6 bytes/s), the paper's Mbyte/s.
    series = [_series(setups, i, setup, rows, problems)
              for i, setup, rows in _rows_by_setup(f, setups)]
    # Legend in the order of the curves from top to bottom at the right-most grid size.
    def last_value(s):
        vals = [v for v in s["y"] if v is not None]
        return vals[-1] if vals else -1
    series.sort(key=last_value, reverse=True)
    for s in series:
        y, yerr = _whiskers(s)
        ax.errorbar(xs, y, yerr=yerr, marker="o", markersize=3.5, linewidth=1.3, capsize=2,
                    elinewidth=0.7, color=colour(s["colour"]), label=s["label"])
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
    mode = mode_name(sync)
    title = f"Figure 12: border-exchange transfer rate, {mode}, process grid {procs}"
    headline(fig, title, label)
    return Figure("fig12-transfer-rate", title, fig, {
        "panels": [_panel(title, "grid size (points per side)", "transfer rate (MB/s)",
                          problems, series, kind="lines", grid=xs, units="MB/s (10^6 bytes/s)",
                          mode=mode)],
        "procs": procs, "sync": sync})
GRID_COLOURS = plt.get_cmap("YlOrRd")  # per-process times over the process grid


def legend_right(ax):
    """The legend beside the axes, entries in the order the bars or curves are drawn."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, borderaxespad=0)


def colour(i):
    return PALETTE[i % len(PALETTE)]


def grid_of(problem):
    """'100x100' -> 100 (the grid side), for axis positions."""
    try:
        return int(str(problem).split("x")[0])
    except ValueError:
        return None


def _rows_of(frame, setup, key="problem"):
    """The rows of one setup by `key`."""
    return {r[key]: r for _, r in of_setup(frame, setup).iterrows()}


def _rows_by_setup(frame, setups, key="problem"):
    """(i, setup, rows by `key`) for each setup with rows, in the setups' order; i, the setup's
    position, picks its colour, so a setup has the same colour in every figure."""
    for i, setup in enumerate(setups.order):
        rows = _rows_of(frame, setup, key)
        if rows:
            yield i, setup, rows


def _series(setups, i, setup, rows, keys, scale=1.0):
    """Bars or points of one setup: the average of each key's row (None where it has none),
    whiskers from the minimum to the maximum."""
    def column(c):
        return [rows[k][c] / scale if k in rows else None for k in keys]
    return {"label": setups.label(setup), "colour": i, "y": column("avg"),
            "ymin": column("min"), "ymax": column("max")}


def _normalised(frame, column, problems, setups):
    """Per setup, its `column` divided by the baseline's at each grid size (None where either
    is missing or the baseline's is not positive)."""
    base = _rows_of(frame, setups.baseline)
    series = []
    for i, setup, rows in _rows_by_setup(frame, setups):
        y = []
        for p in problems:
            ok = p in rows and p in base and not math.isnan(rows[p][column]) and \
                not math.isnan(base[p][column]) and base[p][column] > 0
            y.append(rows[p][column] / base[p][column] if ok else None)
        series.append({"label": setups.label(setup), "colour": i, "y": y})
    return series


def _array(values):
    """None as NaN, for drawing."""
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _whiskers(s):
    """A series' values and its error bars from minimum to maximum (none where one is missing)."""
    y = _array(s["y"])
    return y, np.vstack([np.nan_to_num(y - _array(s["ymin"])),
                         np.nan_to_num(_array(s["ymax"]) - y)])


def _bars(ax, categories, series, ylabel, baseline_line=None):
    """Grouped bars: one group per category, one bar per series (in legend order)."""
    n = max(len(series), 1)
    width = 0.8 / n
    x = np.arange(len(categories))
    for i, s in enumerate(series):
        kw = {}
        if s.get("ymin") is not None:
            y, kw["yerr"] = _whiskers(s)
            kw["error_kw"] = {"elinewidth": 0.8, "capsize": 1.5, "ecolor": "0.25"}
        else:
            y = _array(s["y"])
        ax.bar(x - 0.4 + width * (i + 0.5), np.nan_to_num(y), width, label=s["label"],
               color=colour(s["colour"]), **kw)
    ax.set_xticks(x)
    ax.set_xticklabels(categories)
    ax.set_ylabel(ylabel)
    if baseline_line is not None:
        ax.axhline(baseline_line, color="0.3", linewidth=0.8, linestyle="--")
    ax.grid(axis="y", linewidth=0.4, alpha=0.5)
    ax.set_axisbelow(True)
    return _bar_scale(ax, series)


def _bar_scale(ax, series):
    """A log axis when the bars span more than two decades, so the shortest stay visible
    (linear bars of 0.04 beside 7 s vanish); returns the scale."""
    values = [v for s in series for key in ("y", "ymin", "ymax") for v in (s.get(key) or [])
              if v is not None and v > 0]
    if values and max(values) / min(values) > 100:
        ax.set_yscale("log")
        ax.set_ylim(min(values) / 2, max(values) * 2)
        ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda y, _: f"{y:g}"))
        return "log"
    return "linear"


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
    problems = problems_of(rt)
    cols = min(len(problems), 4)
    rows = math.ceil(len(problems) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.0 * cols + 1.8, 2.5 * rows + 0.9),
                             squeeze=False, layout="constrained")
    panels = []
    for k, problem in enumerate(problems):
        ax = axes[k // cols][k % cols]
        sub = rt[rt["problem"] == problem]
        sizes = sorted(set(int(s) for s in sub["total_size"]))
        series = [_series(setups, i, setup, hit, sizes)
                  for i, setup, hit in _rows_by_setup(sub, setups, key="total_size")]
        scale = _bars(ax, [str(s) for s in sizes], series, "runtime (s)")
        ax.set_xlabel("processors")
        ax.set_title(f"{app} {problem}")
        panels.append(_panel(f"{app} {problem}", "processors", "runtime (s)",
                             [str(s) for s in sizes], series, y_scale=scale))
    for k in range(len(problems), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    legend_right(axes[0][cols - 1] if len(problems) >= cols else axes[0][0])
    headline(fig, title, label)
    return Figure(figure_id, title, fig, {"panels": panels})


def runtime_normalised(cal, procs, setups, label):
    """Figure 4: for every grid size the average runtime of each setup divided by the
    baseline's (one cluster) for one process grid."""
    rt = cal.poisson_runtimes(procs)
    problems = problems_of(rt)
    base = _rows_of(rt, setups.baseline)
    missing = [p for p in problems if p not in base]
    series = _normalised(rt, "avg", problems, setups)
    fig, ax = plt.subplots(figsize=(max(5.0, 0.8 * len(problems) + 3.6), 3.4),
                           layout="constrained")
    base_label = setups.label(setups.baseline)
    scale = _bars(ax, problems, series, f"runtime relative to {base_label}", baseline_line=1.0)
    ax.set_xlabel("grid size (points per side)")
    legend_right(ax)
    title = (f"Figure 4: Poisson runtime normalised to {base_label}, process grid {procs}")
    headline(fig, title, label)
    f = Figure("fig4-runtime-normalised", title, fig, {"panels": [
        _panel(title, "grid size (points per side)", f"runtime relative to {base_label}",
               problems, series, baseline=base_label, y_scale=scale)]})
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


def _draw_grid(ax, values, clusters, norm, title, first_column):
    v, h = values.shape
    fontsize = 7 if h * v <= 32 else 5
    im = ax.imshow(values, origin="lower", cmap=GRID_COLOURS, norm=norm, aspect="equal")
    for w in range(v):
        for c in range(h):
            if not np.isnan(values[w, c]):
                shade = GRID_COLOURS(norm(values[w, c]))
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
    ax.set_ylabel("process row (rank % v)" if first_column else "")
    ax.tick_params(length=0)
    ax.set_title(title)
    return im


def _short(x):
    """A time in a grid cell: a table cell's digits, fewer below 1 to fit the cell."""
    a = abs(x)
    if a >= 1 or a == 0:
        return number(x)
    return f"{x:.2f}" if a >= 0.01 else f"{x:.1g}"


def _scale(frame):
    """One colour scale, from 0 to the largest average time, for the panels of a row."""
    top = max(float(frame["avg"].max()), 1e-12) if len(frame) else 1.0
    return mcolors.Normalize(vmin=0, vmax=top)


def _grid_subplots(h, rows, cols, height):
    return plt.subplots(rows, cols, figsize=(max(2.2, 0.55 * h + 1.0) * cols + 0.9, height),
                        squeeze=False, layout="constrained")


def _grid_row(fig, axes, norm, h, v, panels):
    """A row of panels, each process's time drawn over the process grid, sharing one colour
    bar. panels: (title, setup label, rank_comm rows, extra JSON fields) per panel; returns the
    panels' JSON."""
    out = []
    im = None
    for j, (title, setup_label, frame, extra) in enumerate(panels):
        values, ranks, clusters = _grid_arrays(frame, h, v)
        im = _draw_grid(axes[j], values, clusters, norm, title, first_column=(j == 0))
        out.append({"title": title, "kind": "grid", "setup": setup_label,
                    "columns": int(values.shape[1]), "rows": int(values.shape[0]),
                    "values": [clean(row) for row in values.tolist()],
                    "ranks": ranks.tolist(), "clusters": clusters.tolist(),
                    "row_order": "row 0 (bottom of the picture) first",
                    "units": "s", **extra,
                    "runs": sorted({int(n) for n in frame["n"]}) if len(frame) else []})
    fig.colorbar(im, ax=list(axes), shrink=0.9, label="border-exchange time (s)")
    return out


def rank_comm_grid(cal, procs, setups, problems, sync, label):
    """Figure 9: each process's total border-exchange time (s, average of the runs), drawn over
    the process grid; one row of panels per grid size, one panel per setup."""
    f = cal.rank_comm
    f = f[(f["procs"] == procs) & (f["sync"] == sync) & (f["direction"] == "total")]
    h, v = grid_shape(procs)
    present = [s for s in setups.order if len(of_setup(f, s))]
    fig, axes = _grid_subplots(h, len(problems), len(present),
                               (0.55 * v + 1.3) * len(problems) + 0.6)
    panels = []
    for i, problem in enumerate(problems):
        sub = f[f["problem"] == problem]
        panels += _grid_row(fig, axes[i], _scale(sub), h, v, [
            (f"{setups.label(s)}, grid {problem}", setups.label(s), of_setup(sub, s),
             {"problem": problem}) for s in present])
    title = (f"Figure 9: total per-process border-exchange time (s), {mode_name(sync)}, "
             f"process grid {procs}; thick lines separate clusters")
    headline(fig, title, label)
    return Figure("fig9-rank-comm", title, fig,
                  {"panels": panels, "sync": sync, "procs": procs, "problems": problems})


def rank_comm_directions(cal, procs, setup, setups, problem, sync, label):
    """Figure 10: per process and per direction (top, bottom, left, right) the total
    border-exchange time (s) for one setup and grid size."""
    f = cal.rank_comm
    f = of_setup(f[(f["procs"] == procs) & (f["sync"] == sync) & (f["problem"] == problem)],
                 setup)
    h, v = grid_shape(procs)
    # A direction without neighbours anywhere (top and bottom of a one-row grid) is left out.
    directions = [d for d in DIRECTIONS if len(f[f["direction"] == d]) and
                  (f[f["direction"] == d]["avg"].fillna(0) > 0).any()]
    fig, axes = _grid_subplots(h, 1, len(directions), 0.55 * v + 1.6)
    panels = []
    for d in directions:
        cell = f[f["direction"] == d]
        inter = _grid_arrays(cell, h, v, value="inter_avg")[0]
        panels.append((d, setups.label(setup), cell,
                       {"direction": d, "inter_cluster": [clean(r) for r in inter.tolist()]}))
    panels = _grid_row(fig, axes[0], _scale(f[f["direction"].isin(directions)]), h, v, panels)
    title = (f"Figure 10: per-process border-exchange time (s) in each direction, "
             f"{setups.label(setup)}, grid {problem}, {mode_name(sync)}, process grid {procs}")
    headline(fig, title, label)
    out = Figure("fig10-rank-comm-directions", title, fig,
                 {"panels": panels, "sync": sync, "procs": procs, "problem": problem,
                  "setup": setups.label(setup), "caption": DIRECTIONS_CAPTION})
    out.notes.append(DIRECTIONS_CAPTION)
    return out

