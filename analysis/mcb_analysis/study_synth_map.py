"""Issue 35's map of the co-allocation penalty, measured with mcb-synth (scripts/study-synth-
map.sh). A level is one amount of computation per iteration at a fixed communication (pattern,
message size); at each level and number of clusters C the penalty is the median runtime on C
clusters over the median on 1 at the same total ranks. A level's place on the map's x axis is
its ratio of computation to communication as measured on 2 clusters (the mean compute time over
ranks / the mean communication time, medians of the repetitions), the ratio Poisson and Ensflow
are placed by, from their own records on 2 clusters over the same links. For each C the summary
gives the ratio from which the penalty stays within 1.25 (DAS-2's bound for the paper's sizes),
interpolated in log ratio between the two levels around it. Records are read through
inputs.read_records; files are written atomically."""

import io
import math
import os
from collections import defaultdict
from statistics import median

from .cli import BadInput, save_png, write_atomically
from .inputs import read_records

BOUND = 1.25
PLACED = ("poisson", "ensflow")


def _ratio(record):
    """Mean compute time over ranks / mean communication time (None without communication)."""
    r = record["result"]
    comm = r["comm_time"]["avg"]
    return r["compute_time"]["avg"] / comm if comm > 0 else None


def _level(config):
    return (config["pattern"], config["message_size"], config["flops"], config["bytes"])


def synth_cells(runs):
    """Valid mcb-synth runs by (level, clusters)."""
    cells = defaultdict(list)
    for r in runs:
        if r["status"] == "valid" and r["app"] == "synth":
            cells[(_level(r["config"]), r["config"]["components"])].append(r)
    return cells


def penalty_rows(runs):
    """One row per level and number of clusters with a single-cluster run at that level."""
    cells = synth_cells(runs)
    rows = []
    for level in sorted({k[0] for k in cells}, key=lambda lv: (lv[0], lv[1], lv[2], lv[3])):
        one = cells.get((level, 1))
        if not one:
            continue
        t1 = median(r["result"]["wall_time"] for r in one)
        multi = sorted(c for (lv, c) in cells if lv == level and c > 1)
        x_at = 2 if 2 in multi else (multi[0] if multi else None)
        ratios = [x for x in (_ratio(r) for r in cells.get((level, x_at), [])) if x is not None]
        x = median(ratios) if ratios else None
        for c in sorted(k for (lv, k) in cells if lv == level):
            rs = cells[(level, c)]
            t = median(r["result"]["wall_time"] for r in rs)
            own = [v for v in (_ratio(r) for r in rs) if v is not None]
            rows.append({"pattern": level[0], "message_size": level[1], "flops": level[2],
                         "bytes": level[3], "clusters": c, "runs": len(rs), "wall_1": t1,
                         "wall": t, "penalty": t / t1,
                         "ratio": median(own) if own else float("nan"),
                         "x_ratio": x if x is not None else float("nan")})
    return rows


def app_rows(runs):
    """Poisson and Ensflow: their penalty on 2 clusters and their ratio there."""
    groups = defaultdict(list)
    for r in runs:
        if r["status"] == "valid" and r["app"] in PLACED:
            groups[(r["app"], r["config"]["components"])].append(r)
    rows = []
    for app in PLACED:
        one, two = groups.get((app, 1)), groups.get((app, 2))
        if not one or not two:
            continue
        t1 = median(r["result"]["wall_time"] for r in one)
        t2 = median(r["result"]["wall_time"] for r in two)
        ratios = [x for x in (_ratio(r) for r in two) if x is not None]
        rows.append({"app": app, "runs": len(one) + len(two), "wall_1": t1, "wall_2": t2,
                     "penalty": t2 / t1, "x_ratio": median(ratios) if ratios else float("nan")})
    return rows


def threshold(points):
    """(x, exact) for points [(x_ratio, penalty)] sorted by x: the ratio from which every
    penalty is within BOUND, interpolated in log x between the last level above it and the
    next; None when the largest ratio is still above it. exact is False when every level is
    within (the threshold is then at or below the smallest ratio measured)."""
    pts = [(x, p) for x, p in points if x == x and x > 0]
    if not pts or pts[-1][1] > BOUND:
        return None
    above = [i for i, (_, p) in enumerate(pts) if p > BOUND]
    if not above:
        return pts[0][0], False
    i = above[-1]
    (x0, p0), (x1, p1) = pts[i], pts[i + 1]
    f = (p0 - BOUND) / (p0 - p1)
    return math.exp(math.log(x0) + f * (math.log(x1) - math.log(x0))), True


def _csv(rows, columns):
    buf = io.StringIO()
    buf.write(",".join(columns) + "\n")
    for r in rows:
        buf.write(",".join(f"{r[c]:.6g}" if isinstance(r[c], float) else str(r[c])
                           for c in columns) + "\n")
    return buf.getvalue()


def _draw(rows, apps, path):
    """The heat map: rows are the clusters, columns the levels (by their ratio on 2 clusters),
    the colour the penalty; Poisson and Ensflow are placed on the 2-cluster row by their ratio."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    xs = sorted({r["x_ratio"] for r in rows if r["x_ratio"] == r["x_ratio"]})
    cs = sorted({r["clusters"] for r in rows})
    grid = np.full((len(cs), len(xs)), np.nan)
    for r in rows:
        if r["x_ratio"] == r["x_ratio"]:
            grid[cs.index(r["clusters"]), xs.index(r["x_ratio"])] = r["penalty"]
    fig, ax = plt.subplots(figsize=(1.3 * len(xs) + 3, 0.8 * len(cs) + 2))
    top = max(2.0, float(np.nanmax(grid)))
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="RdYlGn_r", vmin=1.0, vmax=top)
    for i in range(len(cs)):
        for j in range(len(xs)):
            if grid[i, j] == grid[i, j]:
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=9,
                        fontweight="bold" if grid[i, j] > BOUND else "normal")
    ax.set_xticks(range(len(xs)), [f"{x:.3g}" for x in xs])
    ax.set_yticks(range(len(cs)), [str(c) for c in cs])
    ax.set_xlabel("computation / communication (measured on 2 clusters)")
    ax.set_ylabel("clusters (same total ranks)")
    logs = [math.log(x) for x in xs]
    for a in apps:
        if 2 not in cs or not (a["x_ratio"] > 0) or len(xs) < 2:
            continue
        # Between the columns by log ratio; beyond the ends, on the end segments' scale.
        lx = math.log(a["x_ratio"])
        j = min(max(int(np.searchsorted(logs, lx)) - 1, 0), len(xs) - 2)
        col = j + (lx - logs[j]) / (logs[j + 1] - logs[j])
        lo, hi = ax.get_xlim()
        ax.set_xlim(min(lo, col - 0.5), max(hi, col + 0.5))
        ax.plot(col, cs.index(2), marker="o", markersize=10, markerfacecolor="none",
                markeredgecolor="black", markeredgewidth=2)
        ax.annotate(f"{a['app']} {a['penalty']:.2f}", (col, cs.index(2)), xytext=(6, 10),
                    textcoords="offset points", fontsize=9)
    fig.colorbar(im, ax=ax, label="co-allocation penalty (time on C clusters / on 1)")
    ax.set_title(f"mcb-synth {rows[0]['pattern']}, {rows[0]['message_size']} B messages; "
                 f"bold: above {BOUND}")
    save_png(fig, path)


def _load_range(runs):
    loads = [r["env"].get("load_average") for r in runs if isinstance(r.get("env"), dict)]
    loads = [x for x in loads if isinstance(x, (int, float))]
    return (min(loads), median(loads), max(loads)) if loads else None


def _summary(runs, rows, apps):
    valid = sum(1 for r in runs if r["status"] == "valid")
    wan = next((r["config"].get("wan") for r in runs
                if r["status"] == "valid" and r["app"] == "synth"), None)
    load = _load_range(runs)
    lines = [f"{valid} valid of {len(runs)} runs; wide-area link {wan}",
             "host load average at the runs' start: " +
             (f"min {load[0]:.2f}, median {load[1]:.2f}, max {load[2]:.2f}" if load else "unknown"),
             "",
             "| triad bytes | flops | ratio (2 clusters) | clusters | runs | time 1 / C (s) "
             "| penalty | ratio (C) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['bytes']:.3g} | {r['flops']:.3g} | {r['x_ratio']:.3g} | "
                     f"{r['clusters']} | {r['runs']} | {r['wall_1']:.3f} / {r['wall']:.3f} | "
                     f"{r['penalty']:.3f} | {r['ratio']:.3g} |")
    lines.append("")
    for c in sorted({r["clusters"] for r in rows if r["clusters"] > 1}):
        pts = sorted((r["x_ratio"], r["penalty"]) for r in rows if r["clusters"] == c)
        t = threshold(pts)
        if t is None:
            where = f"nowhere in the measured range (up to ratio {pts[-1][0]:.3g})"
        elif t[1]:
            where = f"from a computation/communication ratio of about {t[0]:.3g}"
        else:
            where = f"at every ratio measured (from {t[0]:.3g})"
        lines.append(f"{c} clusters: co-allocation stays within {BOUND} {where}")
    for a in apps:
        lines.append(f"{a['app']}: ratio {a['x_ratio']:.3g} on 2 clusters, penalty "
                     f"{a['penalty']:.3f} ({a['wall_1']:.3f} s on 1, {a['wall_2']:.3f} s on 2; "
                     f"{'within' if a['penalty'] <= BOUND else 'above'} {BOUND})")
    return "\n".join(lines) + "\n"


def analyse(record_files, out):
    """Prints the table, thresholds and placements, writes penalty.csv, apps.csv, map.png and
    summary.txt into `out`, and returns (rows, apps)."""
    runs = [r for path in record_files for r in read_records(path)]
    rows = penalty_rows(runs)
    if not any(r["clusters"] > 1 for r in rows):
        raise BadInput("--records: no valid mcb-synth runs on 1 and on more clusters at one "
                       "level of computation")
    apps = app_rows(runs)
    text = _summary(runs, rows, apps)
    print(text, end="")
    write_atomically(os.path.join(out, "penalty.csv"),
                     _csv(rows, ("pattern", "message_size", "flops", "bytes", "clusters", "runs",
                                 "wall_1", "wall", "penalty", "ratio", "x_ratio")))
    write_atomically(os.path.join(out, "apps.csv"),
                     _csv(apps, ("app", "runs", "wall_1", "wall_2", "penalty", "x_ratio")))
    _draw(rows, apps, os.path.join(out, "map.png"))
    write_atomically(os.path.join(out, "summary.txt"), text)
    return rows, apps
