"""Seed 000's expectation (section 7) that an application overlapping communication with
computation suffers less from slow wide-area links, measured with Poisson (scripts/study-
overlap.sh): per grid and halo mode (exact, overlap), the median runtime on 1 and on 2 clusters,
the time the wide area adds (2 clusters minus 1: "the penalty for the slow multicluster
communication" of section 7, which the expectation is judged on) and their ratio (the
multicluster penalty as a factor, which overlap can raise by speeding up one cluster too). The two modes compute the same solution in the same
iterations, which is checked first: a pair that differs makes the comparison meaningless and is
reported as such. Records are read through inputs.read_records; files are written atomically."""

import io
import os
from collections import defaultdict
from statistics import median

from .cli import BadInput, write_atomically
from .inputs import read_records

MODES = ("exact", "overlap")


def _groups(runs):
    """Valid Poisson runs by (grid, halo, clusters)."""
    groups = defaultdict(list)
    for r in runs:
        c = r["config"]
        if r["status"] != "valid" or r["app"] != "poisson" or c.get("halo") not in MODES:
            continue
        groups[(c["grid"], c["halo"], c["components"])].append(r)
    return groups


def penalties(runs):
    """One row per grid with both modes on 1 and 2 clusters: the median runtimes, each mode's
    penalty, and whether both modes ran the same iterations to the same error."""
    groups = _groups(runs)
    rows = []
    for grid in sorted({k[0] for k in groups}):
        cells = {(m, k): groups.get((grid, m, k), []) for m in MODES for k in (1, 2)}
        if any(not rs for rs in cells.values()):
            continue
        t = {key: median(r["result"]["wall_time"] for r in rs) for key, rs in cells.items()}
        same = len({(r["result"]["iterations"], r["verdict"]["error"])
                    for rs in cells.values() for r in rs}) == 1
        rows.append({"grid": grid, "iterations": cells[("exact", 1)][0]["result"]["iterations"],
                     "same_solution": same,
                     "exact_1": t[("exact", 1)], "exact_2": t[("exact", 2)],
                     "overlap_1": t[("overlap", 1)], "overlap_2": t[("overlap", 2)],
                     "added_exact": t[("exact", 2)] - t[("exact", 1)],
                     "added_overlap": t[("overlap", 2)] - t[("overlap", 1)],
                     "penalty_exact": t[("exact", 2)] / t[("exact", 1)],
                     "penalty_overlap": t[("overlap", 2)] / t[("overlap", 1)],
                     "runs": sum(len(rs) for rs in cells.values())})
    return rows


COLUMNS = ("grid", "iterations", "same_solution", "exact_1", "exact_2", "overlap_1", "overlap_2",
           "added_exact", "added_overlap", "penalty_exact", "penalty_overlap", "runs")


def _csv(rows):
    buf = io.StringIO()
    buf.write(",".join(COLUMNS) + "\n")
    for r in rows:
        buf.write(",".join(f"{r[c]:.6g}" if isinstance(r[c], float) else str(r[c]).lower()
                           for c in COLUMNS) + "\n")
    return buf.getvalue()


def analyse(record_files, out):
    """Prints the penalty table and the verdict, writes overlap.csv and summary.txt into `out`,
    and returns the rows."""
    runs = [r for path in record_files for r in read_records(path)]
    rows = penalties(runs)
    if not rows:
        raise BadInput("--records: no grid has valid Poisson runs of both halo modes on 1 and 2 "
                       "clusters")
    valid = sum(1 for r in runs if r["status"] == "valid")
    wan = next(r["config"].get("wan") for r in runs if r["status"] == "valid")
    lines = [f"{valid} valid of {len(runs)} runs; wide-area link {wan}",
             "",
             "| grid | iterations | exact: 1 / 2 clusters (s) | added | ratio "
             "| overlap: 1 / 2 (s) | added | ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['grid']} | {r['iterations']} | {r['exact_1']:.3f} / "
                     f"{r['exact_2']:.3f} | {r['added_exact']:.3f} | {r['penalty_exact']:.3f} "
                     f"| {r['overlap_1']:.3f} / {r['overlap_2']:.3f} | {r['added_overlap']:.3f} "
                     f"| {r['penalty_overlap']:.3f} |")
    lines.append("")
    differ = [r["grid"] for r in rows if not r["same_solution"]]
    if differ:
        lines.append(f"NOT COMPARABLE: the modes ran different iterations or errors at grid(s) "
                     f"{differ}")
    higher = [str(r["grid"]) for r in rows if r["added_overlap"] >= r["added_exact"]]
    verdict = "holds" if not higher and not differ else (
        "does not hold" + (f" (not less at grid {', '.join(higher)})" if higher else ""))
    lines.append(f"Overlap cuts the time the wide area adds at {len(rows) - len(higher)} of "
                 f"{len(rows)} grid sizes, and the ratio at "
                 f"{sum(r['penalty_overlap'] < r['penalty_exact'] for r in rows)}; seed 000 "
                 f"section 7's expectation {verdict}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    write_atomically(os.path.join(out, "overlap.csv"), _csv(rows))
    write_atomically(os.path.join(out, "summary.txt"), text)
    return rows
