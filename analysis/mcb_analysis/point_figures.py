"""A one-point simulator run (mcb-sim without a sweep: one trace replay, or one rate) has no
response-time curve to draw; it gets its own items instead: the point's summary as a table and
its jobs (jobs.csv) as figures, the response-time distribution and the responses over time."""

import math
import os

import matplotlib.pyplot as plt
import numpy as np

from .cli import BadInput
from .inputs import read_csv, read_json
from .output import Figure, Table, clean, headline

JOB_COLUMNS = ["id", "app", "submit", "start", "end", "response", "wait", "total_size",
               "components", "measured"]
JOB_NUMBERS = ["submit", "start", "end", "response", "wait", "total_size", "components",
               "measured"]
LOG_ABOVE = 100.0  # values spanning more than two decades get a log axis


class Point:
    """One run folder of mcb-sim: summary.json and jobs.csv."""

    def __init__(self, path):
        summary = os.path.join(path, "summary.json")
        self.doc, self.summary_source = read_json(summary, required=["config", "point",
                                                                      "result"])
        jobs = os.path.join(path, "jobs.csv")
        if not os.path.exists(jobs):
            raise BadInput(f"--sweep: '{path}' holds summary.json but no jobs.csv (a run with "
                           "--no-jobs-csv cannot be drawn)")
        self.jobs, self.jobs_source = read_csv(jobs, JOB_COLUMNS, numeric=JOB_NUMBERS,
                                               strings=["app"])
        self.path = os.path.abspath(path)
        self.sources = [self.summary_source, self.jobs_source]
        w = self.doc["config"].get("workload") or {}
        name = str(w.get("mix") or w.get("trace") or os.path.basename(self.path))
        self.name = os.path.splitext(os.path.basename(name))[0] or "run"

    def measured(self):
        return self.jobs[self.jobs["measured"] == 1]

    def describe(self):
        p = self.doc["point"]
        return (f"{self.name}: {str(p.get('policy', '?')).upper()}, "
                f"{p.get('placement', '?')}, [{p.get('rule', '?')}], {p.get('queue', '?')}")

    def provenance(self):
        env = self.doc.get("env") or {}
        return {"folder": self.path, "mix": self.name, "point": self.doc["point"],
                "points": 1, "replications": self.doc["config"].get("replications"),
                "workload": self.doc["config"].get("workload"),
                "env": {k: env.get(k) for k in ("host", "date", "revision", "command_line")}}


def is_point(path):
    """A folder of a one-point run (summary.json, no sweep.csv)."""
    return (os.path.isdir(path) and os.path.exists(os.path.join(path, "summary.json")) and
            not os.path.exists(os.path.join(path, "sweep.csv")))


def _value(d, *keys):
    for k in keys:
        d = (d or {}).get(k) if isinstance(d, dict) else None
    return d


def summary_table(point, table_id):
    """The point as numbers: what was run and what came out."""
    r = point.doc["result"]
    p = point.doc["point"]
    t = Table(table_id, f"One simulator run, {point.describe()}: summary", ["quantity", "value"])
    rows = [("arrival rate (jobs/s)", p.get("rate")),
            ("offered net utilization", p.get("offered_utilization")),
            ("time scale (traces)", p.get("time_scale")),
            ("jobs measured", _value(r, "jobs", "measured")),
            ("gross utilization", _value(r, "utilization", "gross")),
            ("net utilization", _value(r, "utilization", "net")),
            ("response time mean (s)", _value(r, "response", "mean")),
            ("response time median (s)", _value(r, "response", "median")),
            ("response time p95 (s)", _value(r, "response", "p95")),
            ("wait mean (s)", _value(r, "wait", "mean")),
            ("bounded slowdown mean", _value(r, "bounded_slowdown", "mean")),
            ("saturated", r.get("saturated"))]
    for name, value in rows:
        if value is None:
            continue
        if isinstance(value, bool):
            t.add([name, "yes" if value else "no"])
        else:
            t.add([name, float(value)])
    return t


def _scale_for(ax, axis, values):
    """Log scale when the positive values span more than two decades; returns the scale."""
    positive = [v for v in values if v > 0]
    if positive and max(positive) / min(positive) > LOG_ABOVE:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        return "log"
    return "linear"


def jobs_figure(point, figure_id, label):
    """Left: the distribution of response times of the measured jobs, one curve per
    application; right: every measured job's response against its submit time."""
    jobs = point.measured()
    if not len(jobs):
        raise BadInput(f"{point.jobs_source.path}: no measured jobs to draw")
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.0, 3.6), layout="constrained")
    apps = sorted(set(jobs["app"]))
    responses = [float(v) for v in jobs["response"]]
    x_scale = _scale_for(left, "x", responses)
    curves = []
    for k, app in enumerate(apps):
        values = np.sort(np.array(jobs[jobs["app"] == app]["response"], dtype=float))
        share = np.arange(1, len(values) + 1) / len(values)
        if x_scale == "log":
            keep = values > 0
            values, share = values[keep], share[keep]
        left.step(values, share, where="post", color=f"C{k}", label=f"{app} ({len(values)})")
        curves.append({"label": app, "x": clean(values), "y": clean(share)})
    left.set_xlabel("response time (s)")
    left.set_ylabel("fraction of measured jobs")
    left.set_ylim(0, 1.02)
    left.grid(linewidth=0.4, alpha=0.5)
    left.legend(loc="lower right", frameon=False)
    y_scale = _scale_for(right, "y", responses)
    submit = [float(v) for v in jobs["submit"]]
    if y_scale == "log":
        shown = [(s, r) for s, r in zip(submit, responses) if r > 0]
    else:
        shown = list(zip(submit, responses))
    right.plot([s for s, _ in shown], [r for _, r in shown], linestyle="none", marker=".",
               markersize=2, color="0.25")
    right.set_xlabel("submit time (s)")
    right.set_ylabel("response time (s)")
    right.grid(linewidth=0.4, alpha=0.5)
    left_out = len(responses) - len(shown)
    title = (f"One simulator run, {point.describe()}: response times of the "
             f"{len(jobs)} measured jobs")
    headline(fig, title, label)
    f = Figure(figure_id, title, fig, {"panels": [
        {"title": "distribution", "xlabel": "response time (s)",
         "ylabel": "fraction of measured jobs", "x_scale": x_scale, "curves": curves,
         "legend": [c["label"] for c in curves]},
        {"title": "over time", "xlabel": "submit time (s)", "ylabel": "response time (s)",
         "y_scale": y_scale, "x": clean([s for s, _ in shown]),
         "y": clean([r for _, r in shown])}]})
    if left_out:
        f.notes.append(f"{left_out} jobs with a response time of 0 s are not on the log axis.")
    if any(math.isnan(v) for v in responses):
        f.notes.append("Jobs without a response time are not drawn.")
    return f
