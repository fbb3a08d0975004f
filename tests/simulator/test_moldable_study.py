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
        # 8 methods on two systems, and section VI's 5 on the unequal-load system, per mix
        sweeps = 3 * (2 * 8 + 5)
        self.assertEqual(self.done.stdout.count(": VALID"), sweeps, self.done.stdout)
        for mix in ("poisson", "ensflow", "mixed"):
            for system in ("homogeneous", "heterogeneous", "unequal-load"):
                path = os.path.join(self.out, f"moldable-{mix}-{system}.png")
                self.assertGreater(os.path.getsize(path), 1000, path)
        self.assertEqual(len(self.rows("moldable.csv")), sweeps * 2)
        self.assertEqual(len(self.rows("winners.csv")), 3 * 3 * 2)

    def test_unequal_local_loads_hurt_independent_clusters_and_not_the_grid(self):
        # Site 0 gets half the arrivals for a quarter of the processors (local load 0.8 at an
        # offered 0.4): independent clusters wait far longer there than with equal local loads,
        # while the load-sharing grid on equal speeds does not see where a job came from.
        rows = {(r["workload"], r["system"], r["method"], r["offered_utilization"]): r
                for r in self.rows("moldable.csv")}
        for mix in ("poisson", "ensflow", "mixed"):
            equal = rows[(mix, "homogeneous", "ic", "0.4")]
            unequal = rows[(mix, "unequal-load", "ic", "0.4")]
            self.assertEqual(float(equal["saturated"]), 0, (mix, equal))
            self.assertTrue(float(unequal["saturated"]) == 1 or
                            float(unequal["response_mean"]) > 2 * float(equal["response_mean"]),
                            (mix, equal, unequal))
            for load in ("0.4", "0.8"):
                self.assertEqual(rows[(mix, "unequal-load", "grid-idle", load)]["response_mean"],
                                 rows[(mix, "homogeneous", "grid-idle", load)]["response_mean"])

    def test_a_sweep_in_the_wrong_folder_is_invalid_and_left_out(self):
        study = os.path.join(self.tmp.name, "wrong")
        shutil.copytree(os.path.join(self.out, "poisson"), os.path.join(study, "poisson"))
        target = os.path.join(study, "poisson", "heterogeneous", "adaptive-idle")
        shutil.rmtree(target)
        shutil.copytree(os.path.join(self.out, "poisson", "homogeneous", "adaptive-idle"), target)
        done = figures(study)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("poisson/heterogeneous/adaptive-idle: INVALID: speeds", done.stdout)
        target = os.path.join(study, "poisson", "unequal-load", "ic")
        shutil.rmtree(target)
        shutil.copytree(os.path.join(self.out, "poisson", "homogeneous", "ic"), target)
        done = figures(study)
        self.assertIn("poisson/unequal-load/ic: INVALID: site rates", done.stdout)
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
