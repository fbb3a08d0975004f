"""analysis/matching_figures.py as a user runs it: on a one-replication study it draws the four
figures with their numbers; it refuses an INVALID study and a missing one (exit 2, one line)."""

import json
import os
import subprocess
import tempfile
import unittest

SOURCE = os.environ["MCB_SOURCE_DIR"]
BIN = os.environ["MCB_BIN_DIR"]
SCRIPT = os.path.join(SOURCE, "analysis", "matching_figures.py")


def run(*args):
    return subprocess.run(["/usr/bin/python3", SCRIPT, *args], capture_output=True, text=True)


class MatchingFigures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.study = os.path.join(cls.tmp.name, "study")
        subprocess.run([os.path.join(BIN, "mcb-match-study"), "--output", cls.study,
                        "--replications", "1"], check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_draws_every_figure_with_its_numbers(self):
        out = os.path.join(self.tmp.name, "figures")
        r = run(self.study, "--output", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for n in (5, 6, 7, 8):
            self.assertGreater(os.path.getsize(os.path.join(out, f"fig{n}.png")), 1000)
        with open(os.path.join(out, "figures.csv"), encoding="utf-8") as f:
            rows = f.read().splitlines()
        # 20 points x 3 matchers (Figs. 5-6), 4 x (5 + 4) (Fig. 7), 6 x 3 (Fig. 8)
        self.assertEqual(len(rows) - 1, 60 + 36 + 18)
        # The solver time is the time to obtain a solution (section 4): a point whose matches
        # were all proven infeasible has none, and its proofs' time is given apart.
        header = rows[0].split(",")
        cells = [dict(zip(header, r.split(","))) for r in rows[1:]]
        none = [c for c in cells if c["found"] == "0"]
        self.assertTrue(none)
        for c in none:
            self.assertEqual(c["cpu_mean"], "")
            self.assertNotEqual(c["infeasible_cpu_mean"], "")
        for c in cells:
            if c["found"] != "0":
                self.assertGreater(float(c["cpu_mean"]), 0)
        with open(os.path.join(out, "figures.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("verdict VALID", text)
        self.assertIn("## Figure 8", text)

    def test_refuses_an_invalid_study(self):
        bad = os.path.join(self.tmp.name, "bad")
        os.makedirs(bad, exist_ok=True)
        with open(os.path.join(self.study, "study.json"), encoding="utf-8") as f:
            doc = json.load(f)
        doc["verdict"] = "INVALID"
        with open(os.path.join(bad, "study.json"), "w", encoding="utf-8") as f:
            json.dump(doc, f)
        r = run(bad)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("INVALID", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(bad, "fig5.png")))

    def test_refuses_a_missing_study(self):
        r = run(os.path.join(self.tmp.name, "nowhere"))
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("study.json: no such file", r.stderr)


if __name__ == "__main__":
    unittest.main()
