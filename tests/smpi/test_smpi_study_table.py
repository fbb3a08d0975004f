"""analysis/smpi_study.py's comparison tables: every simulated cell is the runs' time per
iteration times the paper's iteration count of that cell, and its error is (sim - paper) / paper
against the reference CSVs of the DAS-2 study; only valid runs of the named systems count."""

import csv
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))

from support import SOURCE, read_csv, run  # noqa: E402

REFERENCE = os.path.join(os.path.dirname(SOURCE), "shared", "reference", "das2-study")
if not os.path.isdir(REFERENCE):
    REFERENCE = os.path.join(SOURCE, "..", "..", "shared", "reference", "das2-study")


def record(grid, procs, clusters, system, iterations, wall, comm, sync=False, status="valid"):
    return {"schema": "mcb-run/2", "run_id": f"t-{grid}-{procs}-{clusters}-{system}-{sync}",
            "app": "poisson", "status": status,
            "config": {"grid": grid, "procs": procs, "clusters": clusters, "system": system,
                       "sync": sync},
            "result": {"iterations": iterations, "wall_time": wall, "comm_time_paper": comm}}


def reference(name):
    with open(os.path.join(REFERENCE, name), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@unittest.skipUnless(os.path.isdir(REFERENCE), f"no reference tables at {REFERENCE}")
class ComparisonTable(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.records = os.path.join(self.dir.name, "runs.jsonl")
        runs = [
            # Table 2, 4000 x 4000 on 4x2: PBS 0.5 s per iteration, Globus-2 0.6 s.
            record(4000, "4x2", 1, "smpi-fast", 100, 50.0, 1.0),
            record(4000, "4x2", 2, "smpi-tcp", 100, 60.0, 5.0),
            # Two runs of one 4x4 cell (Tables 2 and 3 share it): averaged per iteration.
            record(1000, "4x4", 1, "smpi-fast", 200, 2.0, 0.2),
            record(1000, "4x4", 1, "smpi-fast", 100, 2.0, 0.1),
            record(1000, "4x4", 4, "smpi-tcp", 100, 4.0, 0.8),
            record(4000, "4x4", 1, "smpi-fast", 100, 30.0, 0.3),
            record(4000, "4x4", 4, "smpi-tcp", 100, 33.0, 2.5),
            record(1000, "4x4", 4, "smpi-tcp", 100, 5.0, 1.5, sync=True),
            # Not counted: invalid, another system.
            record(4000, "4x2", 4, "smpi-tcp", 100, 1e6, 1.0, status="invalid"),
            record(4000, "4x2", 1, "local", 100, 1e6, 1.0),
        ]
        with open(self.records, "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(r) + "\n" for r in runs))
        self.out = os.path.join(self.dir.name, "out")
        p = run("smpi_study.py", "--records", self.records, "--system", "PBS=smpi-fast",
                "--system", "Globus=smpi-tcp", "--reference", REFERENCE, "--output", self.out)
        self.assertEqual(p.returncode, 0, p.stderr)

    def tearDown(self):
        self.dir.cleanup()

    def row(self, table, **key):
        rows = [r for r in read_csv(os.path.join(self.out, table + ".csv"))
                if all(r[k] == v for k, v in key.items())]
        self.assertEqual(len(rows), 1, key)
        return rows[0]

    def test_table2_cells_and_errors_against_the_reference(self):
        paper = [r for r in reference("poisson_runtime_by_procs.csv")
                 if r["grid"] == "4000" and r["proc_config"] == "4x2"][0]
        n = int(paper["iterations"])
        got = self.row("smpi-table2", grid="4000", procs="4x2")
        for column, per_iteration in (("PBS", 0.5), ("Globus-2", 0.6)):
            sim, ref = per_iteration * n, float(paper[column])
            self.assertAlmostEqual(float(got[f"{column} sim"]), sim, places=6)
            self.assertAlmostEqual(float(got[f"{column} paper"]), ref)
            self.assertAlmostEqual(float(got[f"{column} error"]), (sim - ref) / ref, places=9)
        # The invalid Globus-4 run and the run of another system left these cells empty.
        self.assertEqual(got["Globus-4 sim"], "")
        self.assertEqual(got["Globus-4 error"], "")
        self.assertEqual(got["Globus-1 sim"], "")

    def test_table3_uses_table9s_iterations_and_averages_per_iteration(self):
        n = int([r for r in reference("poisson_comm_sync_4x4.csv") if r["grid"] == "1000"][0]
                ["iterations"])
        paper = [r for r in reference("poisson_runtime_4x4.csv") if r["grid"] == "1000"][0]
        got = self.row("smpi-table3", grid="1000")
        sim = (2.0 / 200 + 2.0 / 100) / 2 * n
        ref = float(paper["PBS_avg"])
        self.assertAlmostEqual(float(got["PBS sim"]), sim, places=6)
        self.assertAlmostEqual(float(got["PBS error"]), (sim - ref) / ref, places=9)

    def test_ratio_and_synchronized_communication(self):
        ratio = self.row("smpi-ratio", grid="1000")
        self.assertAlmostEqual(float(ratio["Globus-4 / PBS sim"]), 0.04 / 0.015, places=9)
        paper = [r for r in reference("poisson_runtime_4x4.csv") if r["grid"] == "1000"][0]
        self.assertAlmostEqual(float(ratio["Globus-4 / PBS paper"]),
                               float(paper["Globus-4_avg"]) / float(paper["PBS_avg"]), places=9)
        t9 = [r for r in reference("poisson_comm_sync_4x4.csv") if r["grid"] == "1000"][0]
        got = self.row("smpi-table9", grid="1000")
        sim = 1.5 / 100 * int(t9["iterations"])
        self.assertAlmostEqual(float(got["Globus-4 sim"]), sim, places=6)
        ref = float(t9["Globus-4_avg"])
        self.assertAlmostEqual(float(got["Globus-4 error"]), (sim - ref) / ref, places=9)
        t10 = self.row("smpi-table10", grid="1000")
        self.assertAlmostEqual(float(t10["Globus-4 nosync sim"]), 0.008 * int(t9["iterations"]),
                               places=6)
        # The ratio from 1000 to 4000 falls (0.04/0.015 = 2.67 to 0.33/0.3 = 1.1): said so.
        with open(os.path.join(self.out, "smpi-study.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("Globus-4: yes, at every step over 2 grid sizes", text)

    def test_a_bad_system_option_is_one_line_and_exit_2(self):
        p = run("smpi_study.py", "--records", self.records, "--system", "PBS=smpi-fast",
                "--system", "Grid=x", "--output", os.path.join(self.dir.name, "bad"))
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.strip().count("\n"), 0, p.stderr)
        self.assertIn("--system: 'Grid=x'", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir.name, "bad")))


if __name__ == "__main__":
    unittest.main()
