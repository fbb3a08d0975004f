"""Issue 35's penalty map (scripts/study-synth-map.sh, analysis/study_synth_map.py): the analysis
on records made up for the purpose (medians, penalties, each level's place by its 2-cluster
ratio, the 1.25 threshold interpolated in log ratio, the two applications placed, bad input), and
the study end to end in its quick mode with real MPI runs over emulated links, checked on what it
computes, never on its times."""

import os
import subprocess
import unittest

from support import BIN, SOURCE, TempDirTest, read_csv, run


def spread(value):
    return {"min": value, "avg": value, "max": value}


def synth(run_id, nbytes, clusters, wall, compute=1.0, comm=1.0, status="valid"):
    return {"schema": "mcb-run/2", "app": "synth", "run_id": run_id, "status": status,
            "config": {"pattern": "nearest", "message_size": 65536, "flops": 0.0,
                       "bytes": nbytes, "components": clusters,
                       "wan": {"latency": 0.001, "bandwidth": 12.5}},
            "env": {"load_average": 3.5},
            "result": {"wall_time": wall, "compute_time": spread(compute),
                       "comm_time": spread(comm)}}


def placed(app, run_id, clusters, wall, compute, comm):
    return {"schema": "mcb-run/2", "app": app, "run_id": run_id, "status": "valid",
            "config": {"components": clusters}, "env": {"load_average": 1.5},
            "result": {"wall_time": wall, "compute_time": spread(compute),
                       "comm_time": spread(comm)}}


class StudySynthMapAnalysis(TempDirTest):
    def test_penalties_threshold_and_placements(self):
        # Level 1e5: ratio 0.5 on 2 clusters, penalty 2.0 (median of 1.9, 2.0, 9.0 over 1.0);
        # level 1e7: ratio 4 on 2 clusters, penalty 1.0; so 1.25 is crossed at 3/4 of the way
        # from log 0.5 to log 4 (0.5 * 8^0.75 = 2.378...). On 3 clusters both are above.
        runs = [synth("a", 1e5, 1, 1.0), synth("b", 1e5, 2, 2.0, 1.0, 2.0),
                synth("c", 1e5, 2, 1.9, 1.0, 2.0), synth("d", 1e5, 2, 9.0, 1.0, 2.0),
                synth("e", 1e7, 1, 4.0), synth("f", 1e7, 2, 4.0, 4.0, 1.0),
                synth("g", 1e5, 3, 3.0), synth("h", 1e7, 3, 6.0),
                synth("i", 1e7, 3, 0.1, status="invalid"),
                placed("poisson", "p1", 1, 2.0, 1.0, 0.1), placed("poisson", "p2", 2, 2.2, 3.0, 1.0),
                placed("ensflow", "e1", 1, 1.0, 1.0, 0.1), placed("ensflow", "e2", 2, 3.0, 1.0, 2.0)]
        done = run("study_synth_map.py", "--records", self.write_jsonl(runs), "--output", self.tmp)
        self.assertOk(done)
        rows = {(float(r["bytes"]), int(r["clusters"])): r
                for r in read_csv(self.path("penalty.csv"))}
        self.assertAlmostEqual(float(rows[(1e5, 2)]["penalty"]), 2.0)
        self.assertAlmostEqual(float(rows[(1e5, 2)]["x_ratio"]), 0.5)
        self.assertAlmostEqual(float(rows[(1e7, 3)]["penalty"]), 1.5)
        self.assertAlmostEqual(float(rows[(1e7, 3)]["x_ratio"]), 4.0)  # placed by 2 clusters
        self.assertEqual(rows[(1e7, 3)]["runs"], "1")
        self.assertIn("2 clusters: co-allocation stays within 1.25 from a computation/"
                      "communication ratio of about 2.38", done.stdout)
        self.assertIn("3 clusters: co-allocation stays within 1.25 nowhere", done.stdout)
        apps = {r["app"]: r for r in read_csv(self.path("apps.csv"))}
        self.assertAlmostEqual(float(apps["poisson"]["penalty"]), 1.1)
        self.assertAlmostEqual(float(apps["poisson"]["x_ratio"]), 3.0)
        self.assertAlmostEqual(float(apps["ensflow"]["penalty"]), 3.0)
        self.assertIn("poisson: ratio 3 on 2 clusters, penalty 1.100", done.stdout)
        self.assertIn("(1.000 s on 1, 3.000 s on 2; above 1.25)", done.stdout)
        self.assertIn("min 1.50, median 3.50, max 3.50", done.stdout)
        self.assertTrue(os.path.getsize(self.path("map.png")) > 1000)

    def test_every_level_within_the_bound(self):
        runs = [synth("a", 1e5, 1, 1.0), synth("b", 1e5, 2, 1.1, 1.0, 0.5),
                synth("c", 1e6, 1, 1.0), synth("d", 1e6, 2, 1.0, 2.0, 0.5)]
        done = run("study_synth_map.py", "--records", self.write_jsonl(runs), "--output", self.tmp)
        self.assertOk(done)
        self.assertIn("stays within 1.25 at every ratio measured (from 2)", done.stdout)

    def test_records_without_a_single_cluster_base_are_bad_input(self):
        runs = [synth("a", 1e5, 2, 1.0), synth("b", 1e5, 3, 1.0)]
        done = run("study_synth_map.py", "--records", self.write_jsonl(runs), "--output", self.tmp)
        self.assertBadInput(done, "--records", "mcb-synth")
        self.assertFalse(os.path.exists(self.path("penalty.csv")))


@unittest.skipUnless(BIN and os.path.exists(os.path.join(BIN, "mcb-synth")),
                     "needs the built programs (MCB_BIN_DIR)")
class StudySynthMapQuick(TempDirTest):
    def test_quick_map_places_both_applications(self):
        env = dict(os.environ, MCB_BUILD_DIR=os.path.dirname(BIN))
        done = subprocess.run(["bash", os.path.join(SOURCE, "scripts", "study-synth-map.sh"),
                               "--quick", self.path("study")], capture_output=True, text=True,
                              env=env, timeout=1200)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("8 valid of 8 runs", done.stdout)
        rows = read_csv(self.path("study", "penalty.csv"))
        self.assertEqual(sorted((float(r["bytes"]), int(r["clusters"])) for r in rows),
                         [(1e6, 1), (1e6, 2), (1e8, 1), (1e8, 2)])
        self.assertEqual(sorted(r["app"] for r in read_csv(self.path("study", "apps.csv"))),
                         ["ensflow", "poisson"])
        self.assertIn("2 clusters: co-allocation stays within 1.25", done.stdout)
        self.assertTrue(os.path.exists(self.path("study", "map.png")))
