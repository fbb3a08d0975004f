"""The allocation-method study (scripts/study-moldable.sh, analysis/moldable_figures.py) at a
reduced size, run as a user runs it: every sweep is checked against the method and system its
folder names, a sweep in the wrong folder is INVALID and stays out of the table, the trace is
skipped with a message when absent, and bad input ends with exit code 2 and one line."""

import csv
import os
import shutil
import subprocess
import tempfile
import unittest

SOURCE = os.environ["MCB_SOURCE_DIR"]
BUILD = os.path.dirname(os.environ["MCB_BIN_DIR"])
PYTHON = "/usr/bin/python3"
SCRIPT = os.path.join(SOURCE, "scripts", "study-moldable.sh")
FIGURES = os.path.join(SOURCE, "analysis", "moldable_figures.py")


def figures(*args):
    return subprocess.run([PYTHON, FIGURES, *args], capture_output=True, text=True, timeout=300)


class ReducedStudy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "study")
        env = dict(os.environ, MCB_BUILD_DIR=BUILD, MCB_MOLDABLE_JOBS="800",
                   MCB_MOLDABLE_LOADS="0.4,0.8", MCB_DAS2_TRACE=os.path.join(cls.tmp.name, "none"))
        cls.done = subprocess.run(["bash", SCRIPT, cls.out], capture_output=True, text=True,
                                  env=env, timeout=600)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def rows(self, name):
        with open(os.path.join(self.out, name), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    def test_every_sweep_is_valid_and_drawn(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        self.assertIn("the trace is skipped", self.done.stdout)
        self.assertEqual(self.done.stdout.count(": VALID"), 3 * 2 * 8, self.done.stdout)
        for mix in ("poisson", "ensflow", "mixed"):
            for system in ("homogeneous", "heterogeneous"):
                path = os.path.join(self.out, f"moldable-{mix}-{system}.png")
                self.assertGreater(os.path.getsize(path), 1000, path)
        self.assertEqual(len(self.rows("moldable.csv")), 3 * 2 * 8 * 2)
        self.assertEqual(len(self.rows("winners.csv")), 3 * 2 * 2)

    def test_power_and_idle_selection_agree_on_a_homogeneous_system(self):
        rows = [r for r in self.rows("moldable.csv") if r["system"] == "homogeneous"]
        by = {(r["workload"], r["method"], r["offered_utilization"]): r["response_mean"]
              for r in rows}
        for (w, m, u), v in by.items():
            if m.endswith("-power"):
                self.assertEqual(v, by[(w, m.replace("-power", "-idle"), u)], (w, m, u))

    def test_a_sweep_in_the_wrong_folder_is_invalid_and_left_out(self):
        study = os.path.join(self.tmp.name, "wrong")
        shutil.copytree(os.path.join(self.out, "poisson"), os.path.join(study, "poisson"))
        target = os.path.join(study, "poisson", "heterogeneous", "adaptive-idle")
        shutil.rmtree(target)
        shutil.copytree(os.path.join(self.out, "poisson", "homogeneous", "adaptive-idle"), target)
        done = figures(study)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("poisson/heterogeneous/adaptive-idle: INVALID: speeds", done.stdout)
        with open(os.path.join(study, "moldable.csv"), newline="", encoding="utf-8") as f:
            kept = [(r["system"], r["method"]) for r in csv.DictReader(f)]
        self.assertNotIn(("heterogeneous", "adaptive-idle"), kept)
        self.assertIn(("homogeneous", "adaptive-idle"), kept)

    def test_a_missing_study_is_one_line_and_exit_two(self):
        done = figures(os.path.join(self.tmp.name, "absent"))
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertIn("absent", done.stderr)


if __name__ == "__main__":
    unittest.main()
