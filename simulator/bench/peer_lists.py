#!/usr/bin/python3
"""The job lists on which mcb-sim is timed against its peer pyss, each as an SWF file (what pyss
reads) and as an mcb job list (CSV) with the same jobs:

- das2-excerpt: the first JOBS usable jobs of DAS2-fs1 (64 processors);
- nasa-85: the NASA iPSC trace (128 processors), submit times compressed to about 85% load;
- synthetic-90: a synthetic list for 256 processors at about 90% load (fixed seed).

Both simulators get the same integers: runtime and requested time whole seconds, runtime at
most the requested time (pyss kills a job at its estimate, mcb does not), requested time the
runtime where the trace has none. Usage: peer_lists.py TRACES_DIR OUT_DIR [JOBS]
"""
import os
import random
import sys


def swf_jobs(path, limit=None):
    """(submit, procs, runtime, requested) of the usable records, in file order."""
    jobs = []
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith(";"):
                continue
            x = s.split()
            submit, run, procs = float(x[1]), float(x[3]), int(float(x[4]))
            req_procs, req = int(float(x[7])), float(x[8])
            procs = max(procs, req_procs)
            if run <= 0 or procs <= 0:
                continue
            run = max(1, int(round(run)))
            req = max(run, int(round(req))) if req > 0 else run
            jobs.append((int(round(submit)), procs, run, req))
            if limit and len(jobs) == limit:
                break
    t0 = jobs[0][0]
    return [(s - t0, p, r, q) for (s, p, r, q) in jobs]


def scaled(jobs, procs, load):
    """Submit times compressed so the offered load is about @p load."""
    work = sum(p * r for (_, p, r, _) in jobs)
    span = jobs[-1][0] - jobs[0][0]
    factor = min(1.0, work / (procs * span) / load)
    return [(int(s * factor), p, r, q) for (s, p, r, q) in jobs]


def synthetic(count, procs, load, seed=33):
    rng = random.Random(seed)
    raw = []
    for _ in range(count):
        size = min(procs, 2 ** rng.randint(0, 8) if rng.random() < 0.7 else rng.randint(1, procs))
        run = max(1, int(rng.expovariate(1 / 3000.0)))
        req = max(run, int(run * rng.choice([1, 1.5, 2, 4, 10])))
        raw.append((size, run, req))
    mean_work = sum(p * r for (p, r, _) in raw) / count
    rate = load * procs / mean_work  # arrivals per second
    t, jobs = 0.0, []
    for (size, run, req) in raw:
        jobs.append((int(t), size, run, req))
        t += rng.expovariate(rate)
    return jobs


def write(out, name, procs, jobs, source):
    with open(os.path.join(out, name + ".swf"), "w") as f:
        f.write("; Version: 2.2\n; Computer: %s\n; MaxJobs: %d\n; MaxRecords: %d\n"
                "; MaxProcs: %d\n; Note: %s\n" % (name, len(jobs), len(jobs), procs, source))
        for i, (s, p, r, q) in enumerate(jobs, 1):
            f.write("%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 -1 1 -1 -1 -1\n" % (i, s, r, p, p, q))
    with open(os.path.join(out, name + ".csv"), "w") as f:
        f.write("# %s, %d processors: %s\nid,submit,runtime,requested,components\n"
                % (name, procs, source))
        for i, (s, p, r, q) in enumerate(jobs, 1):
            f.write("%d,%d,%d,%d,%d\n" % (i, s, r, q, p))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    traces, out = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    os.makedirs(out, exist_ok=True)
    das2 = swf_jobs(os.path.join(traces, "DAS2-fs1-2003-1.swf"), count)
    write(out, "das2-excerpt", 64, das2, "first %d usable jobs of DAS2-fs1-2003-1" % len(das2))
    nasa = scaled(swf_jobs(os.path.join(traces, "NASA-iPSC-1993-3.1-cln.swf")), 128, 0.85)
    write(out, "nasa-85", 128, nasa, "NASA-iPSC-1993-3.1-cln at about 85% load")
    write(out, "synthetic-90", 256, synthetic(count, 256, 0.9), "synthetic, about 90% load")


if __name__ == "__main__":
    main()
