"""The Figure 5 study (analysis/fig5_study.py, run by scripts/study-fig5.sh) at a reduced
resolution, run as a user runs it: the paper's conclusions that hold on the paper's own tables
still hold, every curve gets a saturation point with an interval, and bad options end with exit
code 2 and one line. Timing is measured by the study itself, never asserted here."""

import csv
import json
import os
import subprocess
import tempfile
import unittest

SOURCE = os.environ["MCB_SOURCE_DIR"]
SIM = os.path.join(os.environ["MCB_BIN_DIR"], "mcb-sim")
PYTHON = os.environ.get("MCB_ANALYSIS_PYTHON", "/usr/bin/python3")
STUDY = os.path.join(SOURCE, "analysis", "fig5_study.py")
TABLES = os.path.join(SOURCE, "calibration", "das2")


def study(out, *args):
    return subprocess.run([PYTHON, STUDY, "--mcb-sim", SIM, "--tables", TABLES, "--output", out,
                           *args], capture_output=True, text=True, timeout=900)


class ReducedStudy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "study")
        cls.done = study(cls.out, "--jobs", "4000", "--replications", "3", "--resolution",
                         "0.02")
        with open(os.path.join(cls.out, "claims.json"), encoding="utf-8") as f:
            cls.claims = {c["id"]: c for c in json.load(f)}
        with open(os.path.join(cls.out, "saturation.csv"), newline="", encoding="utf-8") as f:
            cls.points = list(csv.DictReader(f))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_prints_the_claims_table(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        self.assertIn("### Claims of sections 5 and 6", self.done.stdout)
        self.assertIn("In all the graphs in Fig. 5 the [co] co-allocation rule", self.done.stdout)

    def test_every_curve_has_a_point_with_an_interval(self):
        self.assertEqual(len(self.points), 36)
        for p in self.points:
            self.assertTrue(0.4 <= float(p["saturation_gross"]) <= 1.0, p)
            self.assertGreater(float(p["ci95_half_width"]), 0, p)
            self.assertEqual(p["replications"], "3")

    def test_the_conclusions_that_hold_on_the_papers_tables(self):
        # [co] poorest, restrictions help, LS/LP gain from [rco]/[fco], GS best without
        # co-allocation, LS and LP beat GS with it, LP is LS without it, the mix worst, and
        # section 6's gross - net ordering. A "much better" claim needs its difference beyond
        # the band, which 3 replications of 4000 jobs do not always resolve (Ensflow LP [rco]
        # against [no]: +0.053 ± 0.055); here its direction is checked, every difference > 0.
        for cid in ("CO", "R", "LSLP", "GSN", "OUT", "LPN", "M", "G6P", "G6R", "RCO", "BEST"):
            with self.subTest(claim=cid):
                c = self.claims[cid]
                if c["relation"] == ">>":
                    self.assertTrue(all(d["difference"] > 0 for d in c["details"]), c["details"])
                else:
                    self.assertTrue(c["held"], [d for d in c["details"] if not d["held"]])

    def test_lp_without_coallocation_is_ls(self):
        for mix in ("poisson", "ensflow", "mixed"):
            ls = [p for p in self.points if p["mix"] == mix and p["policy"] == "ls"
                  and p["rule"] == "no"]
            lp = [p for p in self.points if p["mix"] == mix and p["policy"] == "lp"
                  and p["rule"] == "no"]
            self.assertEqual(ls[0]["saturation_gross"], lp[0]["saturation_gross"])


class BadOptions(unittest.TestCase):
    def test_exit_two_and_one_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            for args, word in ((["--knee", "steep"], "--knee"),
                               (["--replications", "1"], "--replications"),
                               (["--range", "0.9:0.5"], "--range")):
                with self.subTest(args=args):
                    done = study(os.path.join(tmp, "x"), *args)
                    self.assertEqual(done.returncode, 2, done.stderr)
                    self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
                    self.assertIn(word, done.stderr)
                    self.assertFalse(os.path.exists(os.path.join(tmp, "x")))


if __name__ == "__main__":
    unittest.main()
