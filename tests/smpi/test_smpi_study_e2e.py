"""scripts/smpi-study.sh end to end at a tiny size: the SMPI build of mcb-poisson on the
simulated DAS-2 platforms (one grid per table, 10 iterations; Table 4's configurations at grid
100 and 20 iterations), mcb-calibrate, mcb-sim with the simulated and the paper's tables, the
analysis and the report. Skips, saying why, without smpirun or the SMPI build (./mcb
smpi-build)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))

from support import BIN, SOURCE, read_csv  # noqa: E402
from support import read_json  # noqa: E402

sys.path.insert(0, os.path.join(SOURCE, "analysis"))
from mcb_analysis.inputs import read_records  # noqa: E402

SMPI_BUILD = os.environ.get("MCB_SMPI_BUILD_DIR", os.path.join(SOURCE, "build-smpi"))
SMPI_POISSON = os.path.join(SMPI_BUILD, "bin", "mcb-poisson")
REFERENCE = os.path.join(SOURCE, "..", "shared", "reference", "das2-study")
if not os.path.isdir(REFERENCE):
    REFERENCE = os.path.join(SOURCE, "..", "..", "shared", "reference", "das2-study")
NATIVE = [os.path.join(BIN, p) for p in ("mcb-calibrate", "mcb-sim")] if BIN else []


def why_not():
    if shutil.which("smpirun") is None:
        return "smpirun is not installed (Debian: libsimgrid-dev)"
    if not os.path.exists(SMPI_POISSON):
        return f"no SMPI build at {SMPI_POISSON} (./mcb smpi-build)"
    if not NATIVE or not all(os.path.exists(p) for p in NATIVE):
        return "mcb-calibrate and mcb-sim are not built"
    if not os.path.isdir(REFERENCE):
        return f"no reference tables at {REFERENCE}"
    return None


@unittest.skipIf(why_not(), why_not())
class TinyStudy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.dir.name, "study")
        env = dict(os.environ, MCB_SMPI_BUILD_DIR=SMPI_BUILD, MCB_BUILD_DIR=os.path.dirname(BIN),
                   MCB_STUDY_REFERENCE=REFERENCE, MCB_STUDY_GRIDS="50",
                   MCB_STUDY_T2_GRIDS="100", MCB_STUDY_T4_GRID="100",
                   MCB_STUDY_ITERATIONS="10", MCB_SIM_JOBS="300",
                   OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   PYTHONDONTWRITEBYTECODE="1")
        cls.proc = subprocess.run([os.path.join(SOURCE, "scripts", "smpi-study.sh"), cls.out],
                                 capture_output=True, text=True, env=env, timeout=1500)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_every_run_is_valid_and_says_its_simulated_system(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout + self.proc.stderr)
        records = read_records(os.path.join(self.out, "records.jsonl"))
        # Table 2 at one grid: 15 configurations; 4x4 at grid 50, non-synchronized and
        # synchronized, on 4 systems: 8; Table 4's: 8.
        self.assertEqual(len(records), 15 + 8 + 8)
        for r in records:
            self.assertEqual(r["status"], "valid", r.get("reason"))
            self.assertIn(r["config"]["system"], ("smpi-das2-pbs", "smpi-das2-globus",
                                                  "smpi-das2"))
            self.assertTrue(r["config"]["fixed_iterations"])
            self.assertEqual(r["config"]["sample"], 10)
        self.assertIn("31 of 31 runs valid", self.proc.stdout)

    def test_tables_beside_the_paper_and_a_report(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        analysis = os.path.join(self.out, "analysis")
        row = [r for r in read_csv(os.path.join(analysis, "smpi-table2.csv"))
               if r["grid"] == "100" and r["procs"] == "4x4"][0]
        for column in ("PBS", "Globus-1", "Globus-2", "Globus-4"):
            sim, paper = float(row[f"{column} sim"]), float(row[f"{column} paper"])
            self.assertGreater(sim, 0)
            self.assertAlmostEqual(float(row[f"{column} error"]), (sim - paper) / paper, places=6)
        # Over the wide-area links the same configuration takes longer than on one cluster.
        self.assertGreater(float(row["Globus-2 sim"]), float(row["PBS sim"]))
        t4 = read_csv(os.path.join(analysis, "smpi-table4.csv"))
        self.assertEqual(len(t4), 8)
        self.assertTrue(all(float(r["sim"]) > 0 for r in t4))
        manifest = read_json(os.path.join(analysis, "manifest.json"))
        self.assertIn("smpi-saturation", [i["id"] for i in manifest["items"]])
        self.assertTrue(os.path.exists(os.path.join(self.out, "report", "report.html")))


@unittest.skipUnless(BIN and os.path.exists(os.path.join(BIN, "mcb-poisson")),
                     "mcb-poisson is not built")
class NativeBuildRefusesSampling(unittest.TestCase):
    def test_sample_is_refused_with_one_line_and_exit_2(self):
        p = subprocess.run([os.path.join(BIN, "mcb-poisson"), "--grid", "16", "--iterations",
                            "5", "--sample", "2", "--sweep-rate", "1e6", "--output", "none"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.strip().count("\n"), 0, p.stderr)
        self.assertIn("--sample: '2' needs the SMPI build", p.stderr)

    def test_fixed_iterations_run_exactly_and_are_judged_without_convergence(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.jsonl")
            p = subprocess.run([os.path.join(BIN, "mcb-poisson"), "--grid", "32",
                                "--iterations", "7", "--counters", "", "--output", out],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            r = read_records(out)[0]
            self.assertEqual(r["status"], "valid")
            self.assertEqual(r["result"]["iterations"], 7)
            self.assertFalse(r["result"]["converged"])


if __name__ == "__main__":
    unittest.main()
