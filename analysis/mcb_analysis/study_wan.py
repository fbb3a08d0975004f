"""The DAS-2 paper's measurement study reduced to this machine (scripts/study-wan.sh): from the
Poisson records of the study's campaigns, the analogues of Table 3 / Figure 4 (runtime by number
of clusters and its ratio to one cluster), Table 10 (communication time synchronized and not)
and Figure 10 (per-process communication time per direction), and the three claims checked on
them. The records are read through inputs.read_records; every file is written atomically."""

import csv
import io
import os
from collections import defaultdict
from statistics import mean

from .cli import write_atomically
from .inputs import read_records

CLUSTERS = (1, 2, 4)
DIRECTIONS = ("top", "bottom", "left", "right")


class Study:
    """The valid runs grouped by (procs, grid, clusters, sync), the text said so far and the
    claims checked so far."""

    def __init__(self, runs):
        self.runs = runs
        self.valid = [r for r in runs if r["status"] == "valid"]
        self.groups = defaultdict(list)
        for r in self.valid:
            c = r["config"]
            self.groups[(c["procs"], c["grid"], c["components"], c["sync"])].append(r)
        self.procs = sorted({k[0] for k in self.groups})
        self.lines = []
        self.claims = []

    def say(self, text=""):
        self.lines.append(text)
        print(text)

    def avg(self, key, field):
        rs = self.groups.get(key, [])
        return mean(field(r) for r in rs) if rs else None

    def grids(self, procs, clusters=None):
        return sorted({k[1] for k in self.groups
                       if k[0] == procs and (clusters is None or k[2] == clusters)})


def _csv(header, rows):
    """CSV text as Python's csv module writes it (\\r\\n line ends, empty cell for None)."""
    buf = io.StringIO(newline="")
    w = csv.writer(buf)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _fmt(v, p=3):
    return f"{v:.{p}f}" if v is not None else "-"


def _ratio_claims(study, procs, ratios):
    for c in (2, 4):
        series = ratios[c]
        if len(series) >= 2:
            falls = series[-1][1] < series[0][1]
            rises = sum(1 for a, b in zip(series, series[1:]) if b[1] > a[1] * 1.05)
            study.claims.append((f"{procs} C={c}: ratio falls from grid {series[0][0]} "
                                 f"({series[0][1]:.2f}) to grid {series[-1][0]} "
                                 f"({series[-1][1]:.2f}); rises on the way: {rises}", falls))


def table3(study):
    """Table 3 / Figure 4: total runtime (non-synchronized, as the paper's Table 3) and its
    ratio to the single cluster. Returns the CSV text."""
    study.say("\nTable 3 / Figure 4 analogue: runtime in s (non-synchronized) and ratio to 1 "
              "cluster")
    rows = []
    for procs in study.procs:
        study.say(f"  {procs}: {'grid':>6} {'iter':>6} {'C=1':>9} {'C=2':>9} {'C=4':>9} "
                  f"{'C2/C1':>7} {'C4/C1':>7}")
        ratios = {2: [], 4: []}
        for grid in study.grids(procs):
            t = {c: study.avg((procs, grid, c, False), lambda r: r["result"]["wall_time"])
                 for c in CLUSTERS}
            its = study.avg((procs, grid, 1, False), lambda r: r["result"]["iterations"])
            rat = {c: (t[c] / t[1] if t[c] and t[1] else None) for c in (2, 4)}
            for c in (2, 4):
                if rat[c]:
                    ratios[c].append((grid, rat[c]))
            study.say(f"  {'':5} {grid:>6} {_fmt(its, 0):>6} {_fmt(t[1]):>9} {_fmt(t[2]):>9} "
                      f"{_fmt(t[4]):>9} {_fmt(rat[2], 2):>7} {_fmt(rat[4], 2):>7}")
            rows.append([procs, grid, its, t[1], t[2], t[4], rat[2], rat[4]])
        _ratio_claims(study, procs, ratios)
    return _csv(["procs", "grid", "iterations", "runtime_c1", "runtime_c2", "runtime_c4",
                 "ratio_c2", "ratio_c4"], rows)


def table10(study):
    """Table 10: the paper's communication time, synchronized and not. Returns the CSV text."""
    study.say("\nTable 10 analogue: communication time for exchanging borders in s (paper "
              "definition), sync yes / no")
    rows = []
    for procs in study.procs:
        study.say(f"  {procs}: {'grid':>6} " +
                  " ".join(f"{'C=%d yes' % c:>9} {'no':>8}" for c in CLUSTERS))
        for grid in study.grids(procs):
            cells = []
            for c in CLUSTERS:
                y = study.avg((procs, grid, c, True), lambda r: r["result"]["comm_time_paper"])
                n = study.avg((procs, grid, c, False), lambda r: r["result"]["comm_time_paper"])
                rows.append([procs, grid, c, y, n])
                cells.append(f"{y:>9.3f} {n:>8.3f}" if y is not None and n is not None
                             else f"{'-':>9} {'-':>8}")
                if c > 1 and y is not None and n is not None:
                    study.claims.append((f"{procs} N={grid} C={c}: non-synchronized {n:.3f} s < "
                                         f"synchronized {y:.3f} s", n < y))
            study.say(f"  {'':5} {grid:>6} " + " ".join(cells))
    return _csv(["procs", "grid", "clusters", "sync_yes", "sync_no"], rows)


def _direction_claims(study, procs, grid, table, h, v):
    inter = sum(t for (rank, d), (total, t) in table.items())
    intra = sum(total - t for (rank, d), (total, t) in table.items())
    study.claims.append((f"{procs} grid {grid} C=2: time waiting on cross-cluster steps "
                         f"{inter:.3f} s > on intra-cluster steps {intra:.3f} s", inter > intra))
    # On the cluster edge, the cross direction is each process's largest.
    edge = [r for r in range(h * v) if (r // v) in (h // 2 - 1, h // 2)]
    dominated = all(max(table[(r, "left")][0], table[(r, "right")][0]) >
                    max(table[(r, "top")][0], table[(r, "bottom")][0]) for r in edge)
    study.claims.append((f"{procs} grid {grid} C=2: at every edge process left or right takes "
                         "longest", dominated))


def figure10(study):
    """Figure 10: per-process, per-direction communication time, 2 clusters, smallest grid, of
    the first such run. Returns the CSV text."""
    study.say("\nFigure 10 analogue: per-process communication time per direction in s "
              "(2 clusters, smallest grid, non-synchronized)")
    rows = []
    for procs in study.procs:
        grids = study.grids(procs, 2)
        if not grids:
            continue
        run = study.groups[(procs, grids[0], 2, False)][0]
        h, v = run["config"]["h"], run["config"]["v"]
        study.say(f"  {procs}, grid {grids[0]} (process grid drawn as in the paper: row {v - 1} "
                  "on top)")
        table = {}
        for entry in run["ranks"]:
            rank = entry["rank"]
            for d in DIRECTIONS:
                t = entry["channels"][d]["time"]
                table[(rank, d)] = (t["intra"] + t["inter"], t["inter"])
                rows.append([procs, grids[0], rank, rank // v, rank % v, entry["cluster"], d,
                             t["intra"] + t["inter"], t["inter"]])
        for d in DIRECTIONS:
            study.say(f"    {d}:")
            for row in reversed(range(v)):
                study.say("      " + " ".join(f"{table[(col * v + row, d)][0]:7.3f}"
                                              for col in range(h)))
        _direction_claims(study, procs, grids[0], table, h, v)
    return _csv(["procs", "grid", "rank", "column", "row", "cluster", "direction", "time",
                 "time_inter"], rows)


def analyse(record_files, out):
    """Reads the records of `record_files` (in that order), prints the tables and claims, and
    writes table3.csv, table10.csv, fig10.csv and summary.txt into `out`. Returns the claims,
    a list of (text, holds)."""
    study = Study([r for path in record_files for r in read_records(path)])
    v = study.valid
    study.say(f"{len(v)} valid of {len(study.runs)} runs; system "
              f"{v[0]['config']['system'] if v else '-'}")
    if len(v) < len(study.runs):
        study.say("invalid or failed runs are left out: " +
                  ", ".join(r["run_id"] for r in study.runs if r["status"] != "valid"))
    files = {"table3.csv": table3(study), "table10.csv": table10(study),
             "fig10.csv": figure10(study)}
    study.say("\nClaims")
    for text, ok in study.claims:
        study.say(f"  {'yes' if ok else 'NO '}  {text}")
    files["summary.txt"] = "\n".join(study.lines) + "\n"
    for name, text in files.items():
        write_atomically(os.path.join(out, name), text)
    return study.claims
