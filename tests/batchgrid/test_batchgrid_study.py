"""scripts/study-batchgrid.sh at a tiny size: the study VALID, Figures 4-7 drawn and
batchgrid.md setting the paper's averages beside the study's; the figures refuse an INVALID
study with exit code 2 and one line, and write nothing."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ["MCB_SOURCE_DIR"]
BUILD = os.environ["MCB_BUILD_DIR"]
FIGURES = ("fig4-waits.png", "fig5-rar.png", "fig6-throughput.png", "fig7-gains.png")


class StudyBatchgrid(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "study")
        env = dict(os.environ, MCB_BUILD_DIR=BUILD, MCB_BATCHGRID_EXPERIMENTS="12",
                   MCB_BATCHGRID_DAYS="15")
        # One worker: ctest runs other tests beside this one, some of them timing links.
        cls.result = subprocess.run([os.path.join(SOURCE, "scripts", "study-batchgrid.sh"), cls.out,
                                     "--", "--threads", "1"],
                                    env=env, capture_output=True, text=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def invalid_copy(self, name):
        """The study's folder copied as NAME with its verdict set to INVALID."""
        broken = os.path.join(self.tmp.name, name)
        os.makedirs(broken)
        shutil.copy(os.path.join(self.out, "study.csv"), broken)
        with open(os.path.join(self.out, "study.json"), encoding="utf-8") as f:
            meta = json.load(f)
        meta["verdict"] = "INVALID"
        with open(os.path.join(broken, "study.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f)
        return broken

    def test_study_succeeds_and_draws_the_figures(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        for name in FIGURES:
            self.assertGreater(os.path.getsize(os.path.join(self.out, name)), 1000, name)

    def test_the_paper_stands_beside_the_study(self):
        with open(os.path.join(self.out, "batchgrid.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("12 experiments, verdict VALID", text)
        self.assertIn("| measure | paper (section 4.2) | this study |", text)

    def test_an_invalid_study_is_refused_in_one_line(self):
        broken = self.invalid_copy("broken")
        run = subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "analysis",
                                                               "batchgrid_figures.py"), broken],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn("verdict INVALID", run.stderr)
        self.assertEqual(sorted(os.listdir(broken)), ["study.csv", "study.json"])

    def test_statements_over_seeds_come_with_their_interval(self):
        # The same tiny study twice stands for two seeds: every value repeats, so each interval
        # is 0 and each statement's verdict is the same in both folders.
        seeds = subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "analysis",
                                                                 "batchgrid_seeds.py"),
                                self.out, self.out], capture_output=True, text=True)
        self.assertEqual(seeds.returncode, 0, seeds.stderr)
        lines = seeds.stdout.splitlines()
        self.assertTrue(lines[0].startswith("| statement | study | study | mean ± 95% | robust |"))
        rows = {line.split(" | ")[0].lstrip("| "): line for line in lines[2:]}
        self.assertIn("throughput gain at 100 Mbit/s (%), paper 55", rows)
        for name, line in rows.items():
            cells = line.strip("|").split(" | ")
            self.assertEqual(cells[1], cells[2], name)
            self.assertTrue(cells[3].endswith("± 0") or cells[1] == "nan", line)
            self.assertIn(cells[4].strip(), ("yes", "no: fails in every folder"), line)

    def test_statements_over_seeds_refuse_an_invalid_study(self):
        broken = self.invalid_copy("broken-seeds")
        run = subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "analysis",
                                                               "batchgrid_seeds.py"),
                              self.out, broken], capture_output=True, text=True)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn("verdict INVALID", run.stderr)
        self.assertEqual(run.stdout, "")


if __name__ == "__main__":
    sys.exit(unittest.main())
