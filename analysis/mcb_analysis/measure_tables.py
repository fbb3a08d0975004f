"""The DAS-2 paper's measurement tables from a calibration folder: Table 2 (runtime by grid size,
processors and clusters), Table 3 (runtime min/avg/max for one process grid), Table 9 (border-
exchange time min/avg/max, synchronized) and Table 10 (synchronized vs not)."""

import math

from .calibration import grid_shape, mode_name, of_setup, problems_of
from .inputs import natural_key
from .output import Table


def _range_text(values):
    values = sorted({int(round(v)) for v in values if not math.isnan(v)})
    if not values:
        return None
    return str(values[0]) if len(values) == 1 else f"{values[0]}–{values[-1]}"


def iterations_of(cal, problem, procs):
    """Iterations of the Poisson runs of one grid and process grid, over the setups (from
    comm_time.csv; the non-synchronized runs preferred, the synchronized ones if only they were
    run)."""
    if cal.comm_time is None:
        return None
    f = cal.comm_time
    rows = f[(f["problem"] == problem) & (f["procs"] == procs)]
    pick = rows[~rows["sync"]]
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
            hit = of_setup(sub, setup)
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


def _setup_groups_table(item, title, frame, setups, lead_columns, lead_cells, stats, runs):
    """One row per grid size; per setup a group of columns, `stats` as (heading, column) from
    the setup's row ('—' without one). runs(row) gives the run counts behind a row."""
    table = Table(item, title, lead_columns + [h for h, _ in stats] * len(setups.order),
                  groups=[(label, len(stats)) for label in setups.labels()])
    counts = set()
    for problem in problems_of(frame):
        rows = frame[frame["problem"] == problem]
        cells = lead_cells(problem, rows)
        for setup in setups.order:
            hit = of_setup(rows, setup)
            if not len(hit):
                cells += [None] * len(stats)
                continue
            row = hit.iloc[0]
            cells += [float(row[c]) for _, c in stats]
            counts.update(runs(row))
        table.add(cells)
    table.notes.append(_runs_note(counts))
    return table


MIN_AVG_MAX = [("min", "min"), ("avg", "avg"), ("max", "max")]


def _iterations_cells(problem, rows):
    return [problem, _range_text(list(rows["iterations"]))]


def runtime_min_avg_max(cal, procs, setups):
    """Table 3 layout: Poisson runtime min/avg/max (s) for one process grid, by grid size."""
    return _setup_groups_table(
        "table3-poisson-runtime", f"Table 3 layout: Poisson runtime (s), minimum, average and "
        f"maximum over the runs, process grid {procs}", cal.poisson_runtimes(procs), setups,
        ["grid size"], lambda problem, rows: [problem], MIN_AVG_MAX, lambda r: [int(r["n"])])


def comm_min_avg_max(cal, procs, setups, sync=True):
    """Table 9 layout: total border-exchange time (s) min/avg/max, one mode, one process grid."""
    f = cal.comm_time
    f = f[(f["procs"] == procs) & (f["sync"] == sync)]
    return _setup_groups_table(
        "table9-poisson-comm-sync" if sync else "table9-poisson-comm-nosync",
        f"Table 9 layout: total border-exchange time (s) with {mode_name(sync)} operation, "
        f"minimum, average and maximum over the runs, process grid {procs}", f, setups,
        ["grid size", "iterations"], _iterations_cells, MIN_AVG_MAX, lambda r: [int(r["n"])])


def comm_sync_vs_nosync(cal, procs, setups):
    """Table 10 layout: average total border-exchange time (s), synchronized and not."""
    f = cal.comm_sync
    return _setup_groups_table(
        "table10-poisson-comm-sync-vs-nosync",
        f"Table 10 layout: average total border-exchange time (s), synchronized (yes) and not "
        f"(no), process grid {procs}", f[f["procs"] == procs], setups,
        ["grid size", "iterations"], _iterations_cells,
        [("sync yes", "sync_avg"), ("sync no", "nosync_avg")],
        lambda r: [int(n) for n in (r["sync_n"], r["nosync_n"]) if n > 0])


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
            h, v = grid_shape(p)
            return h * v
        except ValueError:
            return 0
    best = max(seen, key=lambda p: (len(seen[p]), size(p), natural_key(p)))
    return best, sorted(seen, key=natural_key)
