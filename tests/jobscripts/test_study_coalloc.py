"""scripts/study-coalloc.sh --quick on the rig it starts and stops: every configuration has
co-allocated runs with their co-allocation time, held processor-seconds, response time and
overhead beside mcb-redundant's replay of the same workload, and seed 004's claim gets a verdict
with its numbers. Exits 77 (skipped) where the rig cannot run."""

import csv
import os
import re
import subprocess
import sys
import tempfile
import unittest

from rig_processes import processes_naming

SOURCE = os.environ["MCB_SOURCE_DIR"]
BUILD = os.environ["MCB_BUILD_DIR"]
SKIPPED = 77


class StudyCoallocQuick(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "study")
        env = dict(os.environ, MCB_BUILD_DIR=BUILD)
        cls.result = subprocess.run([os.path.join(SOURCE, "scripts", "study-coalloc.sh"),
                                     "--quick", cls.out], env=env, capture_output=True, text=True)
        if cls.result.returncode == SKIPPED:
            print(cls.result.stderr, end="")
            sys.exit(SKIPPED)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_table_has_both_configurations(self):
        self.assertEqual(self.result.returncode, 0, self.result.stdout + self.result.stderr)
        with open(os.path.join(self.out, "table.csv"), newline="", encoding="utf-8") as f:
            rows = {r["configuration"]: r for r in csv.DictReader(f)}
        self.assertEqual(set(rows), {"d0-random-stop-and-wait", "d1-qlen-stop-and-wait"})
        for name, r in rows.items():
            self.assertGreaterEqual(int(r["runs"]), 1, name)
            for column in ("co-allocation time (s) real", "co-allocation time (s) sim",
                           "held idle (processor-s) real", "response time (s) real",
                           "response time (s) sim", "overhead (s) mean"):
                self.assertGreaterEqual(float(r[column]), 0, (name, column))
            # A response includes the run itself: never below its co-allocation.
            self.assertGreater(float(r["response time (s) real"]),
                               float(r["co-allocation time (s) real"]))
            self.assertLessEqual(float(r["overhead (s) min"]), float(r["overhead (s) max"]))

    def test_claim_has_a_verdict_with_numbers(self):
        self.assertRegex(self.result.stdout,
                         r"real stop-and-wait, qlen d=1 against d=0: mean coalloc time "
                         r"\S+ -> \S+ s, improvement \S+%: (HOLDS|DOES NOT HOLD)")
        self.assertRegex(self.result.stdout, r"sim stop-and-wait, qlen d=1 against d=0")

    def test_rig_is_stopped(self):
        rig = os.path.join(self.out, "rig")
        self.assertFalse(os.path.exists(os.path.join(rig, "rig.env")))
        self.assertEqual(processes_naming(rig), [])


if __name__ == "__main__":
    unittest.main()
