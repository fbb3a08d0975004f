"""measurement.py on bad input (exit code 2, one line naming the file, nothing written) and on what
mcb-calibrate really writes (real Poisson records from tests/fixtures/records/poisson-real)."""

import os
import shutil
import subprocess
import unittest

from support import BIN, FIXTURES, PAPER, TempDirTest, read_csv, read_json, run


class BadCalibrationFolder(TempDirTest):
    def copy(self):
        d = self.path("cal")
        shutil.copytree(PAPER, d)
        return d

    def rewrite(self, d, name, mutate):
        path = os.path.join(d, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(mutate(text))
        return path

    def measure(self, d):
        return run("measurement.py", "--calibration", d, "--output", self.path("out"))

    def assertNothingWritten(self):
        self.assertFalse(os.path.exists(self.path("out")))

    def test_empty_runtime_table(self):
        d = self.copy()
        path = self.rewrite(d, "runtimes.csv", lambda t: "")
        self.assertBadInput(self.measure(d), path, "empty file")
        self.assertNothingWritten()

    def test_runtime_table_without_rows(self):
        d = self.copy()
        path = self.rewrite(d, "runtimes.csv", lambda t: t.splitlines()[0] + "\n")
        self.assertBadInput(self.measure(d), path, "no rows")

    def test_missing_column(self):
        d = self.copy()
        path = self.rewrite(d, "runtimes.csv", lambda t: t.replace(",avg,", ",average,", 1))
        self.assertBadInput(self.measure(d), path, "missing column(s) avg")
        self.assertNothingWritten()
        d2 = self.path("cal2")
        shutil.copytree(PAPER, d2)
        path = os.path.join(d2, "rank_comm.csv")
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        header = lines[0].split(",")
        k = header.index("direction")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(",".join(c for i, c in enumerate(l.split(",")) if i != k)
                              for l in lines) + "\n")
        proc = run("measurement.py", "--calibration", d2, "--output", self.path("out"))
        self.assertBadInput(proc, path, "direction")
        self.assertNothingWritten()

    def test_cell_that_is_not_a_number(self):
        d = self.copy()
        path = self.rewrite(d, "comm_time.csv", lambda t: t.replace("0.15,0.16,0.19",
                                                                    "0.15,abc,0.19", 1))
        self.assertBadInput(self.measure(d), f"{path}:2", "column avg", "'abc'")

    def test_inconsistent_statistics(self):
        d = self.copy()
        path = self.rewrite(d, "runtimes.csv", lambda t: t.replace("1.35,1.6,2.28",
                                                                   "1.35,2.6,2.28", 1))
        self.assertBadInput(self.measure(d), path, "min <= avg <= max")

    def test_missing_sidecar_and_folder(self):
        d = self.copy()
        os.unlink(os.path.join(d, "runtimes.json"))
        self.assertBadInput(self.measure(d), "runtimes.json", "no such file")
        self.assertBadInput(run("measurement.py", "--calibration", self.path("none"), "--output",
                                self.path("out")), "--calibration", "not a folder")
        self.assertBadInput(run("measurement.py", "--calibration", FIXTURES, "--output",
                                self.path("out")), "runtimes.csv", "not a calibration output")

    def test_bad_options(self):
        self.assertBadInput(run("measurement.py", "--calibration", PAPER), "--output")
        self.assertBadInput(run("measurement.py", "--calibration", PAPER, "--output",
                                self.path("o"), "--comm-mode", "maybe"), "--comm-mode", "maybe")
        open(self.path("file"), "w").close()
        self.assertBadInput(run("measurement.py", "--calibration", PAPER, "--output",
                                self.path("file")), "--output", "not a folder")


@unittest.skipUnless(BIN and os.path.exists(os.path.join(BIN, "mcb-calibrate")),
                     "mcb-calibrate is not built (MCB_BIN_DIR)")
class RealCalibration(TempDirTest):
    """The analysis reads what mcb-calibrate writes from real mcb-poisson records."""

    def setUp(self):
        super().setUp()
        records = os.path.join(FIXTURES, "..", "records", "poisson-real")
        proc = subprocess.run([os.path.join(BIN, "mcb-calibrate"), "--input", records,
                               "--output", self.path("tables"), "--runtime-where", "sync=false",
                               "--quiet"], capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_tables_and_figures_of_a_real_calibration(self):
        proc = run("measurement.py", "--calibration", self.path("tables"), "--output",
                   self.path("out"), "--procs", "2x1")
        self.assertOk(proc)
        manifest = read_json(self.path("out", "manifest.json"))
        ids = [i["id"] for i in manifest["items"]]
        for needed in ("table3-poisson-runtime", "fig4-runtime-normalised",
                       "table9-poisson-comm-sync", "table10-poisson-comm-sync-vs-nosync",
                       "fig9-rank-comm", "fig10-rank-comm-directions", "fig11-comm-normalised",
                       "fig12-transfer-rate"):
            self.assertIn(needed, ids)
        runtimes = [r for r in read_csv(self.path("tables", "runtimes.csv"))
                    if r["problem"] == "32x32" and r["total_size"] == "2"]
        table3 = read_csv(self.path("out", "table3-poisson-runtime.csv"))
        self.assertEqual(len(table3), 1)
        for r in runtimes:
            label = "1 cluster" if r["components"] == "1" else f"{r['components']} clusters"
            for stat in ("min", "avg", "max"):
                self.assertAlmostEqual(float(table3[0][f"{label} {stat}"]), float(r[stat]))
        fig9 = read_json(self.path("out", "fig9-rank-comm.json"))
        self.assertEqual([p["setup"] for p in fig9["panels"]], ["1 cluster", "2 clusters"])
        self.assertEqual(fig9["panels"][1]["clusters"], [[0, 1]])
        self.assertEqual(manifest["provenance"]["runtime_records"], 6)  # the sync=false runs
        self.assertEqual(manifest["provenance"]["filters"]["runtime_where"], ["sync=false"])

    def test_a_process_grid_without_one_cluster_runs_skips_the_normalised_figures(self):
        proc = run("measurement.py", "--calibration", self.path("tables"), "--output",
                   self.path("out"), "--procs", "2x2")
        self.assertOk(proc)
        manifest = read_json(self.path("out", "manifest.json"))
        skipped = {s["id"]: s["reason"] for s in manifest["skipped"]}
        self.assertIn("fig4-runtime-normalised", skipped)
        self.assertIn("fig11-comm-normalised", skipped)
        self.assertIn("no one-cluster", skipped["fig4-runtime-normalised"])


if __name__ == "__main__":
    unittest.main()
