"""Figures of one simulator run over time: a Gantt chart of the processors (from the Batsim
jobs file, batsim_jobs.csv, that `mcb-sim --schedule batsim` writes) and the utilization and
queue length over time (from jobs.csv). The numbers drawn are computed here by plain functions
(gantt_bars, busy_over_time, waiting_over_time) that the tests check against the schedule. A
replay of a trace with a start time (SWF UnixStartTime, TimeZoneString) at its recorded pace gets
dates on its time axes."""

import datetime
import os
import zoneinfo

import matplotlib.dates as mdates
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PolyCollection

from .cli import BadInput
from .inputs import read_csv
from .output import Figure, clean, headline
from .swf import plain

BATSIM_COLUMNS = ["job_id", "profile", "submission_time", "requested_number_of_resources",
                  "starting_time", "finish_time", "allocated_resources"]
BATSIM_NUMBERS = ["submission_time", "requested_number_of_resources", "starting_time",
                  "finish_time"]


def read_batsim(path):
    """Batsim's jobs file, checked (columns, numbers, interval sets). Returns (DataFrame,
    Source)."""
    frame, source = read_csv(path, BATSIM_COLUMNS, numeric=BATSIM_NUMBERS,
                             strings=["profile"])
    for i, text in enumerate(frame["allocated_resources"]):
        try:
            parse_intervals(text)
        except ValueError:
            raise BadInput(f"{path}:{i + 2}: column allocated_resources: '{text}' is not an "
                           "interval set such as '0-7 32-39'")
    return frame, source


def parse_intervals(text):
    """Batsim's interval set text ('0-7 32 40-47') as [(first, last)], closed intervals."""
    out = []
    for part in str(text).split():
        first, _, last = part.partition("-")
        a, b = int(first), int(last) if last else int(first)
        if a < 0 or b < a:
            raise ValueError(part)
        out.append((a, b))
    if not out:
        raise ValueError(text)
    return out


def gantt_bars(batsim):
    """One bar per job and processor interval: (job_id, first, last, start, finish)."""
    bars = []
    for job, text, start, finish in zip(batsim["job_id"], batsim["allocated_resources"],
                                        batsim["starting_time"], batsim["finish_time"]):
        for first, last in parse_intervals(text):
            bars.append((str(job), first, last, float(start), float(finish)))
    return bars


def _steps(ups, downs):
    """A count that rises by weight at each up time and falls at each down time: (times,
    values), the value holding from each time to the next. Falls come first at equal times,
    as the simulator handles departures before starts."""
    events = sorted([(t, 0, -w) for t, w in downs] + [(t, 1, w) for t, w in ups])
    times, values, level = [], [], 0.0
    for t, _, w in events:
        level += w
        if times and times[-1] == t:
            values[-1] = level
        else:
            times.append(t)
            values.append(level)
    return times, values


def busy_over_time(jobs):
    """Busy processors over time from jobs.csv's start and end times (as simulated, not
    recomputed from wait and response, which would round)."""
    size = jobs["total_size"]
    return _steps(list(zip(jobs["start"], size)), list(zip(jobs["end"], size)))


def waiting_over_time(jobs):
    """Jobs waiting in the queues over time from jobs.csv."""
    return _steps([(t, 1.0) for t in jobs["submit"]], [(t, 1.0) for t in jobs["start"]])


def time_origin(point):
    """(Unix time of the run's time 0, tzinfo, zone name) for a replay of a trace whose header
    gives its start (UnixStartTime) and whose arrivals were not rescaled; None otherwise. The
    run's times count from the trace's first arrival."""
    workload = point.doc["config"].get("workload") or {}
    header = workload.get("header") or {}
    start = plain(header.get("UnixStartTime", ""))
    if not start.lstrip("-").isdigit() or float(point.doc["point"].get("time_scale", 1)) != 1:
        return None
    zone = plain(header.get("TimeZoneString", "")) or "UTC"
    try:
        tz = zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone, tz = "UTC", datetime.timezone.utc
    return int(start) + float(workload.get("first_submit") or 0), tz, zone


class TimeAxis:
    """Seconds of the run on an axis: as seconds, or as dates where the trace has a start."""

    def __init__(self, point):
        self.origin = time_origin(point)
        self.label = f"date ({self.origin[2]})" if self.origin else "time (s)"

    def x(self, seconds):
        """Axis coordinates of run times (Matplotlib's day numbers when dated)."""
        seconds = np.asarray(seconds, dtype=float)
        return (self.origin[0] + seconds) / 86400.0 if self.origin else seconds

    def apply(self, ax):
        ax.set_xlabel(self.label)
        if self.origin:
            locator = mdates.AutoDateLocator(tz=self.origin[1])
            ax.xaxis.set_major_locator(locator)
            ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=self.origin[1]))

    def sidecar(self):
        if not self.origin:
            return {}
        return {"unix_start": self.origin[0], "time_zone": self.origin[2]}


def widened(bars, span, pixels):
    """Bars as (start, finish) at least two pixels wide, so that each covers one pixel in full
    wherever it falls: a job shorter than a pixel of the time axis would otherwise vanish from
    the chart, or show as a faint blend."""
    least = 2 * span / max(pixels, 1.0)
    return [(s, max(f, s + least)) for *_, s, f in bars]


def capacity(point):
    sizes = (point.doc["config"].get("clusters") or {}).get("sizes") or []
    return sum(int(s) for s in sizes)


def cluster_edges(point):
    edges, total = [], 0
    for s in (point.doc["config"].get("clusters") or {}).get("sizes") or []:
        total += int(s)
        edges.append(total)
    return edges[:-1]


def gantt_figure(point, figure_id, label):
    """Processors (y) over time (x): each job a bar over the processor ids it held, coloured by
    application and at least a pixel wide, so that every job shows; dotted lines separate the
    clusters."""
    path = os.path.join(point.path, "batsim_jobs.csv")
    if not os.path.exists(path):
        raise BadInput(f"--sweep: '{point.path}' has no batsim_jobs.csv for the Gantt chart "
                       "(run mcb-sim with --schedule batsim)")
    batsim, source = read_batsim(path)
    bars = gantt_bars(batsim)
    apps = sorted(set(batsim["profile"]))
    colour = {app: f"C{k % 10}" for k, app in enumerate(apps)}
    app_of = dict(zip((str(j) for j in batsim["job_id"]), batsim["profile"]))
    axis = TimeAxis(point)
    fig, ax = plt.subplots(figsize=(9.0, 4.2), layout="constrained")
    lo = min((s for *_, s, _ in bars), default=0.0)
    hi = max((f for *_, f in bars), default=1.0)
    hi = hi if hi > lo else lo + 1.0
    ax.set_xlim(*axis.x([lo, hi]))
    ax.set_ylim(0, capacity(point) or max((b + 1 for _, _, b, _, _ in bars), default=1))
    axis.apply(ax)
    ax.set_ylabel("processor id")
    fig.canvas.draw()  # the laid-out axes give the width of a pixel in time
    pixels = ax.get_window_extent().width
    spans = widened(bars, hi - lo, pixels)
    polys = []
    for (_, a, b, _, _), (s, f) in zip(bars, spans):
        x0, x1 = axis.x([s, f])
        polys.append([(x0, a), (x1, a), (x1, b + 1), (x0, b + 1)])
    faces = [colour[app_of[j]] for j, *_ in bars]
    ax.add_collection(PolyCollection(polys, facecolors=faces, edgecolors=faces, linewidths=0.2))
    # Room for the first and the last bar whole, clear of the axes' frame.
    pad = 2 * (hi - lo) / max(pixels, 1.0)
    ax.set_xlim(*axis.x([lo - pad, max((f for _, f in spans), default=hi) + pad]))
    for edge in cluster_edges(point):
        ax.axhline(edge, color="0.3", linewidth=0.5, linestyle=":")
    for app in apps:
        ax.plot([], [], color=colour[app], linewidth=6, label=app)
    # Beside the axes: inside, the legend would hide jobs.
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=8)
    title = f"One simulator run, {point.describe()}: Gantt chart of {len(batsim)} jobs"
    headline(fig, title, label)
    f = Figure(figure_id, title, fig, {
        "xlabel": axis.label, "ylabel": "processor id", "cluster_edges": cluster_edges(point),
        **axis.sidecar(),
        "least_width_s": min((f - s for s, f in spans), default=0.0),
        "bars": [{"job": j, "first": a, "last": b, "start": s, "finish": e}
                 for j, a, b, s, e in bars]})
    f.source = source.path
    return f


def load_figure(point, figure_id, label):
    """Top: utilization (busy processors over the capacity) over time; bottom: jobs waiting."""
    jobs = point.jobs
    if not len(jobs):
        raise BadInput(f"{point.jobs_source.path}: no jobs to draw")
    cap = capacity(point)
    bt, busy = busy_over_time(jobs)
    wt, waiting = waiting_over_time(jobs)
    util = [b / cap for b in busy] if cap else busy
    axis = TimeAxis(point)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9.0, 4.8), sharex=True,
                                      layout="constrained")
    top.step(axis.x(bt), util, where="post", color="C0", linewidth=0.7)
    top.set_ylabel("utilization" if cap else "busy processors")
    top.set_ylim(0, 1.02 if cap else None)
    top.grid(linewidth=0.4, alpha=0.5)
    bottom.step(axis.x(wt), waiting, where="post", color="C3", linewidth=0.7)
    bottom.set_ylabel("jobs waiting")
    axis.apply(bottom)
    bottom.grid(linewidth=0.4, alpha=0.5)
    title = f"One simulator run, {point.describe()}: utilization and queue length over time"
    headline(fig, title, label)
    return Figure(figure_id, title, fig, {**axis.sidecar(), "panels": [
        {"title": "utilization", "xlabel": "time (s)", "ylabel": "busy / capacity",
         "capacity": cap, "x": clean(np.array(bt)), "y": clean(np.array(util))},
        {"title": "queue length", "xlabel": "time (s)", "ylabel": "jobs waiting",
         "x": clean(np.array(wt)), "y": clean(np.array(waiting))}]})
