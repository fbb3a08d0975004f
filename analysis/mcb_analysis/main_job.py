"""The main job's report section on the co-allocation penalty: the measured Poisson runtimes of
the simulated sizes beside the paper's Table 4, and the load of the host while the runs were
made (their records). Reads runtimes.csv and the records through inputs.py."""

import os

from .inputs import read_csv, read_records

# Table 4 of the paper (Poisson 4000x4000), runtimes in seconds on 1, 2 and 4 clusters by
# total size; None where the paper has no entry.
PAPER_TABLE4 = {8: (1230.0, 1390.0, None), 16: (649.0, 766.0, 767.0), 32: (357.0, 402.0, 440.0)}
# The measured sizes are the paper's scaled down by eight.
SCALE = 8
STATISTICS = ("min", "avg", "max")


def _num(v):
    """Three significant digits (whole seconds from 1000 on), never in exponent form."""
    if v >= 1000:
        return f"{v:.0f}"
    return f"{v:.3g}" if v >= 1e-3 else f"{v:.6f}".rstrip("0")


def _runtimes(path, app, problem):
    """{statistic: {(total_size, components): seconds}} of one application and problem."""
    frame, _ = read_csv(path, ["app", "problem", "total_size", "components", *STATISTICS],
                        numeric=["total_size", "components", *STATISTICS])
    rows = frame[(frame["app"] == app) & (frame["problem"] == problem)]
    return {k: {(int(r["total_size"]), int(r["components"])): float(r[k])
                for _, r in rows.iterrows()} for k in STATISTICS}


def _penalty_lead(col, statistic):
    """One sentence: the measured penalty of two clusters beside the paper's at the largest
    size measured on both, or None."""
    used = col[statistic]
    sizes = [s for s in sorted({s for s, _ in used}) if (s, 1) in used and (s, 2) in used]
    if not sizes:
        return None
    size = ([s for s in sizes if SCALE * s in PAPER_TABLE4] or sizes)[-1]
    measured = used[(size, 2)] / used[(size, 1)]
    p = PAPER_TABLE4.get(SCALE * size)
    paper = f"; the paper's Table 4 gives {p[1] / p[0]:.2f} at {SCALE * size}" if p else ""
    return (f"**Co-allocation penalty:** on {size} processes two clusters take {measured:.2f} "
            f"times as long as one ({statistic} runtimes){paper}.")


def _penalty_table(col, problem, statistic):
    used = col[statistic]
    four = any(c == 4 for _, c in used)  # without runs on 4 clusters their columns go
    lead = _penalty_lead(col, statistic)
    out = ([lead, ""] if lead else []) + [
        f"**Co-allocation penalty of the simulated sizes** (Poisson {problem}: the {statistic} "
        f"runtime of the repetitions on C clusters over that on one cluster, the service times "
        f"the simulations use; runtimes in seconds, the {statistic} first and in brackets the "
        "repetitions' average and maximum), beside the paper's Table 4 (4000x4000, sizes eight "
        "times larger)" + ("" if four else "; no runs on 4 clusters were made here") + ":", ""]
    measured = ["1 cluster (s)", "2 clusters (s)"] + (["4 clusters (s)"] if four else []) + \
        ["penalty 2"] + (["penalty 4"] if four else [])
    head = ["size", *measured, "paper size", "paper penalty 2", "paper penalty 4"]
    out += ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]

    def cell(k):
        return (f"{_num(used[k])} (avg {_num(col['avg'][k])}, max {_num(col['max'][k])})"
                if k in used else "—")

    counts = (1, 2, 4) if four else (1, 2)
    for size in sorted({s for s, _ in used}):
        p = PAPER_TABLE4.get(SCALE * size)
        pen = [f"{used[(size, c)] / used[(size, 1)]:.2f}"
               if (size, c) in used and (size, 1) in used else "—" for c in counts[1:]]
        pp = [f"{p[i] / p[0]:.2f}" if p and p[i] else "—" for i in (1, 2)]
        row = [str(size), *(cell((size, c)) for c in counts), *pen, str(SCALE * size), *pp]
        out.append("| " + " | ".join(row) + " |")
    return out


def _load_note(records, cores):
    """The host's load when the runs began, and a warning when other work kept it busy."""
    # The load average counts the job's own ranks (this run's, and the last run's within the
    # minute), so what else ran is the load beyond the run's own size.
    pairs = [(r.get("env", {}).get("load_average"), r.get("config", {}).get("total_size", 0))
             for r in records]
    pairs = [(x, n if isinstance(n, int) else 0) for x, n in pairs
             if isinstance(x, (int, float))]
    if not pairs:
        return []
    loads = sorted(x for x, _ in pairs)
    others = sorted(max(0.0, x - n) for x, n in pairs)
    other = others[len(others) // 2]
    out = ["", f"Load average of the host when the runs began: {loads[0]:.1f} to "
           f"{loads[-1]:.1f} (median {loads[len(loads) // 2]:.1f}) on {cores} cores; beyond "
           f"the runs' own ranks, median {other:.1f}."]
    if other >= cores / 2:
        # Measured at load 12-14 on 2 cores: 2 ranks spent 80% of each iteration waiting for
        # a core, and 2 clusters came out faster than 1 in some pairs.
        out += ["", "**The host was busy with other work while these runs were made:** "
                "a rank then waits for a core at every exchange, so runtimes measure the "
                "scheduler more than the application or the link, and a penalty may even fall "
                "below 1. Rerun on an idle host to measure the co-allocation penalty."]
    return out


def penalty_section(runtimes, app, problem, statistic, cores, record_files):
    """Markdown: the penalty table of `app` at `problem` from mcb-calibrate's runtimes.csv
    (`statistic` is the column the simulations use) and the load note from the run records
    (JSON Lines files; missing ones are skipped, as a campaign that made no run has none)."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic '{statistic}' is not one of {', '.join(STATISTICS)}")
    col = _runtimes(runtimes, app, problem)
    records = [r for path in record_files for r in read_records(path)]
    return "\n".join(_penalty_table(col, problem, statistic) + _load_note(records, cores))


def record_summary(record_files):
    """(records, not valid, systems) of the campaigns' record files (missing ones skipped, as a
    campaign that made no run has none): systems maps each app to the sorted system labels its
    records carry, which say whether its links were emulated."""
    records = [r for path in record_files if os.path.exists(path) for r in read_records(path)]
    systems = {}
    for r in records:
        systems.setdefault(str(r.get("app")), set()).add(str((r.get("config") or {}).get("system")))
    not_valid = sum(r.get("status") != "valid" for r in records)
    return len(records), not_valid, {app: sorted(s) for app, s in sorted(systems.items())}


def fastest_iteration(record_file):
    """The fastest time per iteration of the Poisson records in `record_file` on each number of
    clusters, {clusters: seconds}: the link probe's figure, the least disturbed by other work."""
    best = {}
    for r in read_records(record_file):
        result, clusters = r.get("result") or {}, (r.get("config") or {}).get("components")
        wall, iterations = result.get("wall_time"), result.get("iterations")
        if not isinstance(clusters, int) or not isinstance(wall, (int, float)) \
                or not isinstance(iterations, int) or iterations <= 0:
            continue
        best[clusters] = min(best.get(clusters, float("inf")), wall / iterations)
    return best
