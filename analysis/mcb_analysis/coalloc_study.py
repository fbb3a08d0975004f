"""Issue 29's validation study (scripts/study-coalloc.sh): co-allocated runs on the rig of
separate batch systems against mcb-redundant's replay of the same workload, per configuration
(duplicates, ranking, synchronization), and seed 004's claim that duplication improves
performance by more than 15%.

A study folder holds one folder per configuration, each with `campaign/records.jsonl` (the
co-allocating executor's records, env.coalloc: docs/records.md) and `sim/redundant.csv` (the
replay). Every measure of a real run comes from its record: co-allocation time (first submission
to the go), processor-seconds held idle, response time (first submission to the last component's
end) and the coordinator's overhead (joint start minus the last component's start)."""

import math
import os

from mcb_analysis import cli
from mcb_analysis.inputs import read_csv, read_json, read_records
from mcb_analysis.output import Table, number
from mcb_analysis.swf import swf_text

CLAIM = 15.0  # percent: seed 004's "more than 15%"
SIM_NUMERIC = ("duplicates", "replication", "global_measured", "global_wait_mean",
               "coalloc_hold_mean", "part_mean")
SIM_REQUIRED = ("ranker", "sync", "verdict") + SIM_NUMERIC


def _mean(values):
    return sum(values) / len(values) if values else math.nan


def runs_of(records_path):
    """(config, runs, failed): the configuration the records share (duplicates, ranking,
    synchronization), one dict per co-allocated run that ran (valid or invalid: it was
    co-allocated either way) and the count of runs never co-allocated (timeout)."""
    config, runs, failed = None, [], 0
    for n, rec in enumerate(read_records(records_path), start=1):
        co = (rec.get("env") or {}).get("coalloc")
        where = f"{records_path}: record {n}"
        if not isinstance(co, dict):
            raise cli.BadInput(f"{where}: no env.coalloc (not a co-allocating executor's run)")
        this = (int(co["duplicates"]), str(co["ranking"]), str(co["synchronization"]))
        if config is not None and this != config:
            raise cli.BadInput(f"{where}: configuration {this} differs from the first {config}")
        config = this
        if co.get("go") is None or co.get("joint_start") is None:
            failed += 1
            continue
        ends = [c["ended"] for c in co.get("copies") or [] if c.get("bound") and c.get("ended")]
        if not ends:
            raise cli.BadInput(f"{where}: a joined run whose components have no end")
        first, go = float(co["first_submitted"]), float(co["go"])
        runs.append({
            "run": rec.get("run_id"),
            "submit": first,
            "go": go,
            "runtime": max(ends) - go,
            "processors": sum(int(c["processors"]) for c in co["components"]),
            "coalloc": float(co["coallocation_seconds"]),
            "held": float(co["held_idle_processor_seconds"]),
            "response": max(ends) - first,
            "overhead": float(co["overhead_seconds"]),
        })
    if config is None:
        raise cli.BadInput(f"{records_path}: no record")
    return config, runs, failed


def requests_swf(runs, requested):
    """The runs as mcb-redundant --requests reads them: one SWF line per run (submit from the
    header's UnixStartTime, the run's time from the go to its last component's end, both parts'
    processors, the pilots' time limit as requested time)."""
    if not runs:
        raise cli.BadInput("no co-allocated run to replay")
    origin = math.floor(min(r["submit"] for r in runs))
    rows = []
    for i, r in enumerate(sorted(runs, key=lambda r: r["submit"]), start=1):
        p = r["processors"]
        rows.append([i, round(r["submit"] - origin, 3), round(r["go"] - r["submit"], 3),
                     round(r["runtime"], 3), p, -1, -1, p, max(requested, r["runtime"]), -1, 1,
                     -1, -1, -1, -1, -1, -1, -1])
    header = [("Version", "2.2"), ("Computer", "mcb co-allocated requests"),
              ("UnixStartTime", str(origin)), ("MaxJobs", str(len(rows))),
              ("MaxRecords", str(len(rows))),
              ("Note", "one co-allocated request a line: field 8 = both parts' processors")]
    return swf_text(header, rows)


def sim_of(folder):
    """{'coalloc', 'held', 'wait_runs'}: the replay's means over its replications."""
    path = os.path.join(folder, "redundant.csv")
    frame, _ = read_csv(path, SIM_REQUIRED, SIM_NUMERIC)
    read_json(os.path.join(folder, "redundant.json"), ("config",), schema="mcb-redundant/1")
    for i, r in frame.iterrows():
        if r["verdict"] != "VALID":
            raise cli.BadInput(f"{path}:{i + 2}: verdict '{r['verdict']}' is not VALID")
    if frame.empty:
        raise cli.BadInput(f"{path}: no valid run")
    return {"coalloc": float(frame["global_wait_mean"].mean()),
            "held": float(frame["coalloc_hold_mean"].mean()),
            "replications": len(frame)}


def load(study):
    """One entry per configuration folder of the study (those with campaign/records.jsonl)."""
    out = []
    for name in sorted(os.listdir(study)):
        records = os.path.join(study, name, "campaign", "records.jsonl")
        if not os.path.isfile(records):
            continue
        config, runs, failed = runs_of(records)
        sim = sim_of(os.path.join(study, name, "sim"))
        out.append({"name": name, "d": config[0], "ranking": config[1], "sync": config[2],
                    "runs": runs, "failed": failed, "sim": sim})
    if not out:
        raise cli.BadInput(f"{study}: no configuration folder (<name>/campaign/records.jsonl)")
    return out


def summary(c):
    """Real and simulated means of one configuration; the simulated response time is its
    co-allocation time plus the runs' mean runtime (the replay runs them for as long)."""
    runs = c["runs"]
    runtime = _mean([r["runtime"] for r in runs])
    return {
        "real_coalloc": _mean([r["coalloc"] for r in runs]),
        "sim_coalloc": c["sim"]["coalloc"],
        "real_held": _mean([r["held"] for r in runs]),
        "sim_held": c["sim"]["held"],
        "real_response": _mean([r["response"] for r in runs]),
        "sim_response": c["sim"]["coalloc"] + runtime,
        "runtime": runtime,
        "overhead_mean": _mean([r["overhead"] for r in runs]),
        "overhead_min": min((r["overhead"] for r in runs), default=math.nan),
        "overhead_max": max((r["overhead"] for r in runs), default=math.nan),
    }


def table(configs):
    t = Table("coalloc-study", "Co-allocation on the rig against mcb-redundant's replay",
              ["configuration", "d", "ranking", "synchronization", "runs", "failed",
               "real", "sim", "real", "sim", "real", "sim", "mean", "min", "max"],
              groups=[("co-allocation time (s)", 2), ("held idle (processor-s)", 2),
                      ("response time (s)", 2), ("overhead (s)", 3)])
    for c in configs:
        s = summary(c)
        t.add([c["name"], str(c["d"]), c["ranking"], c["sync"], str(len(c["runs"])),
               str(c["failed"]), s["real_coalloc"], s["sim_coalloc"], s["real_held"],
               s["sim_held"], s["real_response"], s["sim_response"], s["overhead_mean"],
               s["overhead_min"], s["overhead_max"]])
    return t


def claims(configs):
    """Seed 004's claim per pair (d = 1 with a ranking against d = 0, same synchronization):
    (ranking, sync, measure, source, improvement %, holds)."""
    out = []
    for c in configs:
        if c["d"] != 1:
            continue
        base = next((b for b in configs if b["d"] == 0 and b["sync"] == c["sync"]), None)
        if base is None:
            continue
        s1, s0 = summary(c), summary(base)
        for measure in ("coalloc", "response"):
            for source in ("real", "sim"):
                a, b = s1[f"{source}_{measure}"], s0[f"{source}_{measure}"]
                gain = 100 * (1 - a / b) if b > 0 else math.nan
                out.append((c["ranking"], c["sync"], measure, source, b, a, gain, gain > CLAIM))
    return out


def verdict_lines(found):
    lines = []
    for ranking, sync, measure, source, b, a, gain, holds in found:
        word = "HOLDS" if holds else "DOES NOT HOLD"
        lines.append(f"{source} {sync}, {ranking} d=1 against d=0: mean {measure} time "
                     f"{number(b)} -> {number(a)} s, improvement {number(gain)}%: {word} "
                     f"(> {CLAIM:g}%)")
    return lines


def draw(configs, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [c["name"] for c in configs]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, measure, label in ((axes[0], "coalloc", "co-allocation time (s)"),
                               (axes[1], "response", "response time (s)")):
        s = [summary(c) for c in configs]
        xs = range(len(configs))
        ax.bar([x - 0.2 for x in xs], [v[f"real_{measure}"] for v in s], 0.4, label="real (rig)")
        ax.bar([x + 0.2 for x in xs], [v[f"sim_{measure}"] for v in s], 0.4,
               label="mcb-redundant replay")
        ax.set_xticks(list(xs), names, rotation=30, ha="right")
        ax.set_ylabel(f"mean {label}")
        ax.legend()
    path = os.path.join(out, "coalloc-study.png")
    cli.save_png(fig, path)
    return [path]
