"""scripts/study-redundant.sh at a tiny size: every run VALID, the six figures drawn and
redundant.md listing every observation with a verdict; the analysis refuses a broken table
with exit code 2 and one line."""

import os
import subprocess
import tempfile
import unittest

SOURCE = os.environ["MCB_SOURCE_DIR"]
BUILD = os.environ["MCB_BUILD_DIR"]


class StudyRedundant(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "study")
        # 300 global jobs: at 150 or 200 the Workload ranker's runs (FCFS, and the heterogeneous
        # grid), near their knee, grow their queues past the saturation test's floor of 50 jobs.
        env = dict(os.environ, MCB_BUILD_DIR=BUILD, MCB_REDUNDANT_JOBS="300",
                   MCB_REDUNDANT_REPLICATIONS="2", MCB_REDUNDANT_DUPLICATES="0,1,2,7")
        cls.result = subprocess.run([os.path.join(SOURCE, "scripts", "study-redundant.sh"), cls.out],
                                 env=env, capture_output=True, text=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_study_succeeds_and_draws_the_figures(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        for name in ("fig1-fcfs.png", "fig1-cons.png", "fig2-local.png", "fig5-hetero.png",
                     "fig3-coalloc.png", "fig4-hibernation.png"):
            self.assertGreater(os.path.getsize(os.path.join(self.out, name)), 1000, name)

    def test_every_observation_has_a_verdict(self):
        with open(os.path.join(self.out, "redundant.md"), encoding="utf-8") as f:
            text = f.read()
        for oid in ("fcfs-gap", "cons-gap", "cons-local-random", "cons-flood-qlen", "hetero",
                    "fig3-dup", "fig3-estqt", "fig3-qlen2", "fig3-idealmin", "fig4-hib",
                    "fig4-similar"):
            line = next(x for x in text.splitlines() if x.startswith(f"| {oid} |"))
            self.assertRegex(line, r"\| (held|\*\*failed\*\*) \|")

    def test_coalloc_runs_cover_figures_3_and_4(self):
        with open(os.path.join(self.out, "coalloc-hib", "redundant.csv"), encoding="utf-8") as f:
            header = f.readline()
        for column in ("sync", "coalloc_hold_mean", "all_wait_mean", "releases"):
            self.assertIn(column, header)
        with open(os.path.join(self.out, "redundant.md"), encoding="utf-8") as f:
            self.assertIn("## Co-allocation (Figures 3 and 4)", f.read())

    def test_broken_table_is_refused_in_one_line(self):
        bad = os.path.join(self.tmp.name, "bad")
        subprocess.run(["cp", "-r", self.out, bad], check=True)
        path = os.path.join(bad, "cons", "redundant.csv")
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        lines[2] = lines[2].replace(",VALID", ",stopped")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        r = subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "analysis",
                                                              "redundant_figures.py"), bad],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("redundant.csv:3", r.stderr)


if __name__ == "__main__":
    unittest.main()
