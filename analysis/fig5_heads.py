#!/usr/bin/python3
"""Where co-allocated jobs start while a local queue's head waits: the Figure 5 study's LS/LP
question (simulator/README.md, "LS against LP with [co]") read from a run's jobs.csv.

  /usr/bin/python3 analysis/fig5_heads.py DIR/jobs.csv [DIR/jobs.csv ...]

The schedule is replayed in time order (at one instant: departures, then arrivals, then
starts). At the start of every multi-component job, each cluster it takes processors on is
classified by its local queue's head at that instant (the earliest waiting job of queue localN,
not starting then):
  draining  the head is a single-component job larger than the cluster's idle processors: the
            cluster is emptying for it, and the component takes processors it is waiting for;
  taken     the head fitted before the component started and no longer fits after it;
  other     no waiting head, or a multi-component head (LS), or a head that still fits.
Per file it prints the multi-component starts, the components in each class with the
processor-seconds they hold, the share of time the local queues' heads are empty, a
single-component or a multi-component job (LS only: LP's local queues hold no multi-component
job), and the mean wait of the measured single-component jobs by size
and of the multi-component jobs.
"""

import collections
import heapq
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.inputs import read_csv  # noqa: E402

PROG = "fig5_heads.py"
CAPACITY = 32  # the paper's 4 x 32 system
NUMERIC = ("id", "submit", "start", "end", "total_size", "components", "measured")


def read(path):
    """The jobs of one jobs.csv, through the analysis's one CSV reader."""
    frame, _ = read_csv(path, required=NUMERIC + ("clusters", "queue"), numeric=NUMERIC)
    jobs = []
    for i, r in enumerate(frame.to_dict("records")):
        try:
            parts = {int(c): int(n) for c, n in (p.split(":") for p in r["clusters"].split(";"))}
        except ValueError:
            raise cli.BadInput(f"{path}:{i + 2}: column clusters: '{r['clusters']}' is not "
                               "cluster:processors;...")
        jobs.append({"id": int(r["id"]), "submit": r["submit"], "start": r["start"],
                     "end": r["end"], "size": int(r["total_size"]),
                     "components": int(r["components"]), "clusters": parts,
                     "queue": r["queue"], "measured": r["measured"] == 1})
    return jobs


def classify(jobs):
    """Counts and processor-seconds per class of the components of multi-component starts."""
    events = collections.defaultdict(lambda: ([], [], []))
    for j in jobs:
        events[j["end"]][0].append(j)
        events[j["submit"]][1].append(j)
        events[j["start"]][2].append(j)
    clusters = sorted({c for j in jobs for c in j["clusters"]})
    busy = dict.fromkeys(clusters, 0)
    waiting = {f"local{c}": [] for c in clusters}
    started = set()
    count = collections.Counter()
    held = collections.Counter()
    times = sorted(events)
    for i, t in enumerate(times):
        ends, arrivals, starts = events[t]
        for j in ends:
            for c, n in j["clusters"].items():
                busy[c] -= n
        for j in arrivals:
            if j["queue"] in waiting:
                heapq.heappush(waiting[j["queue"]], (j["submit"], j["id"], j))
        now = {j["id"] for j in starts}
        for j in starts:
            if j["components"] < 2:
                continue
            count["multi-component starts"] += 1
            for c, n in j["clusters"].items():
                kind = _kind(waiting[f"local{c}"], started, now, CAPACITY - busy[c], n)
                count[kind] += 1
                held[kind] += n * (j["end"] - j["start"])
        for j in starts:
            started.add(j["id"])
            for c, n in j["clusters"].items():
                busy[c] += n
        if i + 1 < len(times):
            for queue in waiting.values():
                head = _head(queue, started, ())
                kind = "empty" if head is None else (
                    "single" if head["components"] == 1 else "multi")
                held["queue-s " + kind] += times[i + 1] - t
    return count, held


def _head(queue, started, now):
    while queue and queue[0][1] in started:
        heapq.heappop(queue)
    return next((e[2] for e in heapq.nsmallest(len(now) + 1, queue)
                 if e[1] not in now and e[1] not in started), None)


def _kind(queue, started, now, idle, taking):
    head = _head(queue, started, now)
    if head is None or head["components"] != 1:
        return "other"
    if head["size"] > idle:
        return "draining"
    if head["size"] > idle - taking:
        return "taken"
    return "other"


def waits(jobs):
    by = collections.defaultdict(list)
    for j in jobs:
        if j["measured"]:
            key = f"single {j['size']}" if j["components"] == 1 else "multi-component"
            by[key].append(j["start"] - j["submit"])
    return {k: (len(v), sum(v) / len(v)) for k, v in sorted(by.items())}


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("jobs", nargs="+", metavar="JOBS_CSV", help="an mcb-sim run's jobs.csv")
    paths = p.parse_args(argv).jobs
    for path in paths:
        jobs = read(path)
        count, held = classify(jobs)
        multi = count["multi-component starts"]
        print(f"{path}: {len(jobs)} jobs, {multi} multi-component starts")
        parts = sum(count[k] for k in ("draining", "taken", "other"))
        for kind in ("draining", "taken", "other"):
            share = count[kind] / parts if parts else 0.0
            print(f"  components on a cluster whose head is {kind}: {count[kind]} "
                  f"({share:.1%}), {held[kind]:.3g} processor-s")
        total = sum(held["queue-s " + k] for k in ("empty", "single", "multi"))
        print("  local queues' heads over time: " + ", ".join(
            f"{k} {held['queue-s ' + k] / total:.1%}" for k in ("empty", "single", "multi")))
        for key, (n, mean) in waits(jobs).items():
            print(f"  mean wait, {key}: {mean:.0f} s ({n} jobs)")
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
