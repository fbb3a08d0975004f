"""Seed 002's non-dedicated clusters (scripts/study-nodeload.sh, analysis/study_nodeload.py):
the analysis on records made up for the purpose (medians, penalty, slowdown, the share reached,
iterations that differ, bad input), and the study end to end at a tiny size with real MPI runs
under a real load, checked on what it computes, never on its times."""

import os
import subprocess
import unittest

from support import BIN, SOURCE, TempDirTest, read_csv, run


def record(run_id, load, clusters, wall, share=0.0, iterations=100, status="valid"):
    env = {}
    if load != "none":
        asked = float(load.split("=")[1].rstrip("%")) / 100
        env["node_load"] = {"load": {"cpu_share": asked}, "hosts": [{"cpu": {"share": share}}]}
    return {"schema": "mcb-run/2", "app": "poisson", "run_id": run_id, "status": status,
            "config": {"problem": "64x64", "node_load": load, "components": clusters},
            "env": env, "result": {"wall_time": wall, "iterations": iterations}}


class StudyNodeLoadAnalysis(TempDirTest):
    def test_penalty_slowdown_and_share_by_load(self):
        runs = [record("a", "none", 1, 2.0), record("b", "none", 2, 3.0),
                record("c", "cpu=50%", 1, 4.0, 0.4), record("d", "cpu=50%", 2, 5.0, 0.5),
                record("e", "cpu=50%", 2, 7.0, 0.3), record("f", "cpu=50%", 2, 6.0, 0.4),
                record("g", "cpu=50%", 2, 0.1, status="invalid")]
        done = run("study_nodeload.py", "--records", self.write_jsonl(runs), "--output", self.tmp)
        self.assertOk(done)
        rows = read_csv(self.path("nodeload.csv"))
        self.assertEqual([r["load"] for r in rows], ["none", "cpu=50%"])
        self.assertAlmostEqual(float(rows[0]["penalty"]), 1.5)
        self.assertAlmostEqual(float(rows[1]["time_2"]), 6.0)  # median of 5, 7, 6
        self.assertAlmostEqual(float(rows[1]["penalty"]), 1.5)
        self.assertAlmostEqual(float(rows[1]["slowdown_1"]), 2.0)
        self.assertAlmostEqual(float(rows[1]["cpu_share_reached"]), 0.4)
        self.assertEqual(rows[1]["runs"], "4")
        self.assertIn("penalty by load: none 1.50, cpu=50% 1.50", done.stdout)
        self.assertNotIn("NOT COMPARABLE", done.stdout)

    def test_iterations_that_differ_are_reported(self):
        runs = [record("a", "none", 1, 2.0), record("b", "none", 2, 3.0),
                record("c", "cpu=25%", 1, 2.5, iterations=101), record("d", "cpu=25%", 2, 3.5)]
        done = run("study_nodeload.py", "--records", self.write_jsonl(runs), "--output", self.tmp)
        self.assertOk(done)
        self.assertIn("NOT COMPARABLE: poisson 64x64", done.stdout)

    def test_records_without_both_cluster_counts_are_bad_input(self):
        runs = [record("a", "none", 1, 2.0), record("b", "cpu=25%", 1, 3.0)]
        done = run("study_nodeload.py", "--records", self.write_jsonl(runs), "--output", self.tmp)
        self.assertBadInput(done, "--records", "valid runs on 1 and 2 clusters")
        self.assertFalse(os.path.exists(self.path("nodeload.csv")))


@unittest.skipUnless(BIN and os.path.exists(os.path.join(BIN, "mcb-nodeload")),
                     "needs the built programs (MCB_BIN_DIR)")
class StudyNodeLoadEndToEnd(TempDirTest):
    def test_tiny_study_runs_every_load_to_the_same_solution(self):
        env = dict(os.environ, MCB_BUILD_DIR=os.path.dirname(BIN), STUDY_GRIDS="40",
                   STUDY_BYTES="1e6", STUDY_REPETITIONS="1", STUDY_LOADS="none cpu=50%")
        done = subprocess.run(["bash", os.path.join(SOURCE, "scripts", "study-nodeload.sh"),
                               self.path("study")], capture_output=True, text=True, env=env,
                              timeout=1200)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        # Poisson and mcb-synth, each under both loads on 1 and 2 clusters.
        self.assertIn("8 valid of 8 runs", done.stdout)
        rows = read_csv(self.path("study", "nodeload.csv"))
        for app in ("poisson", "synth"):
            mine = [r for r in rows if r["app"] == app]
            self.assertEqual([r["load"] for r in mine], ["none", "cpu=50%"], app)
            self.assertEqual(float(mine[0]["cpu_share_reached"]), 0.0)
            self.assertGreater(float(mine[1]["cpu_share_reached"]), 0.0)
        self.assertNotIn("NOT COMPARABLE", done.stdout)


if __name__ == "__main__":
    unittest.main()
