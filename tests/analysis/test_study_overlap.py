"""Seed 000's overlap expectation (scripts/study-overlap.sh, analysis/study_overlap.py): the
analysis on records made up for the purpose (medians, the time the wide area adds, the verdict,
modes that disagree on the solution, bad input), and the study end to end at a tiny size with
real MPI runs over emulated links, checked on what it computes, never on its times."""

import os
import subprocess
import unittest

from support import BIN, SOURCE, TempDirTest, read_csv, run


def record(run_id, grid, halo, clusters, wall, iterations=100, error=1e-3, status="valid"):
    return {"schema": "mcb-run/2", "app": "poisson", "run_id": run_id, "status": status,
            "config": {"grid": grid, "halo": halo, "components": clusters,
                       "wan": {"latency": 0.001, "bandwidth": 12.5}},
            "result": {"wall_time": wall, "iterations": iterations},
            "verdict": {"error": error}}


class StudyOverlapAnalysis(TempDirTest):
    def test_medians_added_time_and_verdict(self):
        # Grid 16: exact adds 2.0 s (medians 1.0 and 3.0), overlap 1.0 s; grid 32: exact adds
        # 1.0 s, overlap 1.5 s. The invalid run is left out.
        runs = [record("a", 16, "exact", 1, 1.0), record("b", 16, "exact", 2, 3.0),
                record("c", 16, "exact", 2, 9.0), record("d", 16, "exact", 2, 2.9),
                record("e", 16, "overlap", 1, 0.5), record("f", 16, "overlap", 2, 1.5),
                record("g", 32, "exact", 1, 4.0), record("h", 32, "exact", 2, 5.0),
                record("i", 32, "overlap", 1, 3.0), record("j", 32, "overlap", 2, 4.5),
                record("k", 32, "overlap", 2, 0.1, status="invalid")]
        done = run("study_overlap.py", "--records", self.write_jsonl(runs), "--output", self.tmp)
        self.assertOk(done)
        rows = {int(r["grid"]): r for r in read_csv(self.path("overlap.csv"))}
        self.assertAlmostEqual(float(rows[16]["exact_2"]), 3.0)  # median of 3.0, 9.0, 2.9
        self.assertAlmostEqual(float(rows[16]["added_exact"]), 2.0)
        self.assertAlmostEqual(float(rows[16]["added_overlap"]), 1.0)
        self.assertAlmostEqual(float(rows[32]["added_overlap"]), 1.5)
        self.assertEqual(rows[32]["runs"], "4")
        self.assertIn("at 1 of 2 grid sizes", done.stdout)
        self.assertIn("does not hold (not less at grid 32)", done.stdout)

    def test_modes_that_disagree_are_not_comparable(self):
        runs = [record("a", 16, "exact", 1, 1.0), record("b", 16, "exact", 2, 3.0),
                record("c", 16, "overlap", 1, 0.5), record("d", 16, "overlap", 2, 1.5,
                                                          iterations=101)]
        done = run("study_overlap.py", "--records", self.write_jsonl(runs), "--output", self.tmp)
        self.assertOk(done)
        self.assertIn("NOT COMPARABLE", done.stdout)
        self.assertIn("does not hold", done.stdout)
        self.assertEqual(read_csv(self.path("overlap.csv"))[0]["same_solution"], "false")

    def test_records_without_both_modes_are_bad_input(self):
        runs = [record("a", 16, "exact", 1, 1.0), record("b", 16, "exact", 2, 3.0)]
        done = run("study_overlap.py", "--records", self.write_jsonl(runs), "--output", self.tmp)
        self.assertBadInput(done, "--records", "both halo modes")
        self.assertFalse(os.path.exists(self.path("overlap.csv")))


@unittest.skipUnless(BIN and os.path.exists(os.path.join(BIN, "mcb-campaign")),
                     "needs the built programs (MCB_BIN_DIR)")
class StudyOverlapEndToEnd(TempDirTest):
    def test_tiny_study_runs_both_modes_to_the_same_solution(self):
        env = dict(os.environ, MCB_BUILD_DIR=os.path.dirname(BIN), STUDY_GRIDS="40",
                   STUDY_REPETITIONS="1")
        done = subprocess.run(["bash", os.path.join(SOURCE, "scripts", "study-overlap.sh"),
                               self.path("study")], capture_output=True, text=True, env=env,
                              timeout=1200)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("4 valid of 4 runs", done.stdout)
        rows = read_csv(self.path("study", "overlap.csv"))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["same_solution"], "true", rows[0])
        self.assertIn("seed 000 section 7's expectation", done.stdout)


if __name__ == "__main__":
    unittest.main()
