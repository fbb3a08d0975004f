"""Issue 30's study: mcb-ensemble on the rig against mcb-batchgrid's replay of the same setting.

A study folder (scripts/study-ensemble.sh) holds one folder per configuration, `multi` (every
queue) and `single` (the largest queue alone), each with `spec.ini`, the runner's
`state/events.jsonl` (jobscripts/README.md, "State and event log"), the background load as it
ran (`load/<system>.swf`, mcb-load) and, once replayed, `sim/summary.json` (mcb-batchgrid run).
"""

import configparser
import glob
import math
import os

from mcb_analysis import cli
from mcb_analysis.inputs import read_json, read_jsonl
from mcb_analysis.output import Table, number
from mcb_analysis.swf import FIELDS, header_value, read_swf, swf_text

CONFIGS = ("multi", "single")
SYSTEMS = ("slurm-a", "slurm-b", "gridengine")
# The rig's batch systems as mcb-batchgrid disciplines: Slurm backfills, Grid Engine does not.
DISCIPLINE = {"slurm": "easy", "gridengine": "fcfs"}
_SUBMIT, _WAIT, _RUN = FIELDS.index("submit"), FIELDS.index("wait"), FIELDS.index("run")


def _mean(values):
    values = list(values)
    return sum(values) / len(values) if values else math.nan


def spec_of(folder):
    """The queues of a configuration's spec.ini: name -> (system, processors, limit seconds)."""
    path = os.path.join(folder, "spec.ini")
    if not os.path.isfile(path):
        raise cli.MissingInput(f"{path}: no such file")
    p = configparser.ConfigParser(inline_comment_prefixes=("#",), interpolation=None)
    try:
        p.read(path, encoding="utf-8")
    except configparser.Error as e:
        raise cli.BadInput(f"{path}: {e}")
    queues = {}
    for section in p.sections():
        if section.startswith("queue."):
            q = p[section]
            limit = q.get("time-limit", "")
            if not limit.endswith("s") or not limit[:-1].isdigit():
                raise cli.BadInput(f"{path}: [{section}] time-limit: '{limit}' is not N s")
            queues[section[6:]] = (q.get("system"), int(q.get("processors")), int(limit[:-1]))
    if not queues:
        raise cli.BadInput(f"{path}: no [queue.NAME] section")
    return queues


def run_of(folder):
    """What one real run measured, from its event log."""
    events = read_jsonl(os.path.join(folder, "state", "events.jsonl"))
    queues = spec_of(folder)
    begin = next((e["t"] for e in events if e.get("event") == "begin"), None)
    end = next((e["t"] for e in events if e.get("event") == "finished"), None)
    if begin is None or end is None:
        raise cli.BadInput(f"{folder}: the run has no begin or no finished event")
    wall = end - begin
    submitted, started, gone, processors = {}, {}, {}, {}
    segments, done, remaps, mid_remaps, transfers, killed = {}, [], 0, 0, [], 0
    for e in events:
        kind = e.get("event")
        if kind == "submit":
            submitted[e["tag"]] = e["t"]
            processors[e["tag"]] = queues[e["queue"]][1]
        elif kind == "active":
            started[e["tag"]] = e["t"]
        elif kind == "gone":
            gone[e["tag"]] = e["t"]
        elif kind == "segment":
            segments[e["n"]] = e
        elif kind == "segment-end" and e.get("outcome") == "done":
            # From the runner's decision to its noticing the end: the pilot's pick-up and the
            # polls are part of what a model day costs on the rig.
            began = segments[e["n"]]
            # A segment stopped for a remap (its stop file) ends at `day`, before its `to`.
            done.append({"days": e.get("day", e["to"]) - e["from"], "took": e["t"] - began["t"],
                         "processors": began["processors"], "status": e.get("status", ""),
                         "joined": len(began.get("parts", [])) > 1,
                         "stopped": e.get("day", e["to"]) < e["to"]})
        elif kind == "segment-end" and e.get("outcome") == "killed":
            killed += 1
        elif kind == "remap":
            remaps += 1
            mid_remaps += 1 if e.get("mid_segment") else 0
        elif kind == "transfer":
            transfers.append(e)
    # A pilot still queued at the end counts with its wait so far (as mcb-batchgrid does).
    waits = [min(started.get(tag, end), end) - t for tag, t in submitted.items() if t < end]
    # Seed 003's resource availability rate: processor-seconds of the active pilots per second.
    held = sum(processors[tag] * (min(gone.get(tag, end), end) - t)
               for tag, t in started.items() if t < end)
    finished = next(e for e in events if e.get("event") == "finished")
    days = finished["day"]
    # The run's verdict is its last segment's, which judges days 1 to the horizon
    # (jobscripts/README.md); a log without one was written before runs were judged.
    verdict = str(finished.get("verdict", "")).upper() or "INVALID"
    reason = finished.get("reason", "" if "verdict" in finished else "no verdict in the log")
    return {"wall": wall, "days": days, "days_per_hour": days / wall * 3600,
            "verdict": verdict, "reason": reason,
            "valid_segments": sum(1 for s in done if s["status"] == "valid"),
            "wait": _mean(waits), "pilots": len(submitted), "rar": held / wall,
            "remaps": remaps, "mid_remaps": mid_remaps, "killed": killed, "segments": done,
            "stopped": sum(1 for s in done if s["stopped"]),
            "joined": sum(1 for s in done if s["joined"]),
            "transfers": len(transfers),
            "transfer_seconds": sum(t["seconds"] for t in transfers),
            "transfer_bytes": max((t["bytes"] for t in transfers), default=0),
            "queues": queues}


def fit(study):
    """a + b/P per model day, least squares over the done segments on one queue of both runs (a
    segment's time from the runner's `segment` to its `segment-end`, over its days: mpirun's
    start and the pilot's pick-up included); the
    restart file's size and the mean measured transfer."""
    every = {c: run_of(os.path.join(study, c)) for c in CONFIGS}
    # Only VALID runs, and their valid segments, feed the fit.
    runs = [r for r in every.values() if r["verdict"] == "VALID"]
    if not runs:
        raise cli.BadInput(f"{study}: no VALID run to fit a + b/P on (" + "; ".join(
            f"{c}: {r['verdict']}: {r['reason']}" for c, r in every.items()) + ")")
    # Segments joined over several queues are left out: mcb-batchgrid's --app is one component,
    # which its scheduler maps onto one queue, so the replay models only those.
    points = [(1 / s["processors"], s["took"] / s["days"]) for r in runs for s in r["segments"]
              if s["days"] > 0 and s["status"] == "valid" and not s["joined"]]
    if not points:
        raise cli.BadInput(f"{study}: no valid done segment to fit a + b/P on")
    mx, my = _mean(x for x, _ in points), _mean(y for _, y in points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx > 0 else 0.0
    b = max(b, 0.0)  # more processors are never predicted slower
    a = max(my - b * mx, 0.0)
    valid = [c for c, r in every.items() if r["verdict"] == "VALID"]
    sizes = [os.path.getsize(p) for c in valid
             for p in glob.glob(os.path.join(study, c, "state", "sites", "*", "day-*.rst"))]
    # Per restart file moved (a remap onto a set led by the site holding the file moves none).
    moved = [r["transfer_seconds"] / r["transfers"] for r in runs if r["transfers"]]
    return {"a": a, "b": b, "points": len(points), "runs": valid,
            "restart_bytes": max(sizes, default=0),
            "restart_seconds": _mean(moved) if moved else 0.0}


def replay_trace(path, begin):
    """A system's background jobs as they ran (mcb-load's SWF, times from its UnixStartTime), on
    the ensemble's clock (0 = its begin): a job over before it is left out, one running then
    starts at 0 with what was left of it, one waiting then is submitted at 0."""
    with open(path, encoding="utf-8") as f:
        has_jobs = any(line.strip() and not line.lstrip().startswith(";") for line in f)
    if not has_jobs:
        return "; MaxProcs: 4\n"
    header, rows = read_swf(path)
    origin = header_value(header, "UnixStartTime")
    if origin is None:
        raise cli.BadInput(f"{path}: no UnixStartTime header")
    shift = float(origin) - begin
    kept = []
    for row in rows:
        if row[_WAIT] < 0 or row[_RUN] <= 0:
            continue  # cancelled before it started: it held nothing
        submit = row[_SUBMIT] + shift
        start, end = submit + row[_WAIT], submit + row[_WAIT] + row[_RUN]
        if end <= 0:
            continue
        row = list(row)
        if submit < 0:
            row[_SUBMIT], row[_WAIT] = 0.0, max(start, 0.0)
            row[_RUN] = end - max(start, 0.0)
        else:
            row[_SUBMIT] = submit
        kept.append(row)
    kept.sort(key=lambda r: r[_SUBMIT])
    return swf_text([(k, v) for k, v in header if k in ("Version", "MaxProcs")], kept)


def acting_limits(study, queues):
    """Each queue's limit as it acted: the longest a pilot of it ran before its system ended it
    (both runs; Slurm keeps limits in whole minutes and ends a job on a later pass, Grid Engine
    enforces h_rt on its next pass), else the spec's."""
    ran = {}
    for config in CONFIGS:
        for e in read_jsonl(os.path.join(study, config, "state", "events.jsonl")):
            if e.get("event") == "gone" and isinstance(e.get("ran"), (int, float)):
                ran[e["queue"]] = max(ran.get(e["queue"], 0), e["ran"])
    return {n: ran.get(n, q[2]) if ran.get(n, 0) >= q[2] else q[2] for n, q in queues.items()}


def replay(study, config, out):
    """Writes OUT/<system>.swf and OUT/args: mcb-batchgrid run's arguments for this run, the
    largest queue first (mcb-batchgrid's single execution is its first largest queue)."""
    folder = os.path.join(study, config)
    f, _ = read_json(os.path.join(study, "fit.json"), required=("a", "b", "restart_bytes"))
    events = read_jsonl(os.path.join(folder, "state", "events.jsonl"))
    begin = next((e["t"] for e in events if e.get("event") == "begin"), None)
    end = next((e["t"] for e in events if e.get("event") == "finished"), None)
    if begin is None or end is None:
        raise cli.BadInput(f"{folder}: the run has no begin or no finished event")
    queues = spec_of(os.path.join(study, "multi"))  # every queue, in both replays
    order = sorted(queues, key=lambda n: -queues[n][1])
    limits = acting_limits(study, queues)
    os.makedirs(out, exist_ok=True)
    items = []
    for n in order:
        system = queues[n][0]
        trace = os.path.join(out, f"{system}.swf")
        cli.write_atomically(trace, replay_trace(os.path.join(folder, "load", f"{system}.swf"),
                                                 begin))
        kind = "gridengine" if system == "gridengine" else "slurm"
        items.append(f"4:{DISCIPLINE[kind]}:trace={trace}:limit={limits[n]!r}")
    args = ["--queues", ",".join(items),
            "--app", f"{f['a']!r}:{f['b']!r}:{f['restart_bytes']}",
            "--requests", ",".join(str(queues[n][1]) for n in order),
            "--request", str(queues[order[0]][1]),
            "--restart-overhead", repr(f["restart_seconds"]),
            "--limit", str(queues[order[0]][2]), "--horizon-days", repr((end - begin) / 86400),
            "--bandwidths", "100"]
    cli.write_atomically(os.path.join(out, "args"), "\n".join(args) + "\n")
    return args


def load(study):
    """Real and simulated figures per configuration."""
    out = []
    for config in CONFIGS:
        real = run_of(os.path.join(study, config))
        if real["verdict"] != "VALID":
            out.append({"name": config, "real": real, "sim": None})
            continue
        doc, _ = read_json(os.path.join(study, config, "sim", "summary.json"),
                           required=("outcomes", "single_wait", "multi_wait", "verdict"),
                           schema="mcb-batchgrid-run/1")
        if doc["verdict"] != "VALID":
            raise cli.BadInput(f"{study}/{config}/sim: mcb-batchgrid says {doc['verdict']}")
        o = doc["outcomes"][0]
        side = "multi" if config == "multi" else "single"
        sim = {"days_per_hour": o[f"{side}_days_per_day"] / 24, "wait": doc[f"{side}_wait"],
               "rar": o[f"{side}_rar"],
               "remaps": o["multi_reschedulings"] if side == "multi" else math.nan,
               "restart_seconds": o["multi_restart_seconds"] if side == "multi" else math.nan}
        out.append({"name": config, "real": real, "sim": sim})
    return out


def table(configs):
    t = Table("ensemble-study", "The ensemble on the rig against mcb-batchgrid's replay",
              ["configuration", "verdict", "valid segments", "model days", "wall (s)", "pilots",
               "killed segments", "transfer (s)", "real", "sim", "real", "sim", "real", "sim",
               "real", "sim"],
              groups=[("model days / h", 2), ("pilot wait (s)", 2), ("RAR (processors)", 2),
                      ("remaps", 2)])
    for c in configs:
        r, s = c["real"], c["sim"]
        head = [c["name"], r["verdict"], f"{r['valid_segments']} of {len(r['segments'])}",
                str(r["days"])]
        if s is None:  # an INVALID run feeds no figure
            t.add(head + [None] * 12)
            continue
        t.add(head + [r["wall"], str(r["pilots"]), str(r["killed"]), r["transfer_seconds"],
                      r["days_per_hour"], s["days_per_hour"], r["wait"], s["wait"], r["rar"],
                      s["rar"], r["remaps"], s["remaps"]])
    return t


def verdict_lines(configs):
    by = {c["name"]: c for c in configs}
    lines = [f"{c['name']}: {c['real']['verdict']}"
             + (f" ({c['real']['reason']})" if c["real"]["reason"] else "") for c in configs]
    for c in configs:
        r = c["real"]
        if r["remaps"]:
            lines.append(f"{c['name']}: {r['remaps']} remaps, {r['mid_remaps']} of them asked "
                         f"mid-segment; {r['stopped']} segments stopped at an analysis for one")
        if r["joined"]:
            lines.append(f"{c['name']}: {r['joined']} of {len(r['segments'])} done segments ran "
                         "joined over several queues (mcb-batchgrid's replay maps every segment "
                         "onto one queue: it has no such model)")
    if any(c["sim"] is None for c in configs):
        return lines + ["cannot be judged: only VALID runs are compared"]
    for source in ("real", "sim"):
        m, s = by["multi"][source]["days_per_hour"], by["single"][source]["days_per_hour"]
        gain = 100 * (m / s - 1) if s > 0 else math.nan
        word = "HOLDS" if m > s else "DOES NOT HOLD"
        lines.append(f"{source}: multiple queues {number(m)} against the single largest "
                     f"{number(s)} model days/h ({number(gain)}%): {word}")
    return lines


def draw(configs, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = [c for c in configs if c["sim"] is not None]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.6))
    xs = range(len(configs))
    for ax, key, label in ((axes[0], "days_per_hour", "model days / h"),
                           (axes[1], "wait", "mean pilot wait (s)"),
                           (axes[2], "rar", "RAR (processors)")):
        ax.bar([x - 0.2 for x in xs], [c["real"][key] for c in configs], 0.4, label="real (rig)")
        ax.bar([x + 0.2 for x in xs], [c["sim"][key] for c in configs], 0.4,
               label="mcb-batchgrid replay")
        ax.set_xticks(list(xs), [c["name"] for c in configs])
        ax.set_ylabel(label)
    axes[0].legend()
    path = os.path.join(out, "ensemble-study.png")
    cli.save_png(fig, path)
    return [path]
