"""A real mcb-sim replay written with --schedule batsim,swf (the DAS-2 excerpt on two clusters of
32): pandas loads both schedule files as they are, and simulation.py's Gantt chart and load
figures draw exactly the schedule: the Gantt bars are the jobs' processor ids and times, no
processor is held twice at once, and the utilization curve's area is the jobs' work."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import pandas as pd

from support import BIN, SOURCE, TempDirTest, read_csv, read_json, run

sys.path.insert(0, os.path.join(SOURCE, "analysis"))
from mcb_analysis import schedule_figures as schedf  # noqa: E402

BATSIM = ["job_id", "workload_name", "profile", "submission_time",
          "requested_number_of_resources", "requested_time", "success", "final_state",
          "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time",
          "stretch", "allocated_resources", "consumed_energy", "metadata"]
RUN = None
FIGS = None


def setUpModule():
    global RUN, FIGS
    if not BIN or not os.path.exists(os.path.join(BIN, "mcb-sim")):
        raise unittest.SkipTest("MCB_BIN_DIR holds no mcb-sim")
    RUN = tempfile.mkdtemp(prefix="mcb-analysis-schedule-")
    FIGS = os.path.join(RUN, "figs")
    trace = os.path.join(SOURCE, "tests", "fixtures", "traces", "DAS2-fs1-2003-1-excerpt.swf")
    proc = subprocess.run([os.path.join(BIN, "mcb-sim"), "--trace", trace, "--clusters", "2x32",
                           "--queue", "easy", "--rule", "co", "--rate", "0.02", "--schedule", "batsim,swf",
                           "--output", os.path.join(RUN, "run")],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"mcb-sim failed: {proc.stderr}")
    proc = run("simulation.py", "--sweep", os.path.join(RUN, "run"), "--output", FIGS)
    if proc.returncode != 0:
        raise RuntimeError(f"simulation.py failed: {proc.stderr}")


def tearDownModule():
    if RUN:
        shutil.rmtree(RUN, ignore_errors=True)


class PandasLoads(unittest.TestCase):
    def test_batsim_jobs_file_as_it_is(self):
        frame = pd.read_csv(os.path.join(RUN, "run", "batsim_jobs.csv"))
        self.assertEqual(list(frame.columns), BATSIM)
        self.assertEqual(len(frame), 600)
        for column in ("submission_time", "starting_time", "finish_time", "execution_time",
                       "waiting_time", "turnaround_time", "requested_number_of_resources"):
            self.assertTrue(pd.api.types.is_numeric_dtype(frame[column]), column)
        self.assertTrue(((frame["finish_time"] - frame["starting_time"] -
                          frame["execution_time"]).abs() < 1e-6).all())
        self.assertTrue((frame["final_state"] == "COMPLETED_SUCCESSFULLY").all())

    def test_swf_schedule_as_whitespace_separated_fields(self):
        frame = pd.read_csv(os.path.join(RUN, "run", "schedule.swf"), sep=r"\s+", comment=";",
                            header=None)
        self.assertEqual(frame.shape, (600, 18))
        batsim = pd.read_csv(os.path.join(RUN, "run", "batsim_jobs.csv")).set_index("job_id")
        swf = frame.set_index(0)
        # SWF holds whole seconds: each instant is Batsim's exact one rounded (halves up), and
        # the wait is the difference of the rounded submit and start.
        exact = batsim.loc[swf.index]
        self.assertTrue((swf[1] == np.floor(exact["submission_time"] + 0.5)).all())
        self.assertTrue((swf[1] + swf[2] == np.floor(exact["starting_time"] + 0.5)).all())
        self.assertTrue(((swf[2] - exact["waiting_time"]).abs() <= 1).all())
        self.assertTrue((swf[4] == exact["requested_number_of_resources"]).all())


class Gantt(TempDirTest):
    def setUp(self):
        super().setUp()
        self.doc = read_json(os.path.join(FIGS, "run-gantt.json"))
        self.schedule = read_csv(os.path.join(RUN, "run", "batsim_jobs.csv"))

    def test_bars_are_the_schedule(self):
        bars = {}
        for b in self.doc["bars"]:
            bars.setdefault(b["job"], []).append(b)
        self.assertEqual(set(bars), {r["job_id"] for r in self.schedule})
        for r in self.schedule:
            ids = set()
            for b in bars[r["job_id"]]:
                self.assertEqual(b["start"], float(r["starting_time"]))
                self.assertEqual(b["finish"], float(r["finish_time"]))
                ids |= set(range(b["first"], b["last"] + 1))
            self.assertEqual(len(ids), int(r["requested_number_of_resources"]), r["job_id"])
            self.assertTrue(all(0 <= i < 64 for i in ids))

    def test_bars_agree_with_the_clusters_of_jobs_csv(self):
        jobs = {r["id"]: r["clusters"] for r in read_csv(os.path.join(RUN, "run", "jobs.csv"))}
        per_job = {}
        for b in self.doc["bars"]:
            for i in range(b["first"], b["last"] + 1):
                c = per_job.setdefault(b["job"], {})
                c[i // 32] = c.get(i // 32, 0) + 1
        for job, counts in per_job.items():
            text = ";".join(f"{c}:{n}" for c, n in sorted(counts.items()))
            self.assertEqual(text, jobs[job], job)

    def test_no_processor_is_held_twice_at_once(self):
        by_id = {}
        for b in self.doc["bars"]:
            for i in range(b["first"], b["last"] + 1):
                by_id.setdefault(i, []).append((b["start"], b["finish"]))
        for i, uses in by_id.items():
            uses.sort()
            for (_, end), (start, _) in zip(uses, uses[1:]):
                self.assertLessEqual(end, start, f"processor {i}")

    def test_cluster_edge_and_picture(self):
        self.assertEqual(self.doc["cluster_edges"], [32])
        self.assertPicture(os.path.join(FIGS, "run-gantt.png"),
                           os.path.join(FIGS, "run-gantt.svg"))

    def test_bad_interval_set_is_named_by_line(self):
        folder = self.path("run")
        shutil.copytree(os.path.join(RUN, "run"), folder)
        path = os.path.join(folder, "batsim_jobs.csv")
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        lines[3] = lines[3].rsplit(",", 3)[0] + ",7-3,-1,"  # a reversed interval
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        proc = run("simulation.py", "--sweep", folder, "--output", self.path("out"))
        self.assertBadInput(proc, "batsim_jobs.csv:4", "allocated_resources", "7-3")


class Load(unittest.TestCase):
    def test_utilization_area_is_the_jobs_work(self):
        doc = read_json(os.path.join(FIGS, "run-load.json"))
        util = doc["panels"][0]
        self.assertEqual(util["capacity"], 64)
        x, y = util["x"], util["y"]
        area = sum((x[k + 1] - x[k]) * y[k] for k in range(len(x) - 1)) * 64
        work = sum(float(r["requested_number_of_resources"]) * float(r["execution_time"])
                   for r in read_csv(os.path.join(RUN, "run", "batsim_jobs.csv")))
        self.assertAlmostEqual(area / work, 1.0, places=9)
        self.assertLessEqual(max(y), 1.0)
        self.assertEqual(y[-1], 0.0)

    def test_queue_length_counts_the_waiting_jobs(self):
        doc = read_json(os.path.join(FIGS, "run-load.json"))
        queue = doc["panels"][1]
        self.assertGreaterEqual(min(queue["y"]), 0)
        self.assertEqual(queue["y"][-1], 0)
        jobs = read_csv(os.path.join(RUN, "run", "jobs.csv"))
        t = 0.5 * (queue["x"][len(queue["x"]) // 2] + queue["x"][len(queue["x"]) // 2 + 1])
        waiting = sum(1 for r in jobs if float(r["submit"]) <= t < float(r["start"]))
        self.assertEqual(queue["y"][len(queue["x"]) // 2], waiting)


class Series(unittest.TestCase):
    def test_departures_before_starts_at_the_same_instant(self):
        jobs = pd.DataFrame({"submit": [0.0, 0.0], "start": [0.0, 5.0], "end": [5.0, 9.0],
                             "total_size": [4.0, 4.0]})
        self.assertEqual(schedf.busy_over_time(jobs), ([0.0, 5.0, 9.0], [4.0, 4.0, 0.0]))
        self.assertEqual(schedf.waiting_over_time(jobs), ([0.0, 5.0], [1.0, 0.0]))


if __name__ == "__main__":
    unittest.main()
