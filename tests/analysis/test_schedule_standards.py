"""The schedule files against the standards other tools read them by, checked by readers written
here from those standards and not from mcb's own code: Batsim's documented jobs file. The run replays a committed trace (the DAS2-fs1 header over ten jobs
with round times, the numbers a shortest-form writer turns into exponent forms)."""

import csv
import math
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from support import BIN, SOURCE

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


if __name__ == "__main__":
    unittest.main()
