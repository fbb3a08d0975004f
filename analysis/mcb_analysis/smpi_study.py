"""The DAS-2 paper's Poisson tables (seed 000: Tables 2, 3, 9 and 10) replayed on a simulated
platform, each cell beside the paper's (shared/reference/das2-study) with its relative error.

Columns follow the paper: PBS is one cluster over the fast local network; Globus-C is C clusters
with every message over TCP/IP. A run counts for a column when its `config.system` is the label
given for that column's network and its `config.clusters` is C (1 for PBS). Only valid Poisson
records count; several runs of one cell are averaged (min and max kept for Tables 3 and 9).

The study simulates a fixed number of iterations per configuration (mcb-poisson --iterations)
with the sweep sampled, so every iteration costs the same; a run's time per iteration is scaled
to the paper's iteration count of that cell (Table 2's column, Table 9's for the 4x4 tables).
The paper's stopping rule is not given, so its counts are taken as measured facts."""

import math

from .cli import BadInput
from .inputs import read_csv, read_records
from .output import Table

SYSTEMS = ("PBS", "Globus-1", "Globus-2", "Globus-4")
CLUSTERS = {"PBS": 1, "Globus-1": 1, "Globus-2": 2, "Globus-4": 4}
TABLE3_PROCS = "4x4"


def relative_error(simulated, paper):
    """(simulated - paper) / paper; None when either is missing."""
    if simulated is None or paper is None or math.isnan(paper) or paper == 0:
        return None
    return (simulated - paper) / paper


def percent(value):
    """A relative error as a signed percentage cell (text, value for the CSV)."""
    if value is None:
        return None
    return (f"{value * 100:+.0f}%", value)


class Reference:
    """The paper's tables from the reference folder, read through inputs.read_csv."""

    def __init__(self, folder):
        t2_cols = ["grid", "procs", "proc_config", "iterations", *SYSTEMS]
        self.table2, s2 = read_csv(f"{folder}/poisson_runtime_by_procs.csv", t2_cols,
                                   numeric=["grid", "procs", "iterations", *SYSTEMS])
        stats = [f"{s}_{k}" for s in SYSTEMS for k in ("min", "avg", "max")]
        self.table3, s3 = read_csv(f"{folder}/poisson_runtime_4x4.csv", ["grid", *stats],
                                   numeric=["grid", *stats])
        self.table9, s9 = read_csv(f"{folder}/poisson_comm_sync_4x4.csv",
                                   ["grid", "iterations", *stats],
                                   numeric=["grid", "iterations", *stats])
        modes = [f"{s}_{m}" for s in SYSTEMS for m in ("sync", "nosync")]
        self.table10, s10 = read_csv(f"{folder}/poisson_comm_sync_vs_nosync_4x4.csv",
                                     ["grid", "iterations", *modes],
                                     numeric=["grid", "iterations", *modes])
        self.sources = [s2, s3, s9, s10]

    def iterations(self, grid, procs):
        """The iteration count of Table 2's cell (grid, procs), or None."""
        rows = self.table2[(self.table2["grid"] == grid) & (self.table2["proc_config"] == procs)]
        return None if rows.empty else int(rows["iterations"].iloc[0])

    def iterations_4x4(self, grid):
        """The iteration count of the 4x4 runs at @p grid (Table 9), or None."""
        rows = self.table9[self.table9["grid"] == grid]
        return None if rows.empty else int(rows["iterations"].iloc[0])


class Cell:
    """The runs of one configuration: wall times and paper communication times per iteration."""

    def __init__(self):
        self.wall, self.comm, self.iterations = [], [], []

    def stat(self, what, how, iterations):
        """The runs' average (or min, max) of `what` for @p iterations iterations."""
        values = self.wall if what == "wall" else self.comm
        if not values or not iterations:
            return None
        per = {"min": min(values), "max": max(values)}.get(how, sum(values) / len(values))
        return per * iterations


class Measured:
    """Valid Poisson records grouped by (grid, procs, column, sync)."""

    def __init__(self, paths, labels):
        self.cells = {}
        self.ignored = 0
        for path in paths:
            for record in read_records(path):
                self._add(record, labels)

    def _add(self, record, labels):
        config, result = record.get("config") or {}, record.get("result") or {}
        if record.get("app") != "poisson" or record.get("status") != "valid":
            self.ignored += 1
            return
        column = None
        for name in SYSTEMS:  # the first that fits: PBS before Globus-1 when one label is both
            if column is None and labels.get(name.split("-")[0]) == config.get("system") and \
                    CLUSTERS[name] == config.get("clusters"):
                column = name
        if column is None:
            self.ignored += 1
            return
        key = (int(config["grid"]), str(config["procs"]), column, bool(config.get("sync")))
        cell = self.cells.setdefault(key, Cell())
        iterations = int(result["iterations"])
        if iterations < 1:
            self.ignored += 1
            return
        cell.wall.append(float(result["wall_time"]) / iterations)
        cell.comm.append(float(result["comm_time_paper"]) / iterations)
        cell.iterations.append(iterations)

    def get(self, grid, procs, column, sync=False):
        return self.cells.get((int(grid), procs, column, sync))


def _value(cell, iterations, what="wall", how="avg"):
    return None if cell is None else cell.stat(what, how, iterations)


def table2(ref, measured):
    t = Table("smpi-table2", "Table 2: Poisson runtime (s) by grid and processors, simulated "
              "beside the paper's (relative error of the simulated)",
              ["grid", "procs", "iterations"] + ["sim", "paper", "error"] * len(SYSTEMS),
              groups=[(s, 3) for s in SYSTEMS])
    for _, row in ref.table2.iterrows():
        cells = [str(int(row["grid"])), row["proc_config"], str(int(row["iterations"]))]
        for system in SYSTEMS:
            sim = _value(measured.get(row["grid"], row["proc_config"], system),
                         int(row["iterations"]))
            paper = None if math.isnan(row[system]) else float(row[system])
            cells += [sim, paper, percent(relative_error(sim, paper))]
        t.add(cells)
    return t


def table3(ref, measured):
    t = Table("smpi-table3", f"Table 3: Poisson runtime (s), {TABLE3_PROCS}, simulated (average "
              "over runs) beside the paper's average",
              ["grid", "iterations"] + ["sim", "paper", "error"] * len(SYSTEMS),
              groups=[(s, 3) for s in SYSTEMS])
    for _, row in ref.table3.iterrows():
        grid = int(row["grid"])
        iterations = ref.iterations_4x4(grid)
        cells = [str(grid), str(iterations) if iterations else None]
        for system in SYSTEMS:
            cell = measured.get(grid, TABLE3_PROCS, system)
            sim, paper = _value(cell, iterations), float(row[f"{system}_avg"])
            cells += [sim, paper, percent(relative_error(sim, paper))]
        t.add(cells)
    return t


def ratios(ref, measured):
    """Globus-C over PBS at each grid (4x4): the multicluster penalty, which the paper finds
    falling with grid size. Returns the table and, per C, whether the simulated ratio falls."""
    t = Table("smpi-ratio", f"Multicluster over single-cluster runtime ({TABLE3_PROCS}): "
              "Globus-C / PBS, simulated beside the paper's", ["grid"] +
              ["sim", "paper"] * 3, groups=[(f"Globus-{c} / PBS", 2) for c in (1, 2, 4)])
    series = {c: [] for c in (1, 2, 4)}
    for _, row in ref.table3.iterrows():
        grid = int(row["grid"])
        n = ref.iterations_4x4(grid)
        base = _value(measured.get(grid, TABLE3_PROCS, "PBS"), n)
        cells = [str(grid)]
        for c in (1, 2, 4):
            multi = _value(measured.get(grid, TABLE3_PROCS, f"Globus-{c}"), n)
            sim = multi / base if multi is not None and base else None
            cells += [sim, float(row[f"Globus-{c}_avg"]) / float(row["PBS_avg"])]
            if sim is not None:
                series[c].append((grid, sim))
        t.add(cells)
    verdicts = {}
    for c, points in series.items():
        rises = [(a[0], b[0]) for a, b in zip(points, points[1:]) if b[1] > a[1]]
        verdicts[c] = (len(points), rises)
    return t, verdicts


def table9(ref, measured):
    t = Table("smpi-table9", f"Table 9: total border-exchange time (s), synchronized, "
              f"{TABLE3_PROCS}, simulated average beside the paper's average",
              ["grid", "iterations"] + ["sim", "paper", "error"] * len(SYSTEMS),
              groups=[(s, 3) for s in SYSTEMS])
    for _, row in ref.table9.iterrows():
        grid, n = int(row["grid"]), int(row["iterations"])
        cells = [str(grid), str(n)]
        for system in SYSTEMS:
            sim = _value(measured.get(grid, TABLE3_PROCS, system, True), n, "comm")
            paper = float(row[f"{system}_avg"])
            cells += [sim, paper, percent(relative_error(sim, paper))]
        t.add(cells)
    return t


def table10(ref, measured):
    t = Table("smpi-table10", f"Table 10: total border-exchange time (s), synchronized against "
              f"non-synchronized, {TABLE3_PROCS}: simulated / paper",
              ["grid"] + ["sync sim", "sync paper", "nosync sim", "nosync paper",
                          "nosync error"] * len(SYSTEMS),
              groups=[(s, 5) for s in SYSTEMS])
    for _, row in ref.table10.iterrows():
        grid, n = int(row["grid"]), int(row["iterations"])
        cells = [str(grid)]
        for system in SYSTEMS:
            sync = _value(measured.get(grid, TABLE3_PROCS, system, True), n, "comm")
            nosync = _value(measured.get(grid, TABLE3_PROCS, system, False), n, "comm")
            paper_nosync = float(row[f"{system}_nosync"])
            cells += [sync, float(row[f"{system}_sync"]), nosync, paper_nosync,
                      percent(relative_error(nosync, paper_nosync))]
        t.add(cells)
    return t


def error_summary(tables):
    """Per table: how many cells have both numbers, and the median absolute relative error."""
    out = []
    for t in tables:
        errors = []
        for row_raw, row_shown in zip(t.raw, t.rows):
            for raw, shown in zip(row_raw, row_shown):
                if isinstance(shown, str) and shown.endswith("%") and raw not in (None, ""):
                    errors.append(abs(float(raw)))
        errors.sort()
        median = errors[len(errors) // 2] if errors else None
        out.append((t.id, len(errors), median))
    return out


def labels_from(options):
    """--system PBS=LABEL --system Globus=LABEL into a dict; exactly these two names."""
    labels = {}
    for text in options:
        name, _, label = text.partition("=")
        if name not in ("PBS", "Globus") or not label:
            raise BadInput(f"--system: '{text}' is not PBS=LABEL or Globus=LABEL")
        labels[name] = label
    missing = [n for n in ("PBS", "Globus") if n not in labels]
    if missing:
        raise BadInput(f"--system: missing {' and '.join(missing)}=LABEL")
    return labels


def service_times(ref_folder, runtimes_path, scale=1.0):
    """Table 4 (the simulations' Poisson service times, grid 4000) simulated beside the paper's:
    mcb-calibrate's runtimes.csv, read through calibration's columns, divided by @p scale (the
    simulated speed: short runs' iterations over the paper's count)."""
    from .calibration import RUNTIME_COLUMNS, RUNTIME_NUMBERS
    table, _ = read_csv(runtimes_path, RUNTIME_COLUMNS, numeric=RUNTIME_NUMBERS,
                        strings={"stddev", "median"})
    paper, _ = read_csv(f"{ref_folder}/poisson_sim_service_times.csv",
                        ["app", "total_size", "components", "service_time_s"],
                        numeric=["total_size", "components", "service_time_s"])
    t = Table("smpi-table4", "Table 4: Poisson service times (s) of the simulations, grid 4000, "
              "simulated (mcb-calibrate, scaled to 2644 iterations) beside the paper's",
              ["total size", "components", "sim", "paper", "error"])
    for _, row in paper.iterrows():
        hit = table[(table["app"] == "poisson") & (table["total_size"] == row["total_size"]) &
                    (table["components"] == row["components"])]
        sim = float(hit["avg"].iloc[0]) / scale if len(hit) == 1 else None
        ref = float(row["service_time_s"])
        t.add([str(int(row["total_size"])), str(int(row["components"])), sim, ref,
               percent(relative_error(sim, ref))])
    return t, table


def full_against_scaled(full, measured):
    """Runs of all the paper's iterations (@p full, a Measured) against the short runs of the
    same configuration scaled to the same count: the error of simulating fewer iterations."""
    t = Table("smpi-scaling", "Scaling check: runs of all the paper's iterations against short "
              "runs of the same configuration scaled to that count",
              ["grid", "procs", "column", "iterations", "full (s)", "scaled (s)", "difference"])
    for (grid, procs, column, sync), cell in sorted(full.cells.items()):
        n = round(sum(cell.iterations) / len(cell.iterations))
        whole = cell.stat("wall", "avg", n)
        scaled = _value(measured.get(grid, procs, column, sync), n)
        t.add([str(grid), procs, column, str(n), whole, scaled,
               percent(relative_error(scaled, whole))])
    return t


def saturation(named_paths):
    """The largest gross utilization before saturation of every GS/LS/LP curve, per sweep
    (NAME=DIR), side by side: the simulations with the simulated and with the paper's tables."""
    from .sweeps import load
    names, columns = [], {}
    for text in named_paths:
        name, _, path = text.partition("=")
        if not path:
            raise BadInput(f"--sweep: '{text}' is not NAME=DIR")
        _, curves = load([path])
        names.append(name)
        for (_, key), curve in curves.items():
            columns.setdefault((key[0], key[2]), {})[name] = curve.max_stable("gross")
    t = Table("smpi-saturation", "Simulated Poisson jobs on 4x32: the largest gross utilization "
              "before saturation, per policy and co-allocation rule",
              ["policy", "rule"] + names)
    for (policy, rule), values in sorted(columns.items()):
        t.add([policy.upper(), f"[{rule}]"] + [values.get(n) for n in names])
    return t
