"""The DAS-2 measurement study's analysis (analysis/study_wan.py, mcb_analysis.study_wan) on
records made up for the purpose: the tables hold the averages of the runs, the claims are checked
on them, and bad input writes nothing."""

import json
import os
import unittest

from support import TempDirTest, read_csv, run


def record(run_id, procs, grid, clusters, sync, wall, comm, status="valid", inter=0.0):
    h, v = (int(x) for x in procs.split("x"))
    ranks = []
    for rank in range(h * v):
        column = rank // v
        cluster = column * clusters // h
        channels = {d: {"time": {"intra": 0.1, "inter": 0.0}} for d in ("top", "bottom")}
        # The two columns beside the border between the clusters wait on it.
        edge = clusters > 1 and column in (h // 2 - 1, h // 2)
        for d in ("left", "right"):
            channels[d] = {"time": {"intra": 0.05, "inter": inter if edge else 0.0}}
        ranks.append({"rank": rank, "cluster": cluster, "channels": channels})
    return {"schema": "mcb-run/2", "app": "poisson", "run_id": run_id, "status": status,
            "config": {"procs": procs, "grid": grid, "components": clusters, "sync": sync,
                       "system": "emu-100Mbit/s-1ms", "h": h, "v": v},
            "result": {"wall_time": wall, "iterations": 10 * grid,
                       "comm_time_paper": comm}, "ranks": ranks}


class StudyWan(TempDirTest):
    def write_records(self, name, records):
        path = self.path(name)
        with open(path, "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        return path

    def study(self):
        """2x2 at grids 16 and 32 on 1, 2, 4 clusters, two repetitions at grid 16 on 1 cluster
        and one invalid run; the ratio to 1 cluster falls with the grid, communication takes
        less time without sync, and the edge processes wait on the cross-cluster steps."""
        runs = []
        walls = {16: {1: 1.0, 2: 3.0, 4: 5.0}, 32: {1: 4.0, 2: 4.4, 4: 5.2}}
        for grid in (16, 32):
            for c in (1, 2, 4):
                for sync in (False, True):
                    comm = 0.2 * c + (0.1 if sync else 0.0)
                    runs.append(record(f"r-{grid}-{c}-{sync}", "2x2", grid, c, sync,
                                       walls[grid][c], comm, inter=0.5))
        runs.append(record("again", "2x2", 16, 1, False, 3.0, 0.2))
        runs.append(record("broken", "2x2", 16, 2, False, 99.0, 9.0, status="invalid"))
        return self.write_records("runs.jsonl", runs)

    def test_tables_hold_the_averages_and_the_claims_are_checked(self):
        proc = run("study_wan.py", "--records", self.study(), "--output", self.path("out"))
        self.assertOk(proc)
        t3 = read_csv(self.path("out", "table3.csv"))
        self.assertEqual([r["grid"] for r in t3], ["16", "32"])
        # Grid 16 on 1 cluster: the average of 1.0 and 3.0; the invalid run is left out.
        self.assertEqual(float(t3[0]["runtime_c1"]), 2.0)
        self.assertEqual(float(t3[0]["ratio_c2"]), 1.5)
        self.assertAlmostEqual(float(t3[1]["ratio_c4"]), 1.3)
        t10 = read_csv(self.path("out", "table10.csv"))
        self.assertEqual(len(t10), 6)
        self.assertAlmostEqual(float(t10[1]["sync_yes"]), 0.5)
        self.assertAlmostEqual(float(t10[1]["sync_no"]), 0.4)
        f10 = read_csv(self.path("out", "fig10.csv"))
        self.assertEqual(len(f10), 4 * 4)
        with open(self.path("out", "summary.txt"), encoding="utf-8") as f:
            summary = f.read()
        self.assertEqual(summary, proc.stdout)
        self.assertIn("13 valid of 14 runs; system emu-100Mbit/s-1ms", summary)
        self.assertIn("invalid or failed runs are left out: broken", summary)
        self.assertIn("yes  2x2 C=2: ratio falls from grid 16 (1.50) to grid 32 (1.10)", summary)
        self.assertIn("yes  2x2 N=16 C=2: non-synchronized 0.400 s < synchronized 0.500 s",
                      summary)
        self.assertIn("yes  2x2 grid 16 C=2: at every edge process left or right takes longest",
                      summary)
        self.assertEqual(sorted(os.listdir(self.path("out"))),
                         ["fig10.csv", "summary.txt", "table10.csv", "table3.csv"])

    def test_the_csv_files_are_those_of_the_study_script(self):
        # Python's csv module as the script wrote them: \r\n line ends, empty cells for none.
        proc = run("study_wan.py", "--records", self.study(), "--output", self.path("out"))
        self.assertOk(proc)
        with open(self.path("out", "table10.csv"), "rb") as f:
            first = f.readline()
        self.assertEqual(first, b"procs,grid,clusters,sync_yes,sync_no\r\n")

    def test_records_of_several_files_are_read_in_order(self):
        whole = self.study()
        with open(whole, encoding="utf-8") as f:
            lines = f.readlines()
        a = self.write_records("a.jsonl", [json.loads(x) for x in lines[:5]])
        b = self.write_records("b.jsonl", [json.loads(x) for x in lines[5:]])
        self.assertOk(run("study_wan.py", "--records", whole, "--output", self.path("one")))
        self.assertOk(run("study_wan.py", "--records", a, "--records", b,
                          "--output", self.path("two")))
        for name in ("table3.csv", "table10.csv", "fig10.csv", "summary.txt"):
            with open(self.path("one", name), "rb") as f1, open(self.path("two", name), "rb") as f2:
                self.assertEqual(f1.read(), f2.read(), name)

    def test_a_malformed_record_ends_with_one_line_and_writes_nothing(self):
        path = self.study()
        with open(path, "a", encoding="utf-8") as f:
            f.write("{not json\n")
        self.assertBadInput(run("study_wan.py", "--records", path, "--output", self.path("out")),
                            "runs.jsonl:15")
        self.assertFalse(os.path.exists(self.path("out")))


if __name__ == "__main__":
    unittest.main()
