"""The schedule files against the standards other tools read them by, checked by readers written
here from those standards and not from mcb's own code: Batsim's documented jobs file and the
Standard Workload Format. The run replays a committed trace (the DAS2-fs1 header over ten jobs
with round times, the numbers a shortest-form writer turns into exponent forms)."""

import csv
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from support import BIN, SOURCE, read_json, run

TRACE = os.path.join(SOURCE, "tests", "fixtures", "traces", "DAS2-fs1-round-times.swf")
RUN = None

# Batsim's jobs file as its documentation lists it (batsim.readthedocs.io, "Jobs" output):
# seventeen columns, metadata last. Batsim's documentation has listed allocated_resources and
# consumed_energy in either order, and readers (evalys, pandas) take columns by name.
BATSIM_COLUMNS = ["job_id", "workload_name", "profile", "submission_time",
                  "requested_number_of_resources", "requested_time", "success", "final_state",
                  "starting_time", "execution_time", "finish_time", "waiting_time",
                  "turnaround_time", "stretch", "allocated_resources", "consumed_energy",
                  "metadata"]
BATSIM_FINAL_STATES = {"COMPLETED_SUCCESSFULLY", "COMPLETED_FAILED", "COMPLETED_WALLTIME_REACHED",
                       "COMPLETED_KILLED", "REJECTED"}
# Batsim's interval-set text: closed intervals "a-b" or single ids, separated by spaces.
INTERVAL_SET = re.compile(r"^\d+(-\d+)?( \d+(-\d+)?)*$")
# A decimal number without an exponent: what every reader of these files can parse.
PLAIN_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def setUpModule():
    global RUN
    if not BIN or not os.path.exists(os.path.join(BIN, "mcb-sim")):
        raise unittest.SkipTest("MCB_BIN_DIR holds no mcb-sim")
    RUN = tempfile.mkdtemp(prefix="mcb-schedule-standards-")
    proc = subprocess.run([os.path.join(BIN, "mcb-sim"), "--trace", TRACE, "--queue", "easy",
                           "--warmup", "0", "--schedule", "batsim,swf", "--output",
                           os.path.join(RUN, "run")],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"mcb-sim failed: {proc.stderr}")


def tearDownModule():
    if RUN:
        shutil.rmtree(RUN, ignore_errors=True)


def number(text, where):
    if not PLAIN_NUMBER.match(text):
        raise AssertionError(f"{where}: '{text}' is not a plain decimal number")
    return float(text)


class BatsimJobsFile(unittest.TestCase):
    """batsim_jobs.csv read with Python's csv module, each column checked against what Batsim's
    documentation says it holds."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(RUN, "run", "batsim_jobs.csv"), newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        cls.header, cls.rows = rows[0], rows[1:]

    def test_header_is_batsims_documented_columns(self):
        self.assertEqual(self.header, BATSIM_COLUMNS)
        self.assertEqual(len(self.rows), 10)
        for row in self.rows:
            self.assertEqual(len(row), len(BATSIM_COLUMNS), row)

    def test_each_column_holds_what_the_documentation_says(self):
        ids = set()
        for n, row in enumerate(self.rows, start=2):
            r = dict(zip(self.header, row))
            where = f"batsim_jobs.csv:{n}"
            self.assertRegex(r["job_id"], r"^\d+$", where)
            ids.add(r["job_id"])
            self.assertEqual(r["workload_name"], "DAS2-fs1-round-times", where)
            self.assertTrue(r["profile"], where)
            t = {c: number(r[c], f"{where} {c}") for c in
                 ("submission_time", "requested_time", "starting_time", "execution_time",
                  "finish_time", "waiting_time", "turnaround_time", "stretch",
                  "consumed_energy")}
            self.assertRegex(r["requested_number_of_resources"], r"^\d+$", where)
            self.assertIn(r["success"], {"0", "1"}, where)
            self.assertIn(r["final_state"], BATSIM_FINAL_STATES, where)
            # The documented identities between the times.
            self.assertEqual(t["execution_time"], t["finish_time"] - t["starting_time"], where)
            self.assertEqual(t["waiting_time"], t["starting_time"] - t["submission_time"], where)
            self.assertEqual(t["turnaround_time"], t["finish_time"] - t["submission_time"],
                             where)
            self.assertTrue(math.isclose(t["stretch"],
                                         t["turnaround_time"] / t["execution_time"]), where)
            self.assertRegex(r["allocated_resources"], INTERVAL_SET, where)
            held = 0
            for part in r["allocated_resources"].split():
                first, _, last = part.partition("-")
                held += int(last or first) - int(first) + 1
            self.assertEqual(held, int(r["requested_number_of_resources"]), where)
            self.assertEqual(r["metadata"], "", where)  # Batsim's default: no user metadata
        self.assertEqual(len(ids), len(self.rows))

    def test_round_times_are_written_in_full(self):
        by_id = {row[0]: dict(zip(self.header, row)) for row in self.rows}
        self.assertEqual(by_id["1"]["requested_time"], "900000")
        self.assertEqual(by_id["1"]["execution_time"], "100000")
        self.assertEqual(by_id["4"]["submission_time"], "1000000")


class StrictSwfReader:
    """The Standard Workload Format as the Parallel Workloads Archive defines it, read strictly:
    header comment lines ("; Key: value") first, then one job a line of exactly 18 integer
    fields separated by white space, -1 for unknown. Anything else, an exponent form such as
    9e+05 among them, is refused with the line named."""

    FIELD = re.compile(r"^-?\d+$")

    def __init__(self, path):
        self.header = []  # (key, value) in order
        self.jobs = []
        with open(path, encoding="ascii") as f:
            for n, line in enumerate(f, start=1):
                self._line(line.rstrip("\n"), f"{os.path.basename(path)}:{n}")

    def _line(self, line, where):
        if not line.strip():
            return
        if line.lstrip().startswith(";"):
            if self.jobs:
                raise ValueError(f"{where}: header comment after the first job")
            key, colon, value = line.lstrip()[1:].partition(":")
            if colon and key.strip() and " " not in key.strip():
                self.header.append((key.strip(), value.strip()))
            return
        fields = line.split()
        if len(fields) != 18:
            raise ValueError(f"{where}: {len(fields)} fields, SWF has 18")
        for i, text in enumerate(fields, start=1):
            if not self.FIELD.match(text):
                raise ValueError(f"{where}: field {i} '{text}' is not an integer")
        self.jobs.append([int(t) for t in fields])

    def value(self, key):
        values = [v for k, v in self.header if k == key]
        return values[-1] if values else None


class SwfSchedule(unittest.TestCase):
    """schedule.swf through the strict reader, and its jobs against the Batsim file."""

    @classmethod
    def setUpClass(cls):
        cls.swf = StrictSwfReader(os.path.join(RUN, "run", "schedule.swf"))

    def test_the_strict_reader_refuses_exponent_forms(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.swf")
            with open(path, "w", encoding="ascii") as f:
                f.write("; Version: 2.2\n1 0 0 10 1 -1 -1 1 9e+05 -1 1 -1 -1 1 1 -1 -1 -1\n")
            with self.assertRaisesRegex(ValueError, r"bad.swf:2: field 9 '9e\+05'"):
                StrictSwfReader(path)

    def test_every_job_reads_as_18_integers(self):
        self.assertEqual(len(self.swf.jobs), 10)
        self.assertEqual(self.swf.header[0], ("Version", "2.2"))
        self.assertEqual(int(self.swf.value("MaxJobs")), len(self.swf.jobs))
        self.assertEqual(int(self.swf.value("MaxRecords")), len(self.swf.jobs))
        numbers = [job[0] for job in self.swf.jobs]
        self.assertEqual(sorted(numbers), list(range(1, 11)))

    def test_header_carries_the_traces_dates_nodes_and_queues(self):
        # The fixture's first job arrives at 0, so the schedule starts at the trace's start.
        self.assertEqual(self.swf.value("UnixStartTime"), "1041377305")
        self.assertEqual(self.swf.value("TimeZoneString"), "Europe/Amsterdam")
        self.assertEqual(self.swf.value("MaxNodes"), "32 (dual CPU)")
        self.assertEqual(self.swf.value("MaxProcs"), "64")
        self.assertEqual(self.swf.value("MaxQueues"), "1")
        self.assertEqual(self.swf.value("Queue"),
                         "1 - All jobs submitted to same (and only) queue")

    def test_jobs_agree_with_the_batsim_file(self):
        with open(os.path.join(RUN, "run", "batsim_jobs.csv"), newline="",
                  encoding="utf-8") as f:
            batsim = {int(r["job_id"]): r for r in csv.DictReader(f)}
        for job in self.swf.jobs:
            b = batsim[job[0]]
            self.assertEqual(job[1], int(b["submission_time"]), job)
            self.assertEqual(job[2], int(b["waiting_time"]), job)
            self.assertEqual(job[3], int(b["execution_time"]), job)
            self.assertEqual(job[4], int(b["requested_number_of_resources"]), job)
            self.assertEqual(job[8], int(b["requested_time"]), job)
        self.assertIn([1, 0, 0, 100000], [job[:4] for job in self.swf.jobs])
        self.assertIn(900000, [job[8] for job in self.swf.jobs])


def nearest(seconds):
    """The nearest whole second, halves away from zero as C's llround (Python's round() takes
    halves to even)."""
    return math.floor(seconds + 0.5)


class PacedSwfSchedule(unittest.TestCase):
    """A replay at another pace (--utilization divides the trace's submit offsets) has
    fractional times; schedule.swf still passes the strict reader, each instant Batsim's exact
    one rounded to the second, so submit <= start <= end holds."""

    @classmethod
    def setUpClass(cls):
        out = os.path.join(RUN, "paced")
        proc = subprocess.run([os.path.join(BIN, "mcb-sim"), "--trace", TRACE, "--queue", "easy",
                               "--warmup", "0", "--utilization", "0.37", "--schedule",
                               "batsim,swf", "--output", out],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"mcb-sim failed: {proc.stderr}")
        cls.swf = StrictSwfReader(os.path.join(out, "schedule.swf"))
        with open(os.path.join(out, "batsim_jobs.csv"), newline="", encoding="utf-8") as f:
            cls.batsim = {int(r["job_id"]): r for r in csv.DictReader(f)}

    def test_whole_seconds_of_the_exact_times_in_order(self):
        self.assertEqual(len(self.swf.jobs), 10)
        fractional = 0
        for job in self.swf.jobs:
            b = self.batsim[job[0]]
            submit, wait, run_time = job[1], job[2], job[3]
            exact = float(b["submission_time"])
            fractional += exact != int(exact)
            self.assertEqual(submit, nearest(exact), job)
            self.assertEqual(submit + wait, nearest(float(b["starting_time"])), job)
            self.assertEqual(submit + wait + run_time, nearest(float(b["finish_time"])), job)
            self.assertGreaterEqual(wait, 0, job)
            self.assertGreaterEqual(run_time, 0, job)
            self.assertGreaterEqual(job[8], run_time, job)
        self.assertGreater(fractional, 0, "the pace gave no fractional time to round")
        self.assertIn("times rounded to whole seconds, as SWF fields are integers",
                      [v for k, v in self.swf.header if k == "Note"])


class ScheduleFigures(unittest.TestCase):
    """The trace has a start time and the replay keeps its pace: the figures' time axes are
    dates in the trace's time zone. The Gantt chart shows every job."""

    @classmethod
    def setUpClass(cls):
        cls.figs = os.path.join(RUN, "figs")
        proc = run("simulation.py", "--sweep", os.path.join(RUN, "run"), "--output", cls.figs)
        if proc.returncode != 0:
            raise RuntimeError(f"simulation.py failed: {proc.stderr}")

    def test_time_axes_are_dates_of_the_trace(self):
        for name in ("run-gantt.json", "run-load.json"):
            doc = read_json(os.path.join(self.figs, name))
            self.assertEqual(doc["unix_start"], 1041377305, name)
            self.assertEqual(doc["time_zone"], "Europe/Amsterdam", name)
        self.assertEqual(read_json(os.path.join(self.figs, "run-gantt.json"))["xlabel"],
                         "date (Europe/Amsterdam)")

    def test_every_job_shows_in_the_gantt_chart(self):
        """Jobs of 30 to 60 s in a schedule of seven weeks are far narrower than a pixel: each
        must still colour the pixel at the middle of its drawn bar in full (one application, one
        colour)."""
        import matplotlib
        matplotlib.use("Agg")
        import numpy as np
        from matplotlib.colors import to_rgb
        sys.path.insert(0, os.path.join(SOURCE, "analysis"))
        from mcb_analysis import point_figures, schedule_figures
        point = point_figures.Point(os.path.join(RUN, "run"))
        figure = schedule_figures.gantt_figure(point, "g", "test")
        fig = figure.fig
        fig.canvas.draw()
        pixels = np.asarray(fig.canvas.buffer_rgba())[:, :, :3] / 255.0
        ax = fig.axes[0]
        face = np.array(to_rgb("C0"))
        origin = figure.data["unix_start"]
        short = 0
        for bar in figure.data["bars"]:
            width = max(bar["finish"] - bar["start"], figure.data["least_width_s"])
            middle = (origin + bar["start"] + width / 2) / 86400.0
            x, y = ax.transData.transform((middle, (bar["first"] + bar["last"] + 1) / 2))
            colour = pixels[pixels.shape[0] - 1 - int(y), int(x)]
            self.assertLess(np.abs(colour - face).max(), 0.1, f"job {bar['job']}: {colour}")
            short += bar["finish"] - bar["start"] <= 60
        self.assertEqual(short, 3)
        self.assertGreater(figure.data["least_width_s"], 60)


if __name__ == "__main__":
    unittest.main()
