"""The DAS-2 paper's measurement tables from a calibration folder: Table 2 (runtime by grid size,
processors and clusters), Table 3 (runtime min/avg/max for one process grid), Table 9 (border-
exchange time min/avg/max, synchronized) and Table 10 (synchronized vs not)."""

import math

from .inputs import natural_key
from .output import Table


def _range_text(values):
    values = sorted({int(round(v)) for v in values if not math.isnan(v)})
    if not values:
        return None
    return str(values[0]) if len(values) == 1 else f"{values[0]}–{values[-1]}"


def iterations_of(cal, problem, procs, sync=False):
    """Iterations of the Poisson runs of one grid and process grid, over the setups (from
    comm_time.csv; the mode preferred is `sync`, the other if only it was run)."""
    if cal.comm_time is None:
        return None
    f = cal.comm_time
    rows = f[(f["problem"] == problem) & (f["procs"] == procs)]
    pick = rows[rows["sync"] == sync]
    return _range_text(list((pick if len(pick) else rows)["iterations"]))


def runtime_by_procs(cal, app, setups):
    """Table 2 layout: one row per (problem, processors), one column per setup (average
    runtime, seconds). For Poisson the iterations column comes from comm_time.csv."""
    rt = cal.runtimes[cal.runtimes["app"] == app]
    keys = sorted({(r["problem"], int(r["total_size"])) for _, r in rt.iterrows()},
                  key=lambda k: (natural_key(k[0]), k[1]))
    poisson = app == "poisson"
    columns = ["grid size" if poisson else "problem", "processors"]
    if poisson:
        columns += ["process grid", "iterations"]
    columns += setups.labels()
    item = "table2-poisson-runtime-by-procs" if poisson else f"table-{app}-runtime-by-procs"
    title = ("Table 2 layout: Poisson runtime (s, average of the runs) by grid size, "
             "processors and clusters" if poisson else
             f"{app.capitalize()} runtime (s, average of the runs) by processors and clusters "
             "(the paper's Figure 2 as a table)")
    table = Table(item, title, columns)
    counts = set()
    for problem, size in keys:
        sub = rt[(rt["problem"] == problem) & (rt["total_size"] == size)]
        procs = sorted({cal.procs(app, problem, size, r["components"], r["system"]) or "?"
                        for _, r in sub.iterrows()})
        cells = [problem, size]
        if poisson:
            cells.append("/".join(procs))
            cells.append(iterations_of(cal, problem, procs[0]) if len(procs) == 1 else None)
        for setup in setups.order:
            hit = sub[(sub["system"] == setup[0]) & (sub["components"] == setup[1])]
            cells.append(float(hit["avg"].iloc[0]) if len(hit) else None)
            if len(hit):
                counts.add(int(hit["n"].iloc[0]))
        table.add(cells)
    table.notes.append(_runs_note(counts) + " '—' marks a configuration without runs.")
    return table


def _runs_note(counts):
    if not counts:
        return "No runs."
    if len(counts) == 1:
        n = next(iter(counts))
        return f"Each cell: {n} run{'s' if n != 1 else ''}."
    return f"Each cell: {min(counts)} to {max(counts)} runs."


def _min_avg_max_table(item, title, rows, setups, lead_columns, lead_cells, pick):
    groups = [(label, 3) for label in setups.labels()]
    table = Table(item, title, lead_columns + ["min", "avg", "max"] * len(setups.order),
                  groups=groups)
    counts = set()
    for key in rows:
        cells = list(lead_cells(key))
        for setup in setups.order:
            hit = pick(key, setup)
            if hit is None:
                cells += [None, None, None]
            else:
                cells += [float(hit["min"]), float(hit["avg"]), float(hit["max"])]
                counts.add(int(hit["n"]))
        table.add(cells)
    table.notes.append(_runs_note(counts))
    return table


def runtime_min_avg_max(cal, procs, setups):
    """Table 3 layout: Poisson runtime min/avg/max (s) for one process grid, by grid size."""
    rt = cal.runtimes[cal.runtimes["app"] == "poisson"]
    rt = rt[[cal.procs("poisson", r["problem"], r["total_size"], r["components"], r["system"])
             == procs for _, r in rt.iterrows()]]
    problems = sorted(set(rt["problem"]), key=natural_key)

    def pick(problem, setup):
        hit = rt[(rt["problem"] == problem) & (rt["system"] == setup[0]) &
                 (rt["components"] == setup[1])]
        return hit.iloc[0] if len(hit) else None

    return _min_avg_max_table(
        "table3-poisson-runtime", f"Table 3 layout: Poisson runtime (s), minimum, average and "
        f"maximum over the runs, process grid {procs}", problems, setups, ["grid size"],
        lambda p: [p], pick)


def comm_min_avg_max(cal, procs, setups, sync=True):
    """Table 9 layout: total border-exchange time (s) min/avg/max, one mode, one process grid."""
    f = cal.comm_time
    f = f[(f["procs"] == procs) & (f["sync"] == sync)]
    problems = sorted(set(f["problem"]), key=natural_key)

    def pick(problem, setup):
        hit = f[(f["problem"] == problem) & (f["system"] == setup[0]) &
                (f["components"] == setup[1])]
        return hit.iloc[0] if len(hit) else None

    mode = "synchronized" if sync else "non-synchronized"
    return _min_avg_max_table(
        "table9-poisson-comm-sync" if sync else "table9-poisson-comm-nosync",
        f"Table 9 layout: total border-exchange time (s) with {mode} operation, minimum, "
        f"average and maximum over the runs, process grid {procs}", problems, setups,
        ["grid size", "iterations"],
        lambda p: [p, _range_text(list(f[f["problem"] == p]["iterations"]))], pick)


def comm_sync_vs_nosync(cal, procs, setups):
    """Table 10 layout: average total border-exchange time (s), synchronized and not."""
    f = cal.comm_sync
    f = f[f["procs"] == procs]
    problems = sorted(set(f["problem"]), key=natural_key)
    groups = [(label, 2) for label in setups.labels()]
    table = Table("table10-poisson-comm-sync-vs-nosync",
                  f"Table 10 layout: average total border-exchange time (s), synchronized "
                  f"(yes) and not (no), process grid {procs}",
                  ["grid size", "iterations"] + ["sync yes", "sync no"] * len(setups.order),
                  groups=groups)
    counts = set()
    for problem in problems:
        rows = f[f["problem"] == problem]
        cells = [problem, _range_text(list(rows["iterations"]))]
        for setup in setups.order:
            hit = rows[(rows["system"] == setup[0]) & (rows["components"] == setup[1])]
            if len(hit):
                h = hit.iloc[0]
                cells += [float(h["sync_avg"]), float(h["nosync_avg"])]
                counts.update(int(n) for n in (h["sync_n"], h["nosync_n"]) if n > 0)
            else:
                cells += [None, None]
        table.add(cells)
    table.notes.append(_runs_note(counts))
    return table


def choose_procs(cal, wanted=None):
    """The process grid of Table 3 and the appendix figures: the one given, else the Poisson
    process grid measured at the most grid sizes (ties: the most processes)."""
    seen = {}
    for _, r in cal.runtimes[cal.runtimes["app"] == "poisson"].iterrows():
        p = cal.procs("poisson", r["problem"], r["total_size"], r["components"], r["system"])
        if p:
            seen.setdefault(p, set()).add(r["problem"])
    for frame in (cal.comm_time, cal.comm_sync):
        if frame is not None:
            for _, r in frame.iterrows():
                seen.setdefault(r["procs"], set()).add(r["problem"])
    if wanted is not None:
        return wanted if wanted in seen else None, sorted(seen, key=natural_key)
    if not seen:
        return None, []

    def size(p):
        try:
            h, v = p.split("x")
            return int(h) * int(v)
        except ValueError:
            return 0
    best = max(seen, key=lambda p: (len(seen[p]), size(p), natural_key(p)))
    return best, sorted(seen, key=natural_key)
