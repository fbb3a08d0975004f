"""scripts/study-ensemble.sh --quick on the rig it starts and stops: the ensemble reaches its
horizon over every queue and on the largest alone, each run beside mcb-batchgrid's replay of
the same setting (throughput, pilot wait, resource availability rate, remaps), and seed 003's
conclusion gets a verdict with its numbers. Exits 77 (skipped) where the rig cannot run."""

import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

from rig_processes import processes_naming

SOURCE = os.environ["MCB_SOURCE_DIR"]
BUILD = os.environ["MCB_BUILD_DIR"]
SKIPPED = 77
DAYS = 10  # the quick study's horizon (one analysis)
LIMIT = 60  # its pilots' time limit, s


class StudyEnsembleQuick(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "study")
        env = dict(os.environ, MCB_BUILD_DIR=BUILD)
        cls.result = subprocess.run([os.path.join(SOURCE, "scripts", "study-ensemble.sh"),
                                     "--quick", cls.out], env=env, capture_output=True, text=True)
        if cls.result.returncode == SKIPPED:
            print(cls.result.stderr, end="")
            sys.exit(SKIPPED)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def rows(self):
        self.assertEqual(self.result.returncode, 0, self.result.stdout + self.result.stderr)
        with open(os.path.join(self.out, "table.csv"), newline="", encoding="utf-8") as f:
            return {r["configuration"]: r for r in csv.DictReader(f)}

    def test_both_runs_reach_the_horizon_beside_their_replay(self):
        rows = self.rows()
        self.assertEqual(set(rows), {"multi", "single"})
        # Pilots of 2 + 4 + 4 processors over every queue, of 4 on the largest alone.
        for name, processors, pilots in (("multi", 10, 3), ("single", 4, 1)):
            r = rows[name]
            self.assertEqual(int(r["model days"]), DAYS, name)
            # Ensflow's default experiment at 24 members is VALID, and so is every segment:
            # each judges the run from day 1 to its stop day.
            self.assertEqual(r["verdict"], "VALID", name)
            done = r["valid segments"].split(" of ")
            self.assertEqual(done[0], done[1], name)
            self.assertGreaterEqual(int(r["pilots"]), pilots, name)
            for column in ("model days / h real", "model days / h sim", "RAR (processors) real",
                           "RAR (processors) sim"):
                self.assertGreater(float(r[column]), 0, (name, column))
            for column in ("RAR (processors) real", "RAR (processors) sim"):
                self.assertLessEqual(float(r[column]), processors + 1e-9, (name, column))
            for column in ("pilot wait (s) real", "pilot wait (s) sim"):
                self.assertGreaterEqual(float(r[column]), 0, (name, column))
        # The largest queue alone never remaps.
        self.assertEqual(float(rows["single"]["remaps real"]), 0)

    def test_the_replay_uses_the_measured_setting(self):
        self.rows()
        with open(os.path.join(self.out, "fit.json"), encoding="utf-8") as f:
            fit = json.load(f)
        self.assertGreater(fit["a"] + fit["b"], 0)
        self.assertGreater(fit["restart_bytes"], 0)
        with open(os.path.join(self.out, "multi", "replay", "args"), encoding="utf-8") as f:
            args = f.read().split()
        self.assertEqual(args[args.index("--requests") + 1], "4,4,2")
        self.assertEqual(args[args.index("--limit") + 1], str(LIMIT))
        # Each queue at its limit as it acted: never below the one asked for.
        for item in args[args.index("--queues") + 1].split(","):
            self.assertGreaterEqual(float(item.rsplit(":limit=", 1)[1]), LIMIT, item)

    def test_conclusion_has_a_verdict_with_numbers(self):
        for config in ("multi", "single"):
            self.assertIn(f"ensemble_study.py: {config}: VALID", self.result.stdout)
        for source in ("real", "sim"):
            self.assertRegex(self.result.stdout,
                             source + r": multiple queues \S+ against the single largest \S+ "
                             r"model days/h \(\S+%\): (HOLDS|DOES NOT HOLD)")

    def test_rig_is_stopped(self):
        rig = os.path.join(self.out, "rig")
        self.assertFalse(os.path.exists(os.path.join(rig, "rig.env")))
        self.assertEqual(processes_naming(rig), [])


if __name__ == "__main__":
    unittest.main()
